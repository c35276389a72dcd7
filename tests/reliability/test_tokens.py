"""Tokens: 256-bit random, stored only as SHA-256 hashes, compared in constant time; what the
host and the operator may do, and what they may not."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service import auth
from service.app import create_app
from service.meta import GameMeta, Progress
from service.redis_server import RedisServer
from service.redis_store import keys
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import Env, json_of, redis_bytes


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("tokens"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def h(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(c: FlaskClient, undo: str = "turn", n: int = 3) -> dict[str, Any]:
    body = {
        "game": "artus",
        "players": [{"name": f"p{i}"} for i in range(n)],
        "options": {"undo": undo},
    }
    r = c.post("/api/v1/games", json=body)
    assert r.status_code == 201
    return json_of(r)


def everything_stored(r: redis.Redis, gid: str) -> str:
    """Every key of the game and every value in it, as text."""
    out = []
    for key in r.scan_iter(match=f"{{g:{gid}}}*"):
        out.append(key.decode())
        kind = redis_bytes(r.type(key)).decode()
        if kind == "hash":
            out += [f"{a!r}={b!r}" for a, b in r.hgetall(key).items()]
        elif kind == "stream":
            out += [repr(e) for e in r.xrange(key) or []]
        elif kind == "list":
            out += [repr(x) for x in r.lrange(key, 0, -1)]
        else:
            out.append(repr(r.get(key)))
    return "\n".join(out)


def test_tokens_are_256_bit_random_and_stored_as_hashes(env: Env) -> None:
    c, r = env
    created = [create(c) for _ in range(5)]
    tokens = [g["host_token"] for g in created] + [s["token"] for g in created for s in g["seats"]]
    assert len(set(tokens)) == len(tokens), "every token is distinct"
    for t in tokens:
        assert len(t) == 43 and set(t) <= set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        )
        assert len(base64.urlsafe_b64decode(t + "=")) == 32  # 256 bits
    g = created[0]
    gid = g["id"]
    # some play, an idempotent POST and an undo, so every kind of key exists
    s = json_of(c.get(f"/api/v1/games/{gid}"))
    seat = s["to_act"][0]
    token = g["seats"][seat]["token"]
    listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=h(token)))
    body = {"action": listed["actions"][0], "expected_version": listed["version"]}
    post = c.post(
        f"/api/v1/games/{gid}/actions", json=body, headers={**h(token), "Idempotency-Key": "k"}
    )
    assert post.status_code == 201
    assert c.post(f"/api/v1/games/{gid}/undo", json={}, headers=h(token)).status_code == 200
    stored = everything_stored(r, gid)
    for t in (g["host_token"], *[x["token"] for x in g["seats"]]):
        assert t not in stored, "a raw token is stored"
    meta = {
        redis_bytes(k).decode(): redis_bytes(v).decode()
        for k, v in r.hgetall(keys(gid)["meta"]).items()
    }
    assert json.loads(meta["tokens"]) == [
        hashlib.sha256(x["token"].encode()).hexdigest() for x in g["seats"]
    ]
    assert meta["host"] == hashlib.sha256(g["host_token"].encode()).hexdigest()
    # nor anywhere else in Redis (the rate limiter's keys, the queue)
    every_key = " ".join(k.decode(errors="replace") for k in r.scan_iter(count=1000))
    assert not any(t in every_key for t in tokens)


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stored hash is compared, with hmac.compare_digest, whatever the token: no early
    exit tells a near miss from a far one or a seat token from the host's."""
    calls: list[tuple[Any, Any]] = []
    real = auth.hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    seats = [auth.new_token() for _ in range(4)]
    host = auth.new_token()
    meta = GameMeta(
        game="artus",
        seed="s",
        seed_commitment="c",
        tokens=tuple(auth.token_hash(t) for t in seats),
        host=auth.token_hash(host),
        created_at=0,
        setup_version=1,
        options={},
        seats=(),
        progress=Progress("active", (0,), (), 0),
    )
    for presented, expected in (
        (seats[0], ("seat", 0)),
        (seats[3], ("seat", 3)),
        (host, ("host", None)),
        ("wrong", None),
        (seats[0][:-1] + "x", None),
    ):
        calls.clear()
        if expected is None:
            with pytest.raises(auth.Unauthorized):
                auth.resolve(meta, presented, ADMIN_TOKEN)
        else:
            caller = auth.resolve(meta, presented, ADMIN_TOKEN)
            assert (caller.role, caller.seat) == expected
        # the operator's token, then all four seat hashes, then the host's: always six
        assert len(calls) == 6, calls


def test_the_host_has_powers_but_no_sight(env: Env) -> None:
    c, _ = env
    g = create(c, undo="host")
    gid, host = g["id"], g["host_token"]
    tokens = {s["seat"]: s["token"] for s in g["seats"]}
    # play a few moves (a deal, placements)
    for _ in range(6):
        s = json_of(c.get(f"/api/v1/games/{gid}"))
        t = tokens[s["to_act"][0]]
        listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=h(t)))
        body = {"action": listed["actions"][0], "expected_version": listed["version"]}
        assert c.post(f"/api/v1/games/{gid}/actions", json=body, headers=h(t)).status_code == 201
    v = json_of(c.get(f"/api/v1/games/{gid}"))["version"]
    # sees exactly what a spectator sees: views (now and replayed), events, audit, actions
    for path, query in (
        ("/view", {}), ("/view", {"version": 2}), ("/events", {}), ("/audit", {}), ("/actions", {}),
    ):  # fmt: skip
        as_host = c.get(f"/api/v1/games/{gid}{path}", query_string=query, headers=h(host)).json
        as_spectator = c.get(f"/api/v1/games/{gid}{path}", query_string=query).json
        assert as_host == as_spectator, path
    assert "hand" not in json_of(c.get(f"/api/v1/games/{gid}/view", headers=h(host)))["state"]
    # may not act, export, nor ask for the reveal before the end
    body = {"action": {"type": "place_knight", "seat": 1}, "expected_version": v}
    r1 = c.post(f"/api/v1/games/{gid}/actions", json=body, headers=h(host))
    assert r1.status_code == 403 and json_of(r1)["error"]["details"]["reason"] == "not_a_player"
    r2 = c.get(f"/api/v1/games/{gid}/export", headers=h(host))
    assert r2.status_code == 403 and json_of(r2)["error"]["details"]["reason"] == "not_finished"
    assert c.get(f"/api/v1/games/{gid}/view?reveal=true", headers=h(host)).status_code == 400
    assert json_of(c.get(f"/api/v1/games/{gid}"))["version"] == v
    # may undo to any version that ends a command (policy "host"), and nothing else
    undone = c.post(f"/api/v1/games/{gid}/undo", json={"to_version": v - 2}, headers=h(host))
    assert undone.status_code == 200 and json_of(undone)["version"] == v - 2
    assert all(
        "hands" not in e["data"] and "card" not in e["data"] for e in json_of(undone)["undone"]
    )
    # ...but not under the default policy, and not with its token on another game
    other = create(c)
    refused = c.post(
        f"/api/v1/games/{other['id']}/undo", json={"to_version": 2}, headers=h(other["host_token"])
    )
    assert (
        refused.status_code == 409
        and json_of(refused)["error"]["details"]["reason"] == "not_allowed"
    )
    assert c.get(f"/api/v1/games/{other['id']}/view", headers=h(host)).status_code == 401


def test_the_operator_reads_everything_and_cannot_act(env: Env) -> None:
    c, r = env
    g = create(c)
    gid = g["id"]
    v = json_of(c.get(f"/api/v1/games/{gid}"))["version"]
    admin = h(ADMIN_TOKEN)
    view = json_of(c.get(f"/api/v1/games/{gid}/view", headers=admin))
    assert "hands" in view["state"] and "pile_cards" in view["state"]
    audit = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=admin))
    assert audit["events"][0]["command"] == "create" and audit["chain_ok"]
    export = json_of(c.get(f"/api/v1/games/{gid}/export", headers=admin))
    assert hashlib.sha256(export["seed"].encode()).hexdigest() == export["seed_commitment"]
    body = {"action": {"type": "place_knight", "seat": 1}, "expected_version": v}
    for method, path, payload in (
        ("POST", "/actions", body), ("POST", "/undo", {}), ("POST", "/undo", {"to_version": 2}),
    ):  # fmt: skip
        resp = c.open(f"/api/v1/games/{gid}{path}", method=method, json=payload, headers=admin)
        assert resp.status_code == 403, resp.json
        assert json_of(resp)["error"]["details"]["reason"] == "not_a_player"
    assert json_of(c.get(f"/api/v1/games/{gid}"))["version"] == v
    # an import gets new tokens: the old ones mean nothing there
    imported = c.post("/api/v1/games/import", json=export, headers=h(ADMIN_TOKEN))
    assert imported.status_code == 201, imported.json
    new_id = json_of(imported)["id"]
    for old in (g["host_token"], *[s["token"] for s in g["seats"]]):
        assert c.get(f"/api/v1/games/{new_id}/view", headers=h(old)).status_code == 401
    assert everything_stored(r, new_id).count(json_of(imported)["host_token"]) == 0
