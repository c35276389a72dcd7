"""Hostile input, beyond ``tests/e2e/test_bad_input.py``: every refusal is a clear 4xx in the
contract's shape, and nothing is appended (version, log, undo trail and idempotency records of
the game are unchanged).

The app runs in process on a Redis of this module's own, with no worker: a bot seat stays to
act until the test says otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.games import GAMES
from service.app import MAX_BODY, MAX_IMPORT_BODY, create_app
from service.http.limits import MAX_JSON_DEPTH
from service.redis_server import RedisServer
from service.redis_store import keys
from tests.conftest import ADMIN_TOKEN, settings

WRONG: dict[str, list[Any]] = {
    "int": ["1", 1.5, True, None, [1], {"a": 1}],
    "str": [1, True, None, ["x"], {"a": "b"}],
    "bool": [1, "true", None],
    "list[str]": ["a", [1], [None], {"a": "b"}, None],
    "list[int]": [1, ["1"], [True], None],
    "object": [1, "x", [1], {"a": "b"}, {"a": True}, None],
}


Env = tuple[FlaskClient, redis.Redis]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("hostile"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def new(
    c: FlaskClient, game: str = "artus", bots: tuple[str | None, ...] = (None, None)
) -> dict[str, Any]:
    players = [{"name": f"p{i}", **({"bot": b} if b else {})} for i, b in enumerate(bots)]
    r = c.post("/api/v1/games", json={"game": game, "players": players})
    assert r.status_code == 201, r.json
    created = json_of(r)
    created["tokens"] = {s["seat"]: s.get("token") for s in created["seats"]}
    return created


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def fingerprint(r: redis.Redis, gid: str) -> tuple:
    """Everything an append, an undo or an idempotent POST would change."""
    k = keys(gid)
    return (
        r.hget(k["meta"], "version"),
        r.hget(k["meta"], "head"),
        r.xlen(k["log"]),
        r.llen(k["undone"]),
        sorted(r.scan_iter(match=k["idem"] + "*")),
    )


def json_of(resp: TestResponse) -> dict[str, Any]:
    """The answer's JSON object, typed for indexing (every JSON answer of the API is one)."""
    doc = resp.get_json()
    assert isinstance(doc, dict), (resp.status_code, resp.get_data(as_text=True)[:300])
    return doc


def redis_bytes(value: bytes | str | None) -> bytes:
    """A value as the tests' Redis clients read it: they do not decode, so bytes (never None:
    a test reads back only what it has just written)."""
    assert isinstance(value, bytes), value
    return value


def refused(resp: TestResponse, status: int, code: str, field: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    doc = json_of(resp)
    err: dict[str, Any] = doc["error"]
    assert set(doc) == {"error"} and set(err) == {"code", "message", "details"}
    assert err["code"] == code and err["message"] and isinstance(err["details"], dict)
    if field is not None:
        assert field in err["details"], err
    return err


class Unchanged:
    def __init__(self, r: redis.Redis, *gids: str) -> None:
        self.r, self.gids = r, gids

    def __enter__(self) -> None:
        self.before = [fingerprint(self.r, g) for g in self.gids]

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            assert [fingerprint(self.r, g) for g in self.gids] == self.before, "something changed"


def post_raw(c: FlaskClient, path: str, data: bytes, token: str | None = None) -> TestResponse:
    return c.post(path, data=data, headers={"Content-Type": "application/json", **auth(token)})


def test_json_depth_and_body_size_limits(env: Env) -> None:
    c, r = env
    g = new(c)
    gid, seat = g["id"], json_of(c.get(f"/api/v1/games/{g['id']}"))["to_act"][0]
    token, v = g["tokens"][seat], g["version"]
    nest = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH  # inside the body's object: one too deep
    with Unchanged(r, gid):
        for path, body in (
            (f"/api/v1/games/{gid}/actions", '{"action": {"x": %s}, "expected_version": 1}'),
            (f"/api/v1/games/{gid}/undo", '{"to_version": %s}'),
            ("/api/v1/games", '{"game": "artus", "players": %s}'),
            ("/api/v1/games/import", '{"events": %s}'),
        ):
            caller = ADMIN_TOKEN if path.endswith("/import") else token  # who may import
            err = refused(post_raw(c, path, (body % nest).encode(), caller), 400, "bad_request")
            assert "nested too deeply" in err["message"] and "body" in err["details"]
        # strings that look like brackets do not count
        brackets = "[" * (MAX_JSON_DEPTH + 5)
        ok = {"action": {"type": "place_knight", "seat": brackets}, "expected_version": v}
        resp = post_raw(c, f"/api/v1/games/{gid}/actions", json.dumps(ok).encode(), token)
        refused(resp, 400, "bad_request", "action.seat")
        # sizes: 64 KiB for everything but imports, 16 MiB for imports
        pad = "x" * (MAX_BODY + 1)
        refused(post_raw(c, "/api/v1/games", json.dumps({"game": pad}).encode()), 413,
                "payload_too_large")  # fmt: skip
        refused(post_raw(c, f"/api/v1/games/{gid}/undo", json.dumps({"p": pad}).encode(), token),
                413, "payload_too_large")  # fmt: skip
        big = json.dumps({"events": "x" * (MAX_IMPORT_BODY + 1)}).encode()
        refused(post_raw(c, "/api/v1/games/import", big, ADMIN_TOKEN), 413, "payload_too_large")
        # a large import under the limit is read and refused on its merits
        large = json.dumps({"id": pad * 4}).encode()
        refused(post_raw(c, "/api/v1/games/import", large, ADMIN_TOKEN), 400, "bad_request")
        # but only for a caller who may import: anyone else is refused before it is read
        for caller in (None, token):
            refused(post_raw(c, "/api/v1/games/import", large, caller), 401, "unauthorized")


def test_unknown_games_seats_actions_and_fields(env: Env) -> None:
    c, r = env
    g = new(c)
    gid = g["id"]
    with Unchanged(r, gid):
        refused(
            c.post("/api/v1/games", json={"game": "chess", "players": [{"name": "a"}] * 2}),
            400, "bad_request", "game",
        )  # fmt: skip
        for method, path in (
            ("GET", ""), ("GET", "/view"), ("GET", "/actions"), ("GET", "/events"),
            ("GET", "/audit"), ("GET", "/export"), ("POST", "/actions"), ("POST", "/undo"),
        ):  # fmt: skip
            body = {"action": {"type": "x"}, "expected_version": 1} if path == "/actions" else {}
            resp = c.open(
                f"/api/v1/games/nope{path}", method=method, json=body if method == "POST" else None
            )
            refused(resp, 404, "not_found")
        refused(c.get("/api/v1/games/" + "g" * 1000), 404, "not_found")
        refused(c.get("/api/v1/games/import"), 405, "method_not_allowed")
        # an undo to a version the game never had is refused with the reason
        host = auth(g["host_token"])
        resp = c.post(f"/api/v1/games/{gid}/undo", json={"to_version": 10_000}, headers=host)
        refused(resp, 409, "undo_refused")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_unknown_actions_fields_and_wrong_types_of_every_game(env: Env, game_id: str) -> None:
    c, r = env
    game = GAMES[game_id]
    g = new(c, game_id, (None,) * game.min_players)
    gid = g["id"]
    s = json_of(c.get(f"/api/v1/games/{gid}"))
    seat, v = s["to_act"][0], s["version"]
    token = g["tokens"][seat]

    def act(action: Any) -> TestResponse:
        return c.post(
            f"/api/v1/games/{gid}/actions",
            json={"action": action, "expected_version": v},
            headers=auth(token),
        )

    with Unchanged(r, gid):
        refused(act({"type": "fly"}), 400, "bad_request", "action.type")
        refused(act({"seat": 1}), 400, "bad_request", "action.type")
        refused(act({"type": None}), 400, "bad_request", "action.type")
        for kind, fields in game.actions.items():
            base = {"type": kind}
            refused(act({**base, "unknown_field": 1}), 400, "bad_request", "action.unknown_field")
            for name, f in fields.items():
                if f.required:
                    refused(act(base), 400, "bad_request", f"action.{name}")
                for wrong in WRONG[f.kind]:
                    refused(act({**base, name: wrong}), 400, "bad_request", f"action.{name}")
        refused(act("place"), 400, "bad_request")
        refused(act([game_id]), 400, "bad_request")


def test_unicode_and_very_long_names_and_headers(env: Env) -> None:
    c, r = env
    ok = c.post(
        "/api/v1/games",
        json={"game": "artus", "players": [{"name": "🐉" * 64}, {"name": "نور ❤️"}]},
    )
    assert ok.status_code == 201
    made = json_of(ok)
    assert [s["name"] for s in made["seats"]] == ["🐉" * 64, "نور ❤️"]  # no U+200D: issue 33
    gid, token = made["id"], made["seats"][0]["token"]
    before = r.xlen(keys(gid)["log"])
    for name in ("🐉" * 65, "", "   ", "a\x00b", "line\nbreak", "tab\there", "esc\x1b[31m", "\x85"):
        refused(
            c.post("/api/v1/games", json={"game": "artus", "players": [{"name": name}] * 2}),
            400, "bad_request", "players.0.name",
        )  # fmt: skip
    with Unchanged(r, gid):
        body = {"action": {"type": "place_knight", "seat": 1}, "expected_version": before}
        path = f"/api/v1/games/{gid}/actions"
        refused(c.post(path, json=body, headers={**auth(token), "Idempotency-Key": "k" * 129}),
                400, "bad_request", "Idempotency-Key")  # fmt: skip
        refused(c.get(f"/api/v1/games/{gid}/view", headers=auth("t" * 7_000)), 401,
                "unauthorized")  # fmt: skip
        # headers over 8 KB in all: 431 in the JSON shape (service/http/edge.py)
        refused(c.get(f"/api/v1/games/{gid}/view", headers=auth("t" * 20_000)), 431,
                "headers_too_large")  # fmt: skip
        refused(c.get(f"/api/v1/games/{gid}/view", headers={"Authorization": "Bearer"}), 401,
                "unauthorized")  # fmt: skip
        refused(post_raw(c, path, b'{"action": {"type": "\xff\xfe"}}', token), 400, "bad_request")
        refused(post_raw(c, path, b'{"action": {"type": "\\ud800"}, "expected_version": 1}',
                         token), 400, "bad_request", "action.type")  # fmt: skip
        refused(post_raw(c, path, b"", token), 400, "bad_request")
        refused(post_raw(c, path, b"null", token), 400, "bad_request")


def test_a_seat_token_on_another_game_and_bot_seats(env: Env) -> None:
    c, r = env
    mine = new(c)
    theirs = new(c, "artus", (None, "random"))  # no worker here: the bot never moves
    gid = theirs["id"]
    s = json_of(c.get(f"/api/v1/games/{gid}"))
    assert s["to_act"] == [0] or s["to_act"] == [1]
    with Unchanged(r, gid, mine["id"]):
        for token in (*[t for t in mine["tokens"].values() if t], mine["host_token"]):
            for method, path in (
                ("GET", "/view"), ("GET", "/actions"), ("GET", "/events"), ("GET", "/audit"),
                ("GET", "/export"), ("POST", "/actions"), ("POST", "/undo"),
            ):  # fmt: skip
                body = {"action": {"type": "place_knight", "seat": 3}, "expected_version": 2}
                resp = c.open(
                    f"/api/v1/games/{gid}{path}",
                    method=method,
                    json=(body if path == "/actions" else {}) if method == "POST" else None,
                    headers=auth(token),
                )
                refused(resp, 401, "unauthorized")
        # the bot seat is to act (play the human's turn first if needed, outside the check)
    if s["to_act"] == [0]:
        listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=auth(theirs["tokens"][0])))
        body = {"action": listed["actions"][0], "expected_version": listed["version"]}
        assert c.post(f"/api/v1/games/{gid}/actions", json=body,
                      headers=auth(theirs["tokens"][0])).status_code == 201  # fmt: skip
    s = json_of(c.get(f"/api/v1/games/{gid}"))
    assert s["to_act"] == [1]
    listed = json_of(c.get(f"/api/v1/games/{gid}/actions", headers=auth(theirs["tokens"][0])))
    assert listed["actions"] == [], "a human is offered no action for the bot"
    action = {"type": "place_knight", "seat": 3}
    body = {"action": action, "expected_version": s["version"]}
    with Unchanged(r, gid):
        err = refused(
            c.post(f"/api/v1/games/{gid}/actions", json=body, headers=auth(theirs["tokens"][0])),
            403, "forbidden",
        )  # fmt: skip
        assert err["details"]["reason"] == "not_your_turn"
        for token in (theirs["host_token"], ADMIN_TOKEN, None):
            err = refused(
                c.post(f"/api/v1/games/{gid}/actions", json=body, headers=auth(token)),
                403, "forbidden",
            )  # fmt: skip
            assert err["details"]["reason"] == "not_a_player"


def test_lone_surrogates_and_nul_are_refused_400_at_the_edge(env: Env) -> None:
    """Issue 10: a name "\\ud800", a seed "\\udfff", an import id "\\ud800" answered 500."""
    c, r = env
    admin = auth(ADMIN_TOKEN)  # the games made here are unlisted: the admin counts them
    listed = json_of(c.get("/api/v1/games", headers=admin))["total"]
    creations = [
        b'{"game": "artus", "players": [{"name": "\\ud800"}, {"name": "b"}]}',
        b'{"game": "artus", "players": [{"name": "a"}, {"name": "b"}], "seed": "\\udfff"}',
        b'{"game": "artus", "players": [{"name": "a"}, {"name": "b"}], "seed": "a\\u0000b"}',
        b'{"game": "artus", "players": [{"name": "a"}, {"name": "b"}], '
        b'"options": {"\\udc00": "x"}}',
        # the raw UTF-8 form of a surrogate, not escaped: refused too
        b'{"game": "artus", "players": [{"name": "\xed\xa0\x80"}, {"name": "b"}]}',
    ]
    for raw in creations:
        refused(post_raw(c, "/api/v1/games", raw), 400, "bad_request")
    game = new(c, bots=(None, "random"))
    gid = game["id"]
    finished = new(c)  # an export of any game, as the operator sees it
    export = json_of(c.get(f"/api/v1/games/{finished['id']}/export", headers=auth(ADMIN_TOKEN)))
    raw_import = json.dumps({**export, "id": "\ud800"}).encode()
    assert b"\\ud800" in raw_import
    refused(post_raw(c, "/api/v1/games/import", raw_import, ADMIN_TOKEN), 400, "bad_request", "id")
    with Unchanged(r, gid):
        path = f"/api/v1/games/{gid}/actions"
        bad = b'{"action": {"type": "x", "card": "\\udfff"}, "expected_version": 1}'
        refused(post_raw(c, path, bad, game["tokens"][0]), 400, "bad_request")
        refused(c.get("/api/v1/games?game=a%00b"), 400, "bad_request")
    assert json_of(c.get("/api/v1/games", headers=admin))["total"] == listed + 2
    assert c.get("/api/v1/games").status_code == 200
