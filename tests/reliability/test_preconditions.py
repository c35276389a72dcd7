"""Exact preconditions (issue 10): the ``ETag`` of the log head on summary, view and actions;
``If-Match`` on acting and undoing (412 ``precondition_failed`` for a head that moved, while a
stale ``expected_version`` stays 409); an ``Idempotency-Key`` bound to the log it answered.

The app runs in process on a Redis of this module's own (no worker; a human-only game)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.app import create_app
from service.redis_server import RedisServer
from tests.conftest import settings
from tests.reliability.test_hostile_input import Env, Unchanged, auth, json_of, refused


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("preconditions"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def placing_game(c: FlaskClient) -> tuple[str, dict[int, str]]:
    r = c.post("/api/v1/games", json={"game": "artus", "players": [{"name": "A"}, {"name": "B"}]})
    assert r.status_code == 201, r.json
    made = json_of(r)
    return made["id"], {s["seat"]: s["token"] for s in made["seats"]}


def legal(c: FlaskClient, gid: str, token: str) -> dict[str, Any]:
    r = c.get(f"/api/v1/games/{gid}/actions", headers=auth(token))
    assert r.status_code == 200
    return json_of(r)


def act(
    c: FlaskClient, gid: str, token: str, action: dict[str, Any], version: int, **headers: str
) -> TestResponse:
    return c.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": action, "expected_version": version},
        headers={**auth(token), **{k.replace("_", "-"): v for k, v in headers.items()}},
    )


def test_etag_names_the_head_on_summary_view_and_actions(env: Env) -> None:
    c, _ = env
    gid, tokens = placing_game(c)
    tags = {
        c.get(f"/api/v1/games/{gid}").headers.get("ETag"),
        c.get(f"/api/v1/games/{gid}/view", headers=auth(tokens[0])).headers.get("ETag"),
        c.get(f"/api/v1/games/{gid}/actions", headers=auth(tokens[1])).headers.get("ETag"),
    }
    [tag] = tags
    version = json_of(c.get(f"/api/v1/games/{gid}"))["version"]
    assert tag is not None and tag.startswith(f'"v{version}-') and tag.endswith('"')
    seat = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    assert act(c, gid, tokens[seat], legal(c, gid, tokens[seat])["actions"][0], version,
               If_Match=tag).status_code == 201  # fmt: skip
    assert c.get(f"/api/v1/games/{gid}").headers["ETag"] != tag
    spec = json_of(c.get("/api/v1/openapi.json"))
    act_op = spec["paths"]["/api/v1/games/{game_id}/actions"]["post"]
    assert "If-Match" in {p["name"] for p in act_op["parameters"]} and "412" in act_op["responses"]
    undo_op = spec["paths"]["/api/v1/games/{game_id}/undo"]["post"]
    assert "If-Match" in {p["name"] for p in undo_op["parameters"]}
    summary = spec["paths"]["/api/v1/games/{game_id}"]["get"]["responses"]["200"]
    assert "ETag" in summary["headers"]


def test_a_move_against_a_board_that_was_undone_and_replayed_is_412(env: Env) -> None:
    """Seat B places (v3), A reads it, B undoes and places elsewhere (v3 again): A's move,
    chosen against the first board, is refused by its If-Match though the version matches."""
    c, r = env
    gid, tokens = placing_game(c)
    b = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    a = 1 - b
    start = legal(c, gid, tokens[b])
    assert act(c, gid, tokens[b], start["actions"][0], start["version"]).status_code == 201
    seen = c.get(f"/api/v1/games/{gid}/view", headers=auth(tokens[a]))
    seen_version, seen_tag = json_of(seen)["version"], seen.headers["ETag"]
    a_move = legal(c, gid, tokens[a])["actions"][0]
    assert c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[b])).status_code == 200
    assert act(c, gid, tokens[b], start["actions"][1], start["version"]).status_code == 201
    assert json_of(c.get(f"/api/v1/games/{gid}"))["version"] == seen_version  # v3 again
    with Unchanged(r, gid):
        err = refused(act(c, gid, tokens[a], a_move, seen_version, If_Match=seen_tag), 412,
                      "precondition_failed")  # fmt: skip
        assert err["details"]["current_etag"] == c.get(f"/api/v1/games/{gid}").headers["ETag"]
        # a stale expected_version stays 409, whatever If-Match says
        refused(act(c, gid, tokens[a], a_move, seen_version - 1, If_Match=seen_tag), 409,
                "version_conflict")  # fmt: skip
        # undo is guarded the same way
        refused(c.post(f"/api/v1/games/{gid}/undo", json={},
                       headers={**auth(tokens[b]), "If-Match": seen_tag}), 412,
                "precondition_failed")  # fmt: skip
    fresh = c.get(f"/api/v1/games/{gid}/actions", headers=auth(tokens[a]))
    move = json_of(fresh)["actions"][0]
    ok = act(c, gid, tokens[a], move, seen_version, If_Match=fresh.headers["ETag"])
    assert ok.status_code == 201, ok.json


def test_an_idempotency_key_reused_after_an_undo_reports_no_version_not_in_the_log(
    env: Env,
) -> None:
    c, r = env
    gid, tokens = placing_game(c)
    b = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    start = legal(c, gid, tokens[b])
    first = act(c, gid, tokens[b], start["actions"][0], start["version"], Idempotency_Key="k1")
    assert first.status_code == 201
    # a retry while the log holds it replays the first answer exactly
    again = act(c, gid, tokens[b], start["actions"][0], start["version"], Idempotency_Key="k1")
    assert again.status_code == 201 and again.json == first.json
    assert c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[b])).status_code == 200
    with Unchanged(r, gid):
        reused = act(c, gid, tokens[b], start["actions"][1], start["version"], Idempotency_Key="k1")
        assert (
            reused.status_code != 201
            or json_of(reused)["version"] == json_of(c.get(f"/api/v1/games/{gid}"))["version"]
        ), (reused.status_code, reused.json)
        refused(reused, 422, "idempotency_key_reused")
    assert json_of(c.get(f"/api/v1/games/{gid}"))["version"] == start["version"]
