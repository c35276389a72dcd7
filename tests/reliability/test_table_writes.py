"""Issue 10's guards on the writes that tables added (join, leave, start, resign, abandon,
chat, webhooks): bad text is 400, table creation counts in the creation quota, a full store
is 507, ``If-Match`` is 412 for a head that moved, idempotency keys replay start and resign
(422 once an undo removed the answer), and a table game's export (table section, undo
trail, chat) imports again with both chains verified, while a tampered one is refused whole.

The app runs in process on a Redis of this module's own, with no worker."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import chat
from service.app import create_app
from service.redis_server import RedisServer
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import (
    Env,
    Unchanged,
    auth,
    json_of,
    post_raw,
    refused,
)

OPEN = {"open": True}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, redis.Redis]]:
    s = RedisServer(tmp_path / "redis", persistent=False)
    url = s.start()
    yield url, redis.Redis.from_url(url)
    s.stop()


def app(monkeypatch: pytest.MonkeyPatch, url: str, **env: str) -> Flask:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return create_app(settings(url))


def table(c: FlaskClient, players: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    r = c.post("/api/v1/games", json={"game": "artus", "players": players, **fields})
    assert r.status_code == 201, r.json
    return json_of(r)


def codes(created: dict[str, Any]) -> dict[int, str]:
    return {i["seat"]: i["code"] for i in created.get("invitations", [])}


def chat_lines(r: redis.Redis, gid: str) -> int:
    return int(r.xlen(chat.keys(gid)["chat"]))


def etag(c: FlaskClient, gid: str) -> str:
    return c.get(f"/api/v1/games/{gid}").headers["ETag"]


def test_bad_text_in_table_names_chat_and_webhooks_is_400(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    c = app(monkeypatch, url).test_client()
    for raw in (
        b'{"game": "artus", "players": [{"name": "\\ud800"}, {"open": true}], "public": true}',
        b'{"game": "artus", "players": [{"name": "a"}, {"open": true}], "turn_time": "P\\u0000D"}',
        b'{"game": "artus", "players": [{"name": "a"}, {"open": true}], "resign_bot": "\\udfff"}',
    ):
        refused(post_raw(c, "/api/v1/games", raw), 400, "bad_request")
    created = table(c, [{"name": "Ann"}, OPEN], public=True)
    gid, ann = created["id"], created["seats"][0]["token"]
    with Unchanged(r, gid):
        for name in (b'"\\ud800"', b'"B\\u0000b"'):
            body = b'{"name": %s}' % name
            refused(post_raw(c, f"/api/v1/games/{gid}/join", body), 400, "bad_request", "name")
        for body in (
            b'{"text": "hi \\ud800"}',
            b'{"text": "a\\u0000b"}',
            b'{"text": "hi", "name": "\\udc00"}',
            b'{"text": "hi", "room": "\\ud800"}',
        ):
            refused(post_raw(c, f"/api/v1/games/{gid}/chat", body, ann), 400, "bad_request")
        for body in (
            b'{"url": "https://example.org/\\ud800"}',
            b'{"url": "https://example.org/a\\u0000"}',
        ):
            refused(post_raw(c, f"/api/v1/games/{gid}/webhook", body, ann), 400, "bad_request")
        refused(
            post_raw(
                c, f"/api/v1/games/{gid}/start", b'{"fill": "\\ud800"}', created["host_token"]
            ),
            400,
            "bad_request",
        )
    assert chat_lines(r, gid) == 0
    assert json_of(c.get(f"/api/v1/games/{gid}"))["seats"][1] == {"seat": 1, "open": True}


def test_table_creation_counts_in_the_creation_quota(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    c = app(monkeypatch, url, CHRONICLE_CREATE_QUOTA="2/minute").test_client()
    table(c, [{"name": "a"}, {"name": "b"}])
    table(c, [{"name": "a"}, OPEN], public=True)
    before = len(list(r.scan_iter(match="{g:*}:meta")))
    for body in (
        {"players": [{"name": "a"}, OPEN], "public": True},
        {"players": [OPEN, OPEN]},
        {"players": [{"name": "a"}, {"name": "b"}]},
    ):
        refused(c.post("/api/v1/games", json={"game": "artus", **body}), 429, "rate_limited")
    assert len(list(r.scan_iter(match="{g:*}:meta"))) == before


def _fill_to(r: redis.Redis, fraction: float) -> None:
    r.config_set("maxmemory", int(int(r.info("memory")["used_memory"]) / fraction))
    time.sleep(1.1)  # the cached INFO is at most a second old


def test_a_full_store_refuses_joins_table_commands_chat_and_webhooks_507(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    marks = {"CHRONICLE_STORAGE_HIGH_WATER": "0.5", "CHRONICLE_STORAGE_WRITE_MARK": "0.8"}
    c = app(monkeypatch, url, **marks).test_client()
    waiting = table(c, [{"name": "Ann"}, OPEN, OPEN])
    gid, host, ann = waiting["id"], waiting["host_token"], waiting["seats"][0]["token"]
    playing = table(c, [{"name": "Cid"}, {"name": "Dee"}], turn_time="PT1H")
    pid, cid = playing["id"], playing["seats"][0]["token"]
    _fill_to(r, 0.65)  # past the high-water mark, under the write mark: games go on
    joined = c.post(
        f"/api/v1/games/{gid}/join", json={"name": "Bob", "invitation": codes(waiting)[1]}
    )
    assert joined.status_code == 201, joined.json
    assert (
        c.post(f"/api/v1/games/{gid}/chat", json={"text": "hi"}, headers=auth(ann)).status_code
        == 201
    )
    _fill_to(r, 0.95)
    lines = chat_lines(r, gid)
    with Unchanged(r, gid, pid):
        join = {"name": "Eve", "invitation": codes(waiting)[2]}
        refused(c.post(f"/api/v1/games/{gid}/join", json=join), 507, "storage_full")
        refused(
            c.post(f"/api/v1/games/{gid}/leave", json={}, headers=auth(json_of(joined)["token"])),
            507,
            "storage_full",
        )
        refused(
            c.post(f"/api/v1/games/{gid}/start", json={}, headers=auth(host)), 507, "storage_full"
        )
        refused(
            c.post(f"/api/v1/games/{pid}/resign", json={}, headers=auth(cid)), 507, "storage_full"
        )
        refused(
            c.post(f"/api/v1/games/{pid}/abandon", json={}, headers=auth(playing["host_token"])),
            507,
            "storage_full",
        )
        for body, token in (({"text": "still here?"}, ann), ({"text": "go", "name": "Fan"}, None)):
            refused(
                c.post(f"/api/v1/games/{gid}/chat", json=body, headers=auth(token)),
                507,
                "storage_full",
            )
        refused(
            c.put(
                f"/api/v1/games/{pid}/webhook",
                json={"url": "https://example.org/h"},
                headers=auth(cid),
            ),
            507,
            "storage_full",
        )
    assert chat_lines(r, gid) == lines
    assert c.get(f"/api/v1/games/{gid}/chat", headers=auth(ann)).status_code == 200
    r.config_set("maxmemory", 0)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("table-writes"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def test_if_match_guards_join_leave_start_resign_and_abandon_412(env: Env) -> None:
    c, r = env
    created = table(c, [{"name": "Ann"}, OPEN, OPEN])
    gid, host, invitations = created["id"], created["host_token"], codes(created)
    stale = etag(c, gid)
    bob = c.post(
        f"/api/v1/games/{gid}/join",
        json={"name": "Bob", "invitation": invitations[1]},
        headers={"If-Match": stale},
    )
    assert bob.status_code == 201, bob.json  # the head it named was the current one
    with Unchanged(r, gid):
        join = {"name": "Cid", "invitation": invitations[2]}
        err = refused(
            c.post(f"/api/v1/games/{gid}/join", json=join, headers={"If-Match": stale}),
            412,
            "precondition_failed",
        )
        assert err["details"]["current_etag"] == etag(c, gid)
        for path, token in (("leave", json_of(bob)["token"]), ("start", host)):
            refused(
                c.post(
                    f"/api/v1/games/{gid}/{path}",
                    json={},
                    headers={**auth(token), "If-Match": stale},
                ),
                412,
                "precondition_failed",
            )
    now = etag(c, gid)
    started = c.post(f"/api/v1/games/{gid}/start", json={}, headers={**auth(host), "If-Match": now})
    assert started.status_code == 200, started.json
    with Unchanged(r, gid):
        for path, token in (("resign", created["seats"][0]["token"]), ("abandon", host)):
            refused(
                c.post(
                    f"/api/v1/games/{gid}/{path}", json={}, headers={**auth(token), "If-Match": now}
                ),
                412,
                "precondition_failed",
            )
    spec = json_of(c.get("/api/v1/openapi.json"))["paths"]
    for op in ("join", "leave", "start", "resign", "abandon"):
        doc = spec[f"/api/v1/games/{{game_id}}/{op}"]["post"]
        names = {p["name"] for p in doc.get("parameters", [])}
        assert "If-Match" in names and {"412", "507"} <= set(doc["responses"]), op
        assert ("Idempotency-Key" in names) == (op in ("start", "resign", "abandon")), op


def test_idempotency_keys_replay_start_and_resign(env: Env) -> None:
    c, r = env
    created = table(c, [{"name": "Ann"}, OPEN])
    gid, host = created["id"], created["host_token"]
    first = c.post(
        f"/api/v1/games/{gid}/start",
        json={"fill": "random"},
        headers={**auth(host), "Idempotency-Key": "s1"},
    )
    assert first.status_code == 200, first.json
    with Unchanged(r, gid):
        again = c.post(
            f"/api/v1/games/{gid}/start",
            json={"fill": "random"},
            headers={**auth(host), "Idempotency-Key": "s1"},
        )
        assert again.status_code == 200 and again.json == first.json
    # a game of two people: a move, a resignation by key, a retry, an undo by the host
    created = table(
        c, [{"name": "Ann"}, {"name": "Bob"}], turn_time="PT1H", options={"undo": "host"}
    )
    gid, host = created["id"], created["host_token"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    seat = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=auth(tokens[seat])))
    moved = c.post(
        f"/api/v1/games/{gid}/actions",
        headers=auth(tokens[seat]),
        json={"action": listed["actions"][0], "expected_version": listed["version"]},
    )
    assert moved.status_code == 201, moved.json
    quitter = 1 - seat
    resign = {**auth(tokens[quitter]), "Idempotency-Key": "r1"}
    done = c.post(f"/api/v1/games/{gid}/resign", json={}, headers=resign)
    assert (
        done.status_code == 200
        and json_of(done)["version"] == json_of(c.get(f"/api/v1/games/{gid}"))["version"]
    )
    with Unchanged(r, gid):
        replayed = c.post(f"/api/v1/games/{gid}/resign", json={}, headers=resign)
        assert replayed.status_code == 200 and replayed.json == done.json
    # every table event is an undo barrier (domain/table.py): the answer stays in the log,
    # so the key keeps replaying it (an undone answer would be 422, as for actions)
    undo = c.post(
        f"/api/v1/games/{gid}/undo",
        json={"to_version": json_of(moved)["version"]},
        headers=auth(host),
    )
    refused(undo, 409, "undo_refused")
    with Unchanged(r, gid):
        replayed = c.post(f"/api/v1/games/{gid}/resign", json={}, headers=resign)
        assert replayed.status_code == 200 and replayed.json == done.json
    # a key is the caller's and the command's: the same key resigns the other seat afresh
    other = c.post(
        f"/api/v1/games/{gid}/resign",
        json={},
        headers={**auth(tokens[seat]), "Idempotency-Key": "r1"},
    )
    assert other.status_code == 200 and json_of(other)["seat"] == seat


def _table_game_with_a_trail_and_chat(c: FlaskClient) -> tuple[str, dict[str, Any]]:
    """A public table joined, played, undone, talked in, hidden in and abandoned."""
    created = table(c, [{"name": "Ann"}, OPEN], public=True, turn_time="PT1H")
    gid, host = created["id"], created["host_token"]
    bob = json_of(c.post(f"/api/v1/games/{gid}/join", json={"name": "Bob"}))
    tokens = {0: created["seats"][0]["token"], 1: bob["token"]}
    for _ in range(3):
        seat = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
        listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=auth(tokens[seat])))
        r = c.post(
            f"/api/v1/games/{gid}/actions",
            headers=auth(tokens[seat]),
            json={"action": listed["actions"][-1], "expected_version": listed["version"]},
        )
        assert r.status_code == 201, r.json
        if _ == 1:
            assert (
                c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[seat])).status_code
                == 200
            )
    for body, token in (({"text": "gl\nhf"}, tokens[0]), ({"text": "boo", "name": "Fan"}, None)):
        assert (
            c.post(f"/api/v1/games/{gid}/chat", json=body, headers=auth(token)).status_code == 201
        )
    assert (
        c.post(f"/api/v1/games/{gid}/chat/2/hide", json={}, headers=auth(host)).status_code == 200
    )
    assert c.post(f"/api/v1/games/{gid}/abandon", json={}, headers=auth(host)).status_code == 200
    return gid, json_of(c.get(f"/api/v1/games/{gid}/export", headers=auth(ADMIN_TOKEN)))


def test_a_table_game_with_its_undo_trail_and_chat_round_trips_through_import(env: Env) -> None:
    c, _ = env
    gid, export = _table_game_with_a_trail_and_chat(c)
    assert export["table"] and export["undone"] and len(export["chat"]) == 2
    assert export["chat"][1]["hidden_by"]["by"] == "host"
    imported = c.post("/api/v1/games/import", json=export, headers=auth(ADMIN_TOKEN))
    assert imported.status_code == 201, imported.json
    new = json_of(imported)["id"]
    assert new != gid and json_of(c.get(f"/api/v1/games/{new}"))["seats"][1]["name"] == "Bob"
    lines = json_of(c.get(f"/api/v1/games/{new}/chat"))["lines"]  # over: both rooms for everyone
    assert [x.get("text") for x in lines] == ["gl\nhf", None] and lines[1]["hidden"]
    audit = json_of(c.get(f"/api/v1/games/{new}/audit", headers=auth(ADMIN_TOKEN)))
    assert audit["chain_ok"] and audit["undo_chain_ok"], audit
    assert "undo_trail" in audit["imported"]["verified"]
    again = json_of(c.get(f"/api/v1/games/{new}/export", headers=auth(ADMIN_TOKEN)))
    for field in ("table", "events", "undone", "chat", "head_hash", "seed", "players"):
        assert again[field] == export[field], field
    assert again["id"] == new and json_of(c.get(f"/api/v1/games/{new}"))["status"] == "abandoned"
    # and the re-export imports again (export -> import -> export -> import)
    assert c.post("/api/v1/games/import", json=again, headers=auth(ADMIN_TOKEN)).status_code == 201


def test_a_tampered_table_export_is_refused_whole(env: Env) -> None:
    c, r = env
    _, export = _table_game_with_a_trail_and_chat(c)
    games = len(list(r.scan_iter(match="{g:*}:meta")))

    def spoiled(change: Any) -> dict[str, Any]:
        doc = json.loads(json.dumps(export))
        change(doc)
        return doc

    line = export["chat"][0]
    for doc, field in (
        (spoiled(lambda d: d["chat"][0].update(room="host")), "chat.0"),
        (spoiled(lambda d: d["chat"][0].update(seat=7)), "chat.0"),
        (spoiled(lambda d: d["chat"][0].update(text="\x07ding")), "chat.0.text"),
        (spoiled(lambda d: d["chat"][0].update(text="x" * 501)), "chat.0.text"),
        (spoiled(lambda d: d["chat"][0].update(at="9999-12-31T23:59:59.999-14:00")), "chat.0.at"),
        (spoiled(lambda d: d["chat"].append({**line, "id": 1})), "chat.2"),
        (spoiled(lambda d: d["chat"][0].update(extra=1)), "chat.0"),
        (spoiled(lambda d: d["chat"][1]["hidden_by"].update(by="seat:0")), "chat.1"),
        (spoiled(lambda d: d["undone"][0].update(by="host")), "undone.0.hash"),
        (spoiled(lambda d: d["undone"][0].update(hash="0" * 64)), "undone.0.hash"),
    ):
        err = refused(
            c.post("/api/v1/games/import", json=doc, headers=auth(ADMIN_TOKEN)),
            422,
            "illegal_action",
        )
        assert err["details"].get("field") == field, (field, err)
    assert len(list(r.scan_iter(match="{g:*}:meta"))) == games
