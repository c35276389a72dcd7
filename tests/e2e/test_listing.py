"""Unlisted means unlisted (issue #33): ``GET /games`` lists a table created without
``public`` only to a caller holding one of its seat tokens or its host token, and to the admin;
``total`` counts only what the caller may see; its link still lets anyone watch it.

The app runs on a Redis of this module's own, so that totals and orders are exact."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service import listing
from service.app import create_app
from service.auth import token_hash
from service.redis_server import RedisServer
from service.redis_store import PUBLIC, TOKENS, RedisEventStore
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import auth, refused

TWO = [{"name": "Ann"}, {"name": "Bob"}]
Env = tuple[FlaskClient, redis.Redis]  # the app's test client and its Redis


@pytest.fixture
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("listing"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def json_of(r: TestResponse) -> Any:
    """The answer's JSON body: every answer these tests read has one."""
    assert r.json is not None
    return r.json


def create(c: FlaskClient, players: list[dict[str, Any]] = TWO, **extra: Any) -> dict[str, Any]:
    r = c.post("/api/v1/games", json={"game": "artus", "players": players, **extra})
    assert r.status_code == 201, r.json
    return dict(json_of(r))


def listed(c: FlaskClient, token: str | None = None, **query: Any) -> tuple[list[str], int]:
    r = c.get("/api/v1/games", query_string={"per_page": 100, **query}, headers=auth(token))
    assert r.status_code == 200, r.json
    doc = json_of(r)
    return [g["id"] for g in doc["games"]], doc["total"]


def seat_token(created: dict[str, Any], seat: int = 0) -> str:
    return str(created["seats"][seat]["token"])


def test_an_unlisted_table_is_listed_to_its_seats_its_host_and_the_admin_only(env: Env) -> None:
    c, _ = env
    public = create(c, public=True)
    unlisted = create(c)
    other = create(c)
    everyone = [other["id"], unlisted["id"], public["id"]]  # newest first
    for query in ({}, {"game": "artus"}, {"status": "active"}):
        assert listed(c, **query) == ([public["id"]], 1), query
        assert listed(c, seat_token(other), **query) == ([other["id"], public["id"]], 2)
        mine = ([unlisted["id"], public["id"]], 2)
        assert listed(c, seat_token(unlisted, 0), **query) == mine
        assert listed(c, seat_token(unlisted, 1), **query) == mine
        assert listed(c, unlisted["host_token"], **query) == mine
        assert listed(c, ADMIN_TOKEN, **query) == (everyone, 3)
    # a token that stands for no game is a stranger's; a header of another scheme is refused
    assert listed(c, "not-a-token") == ([public["id"]], 1)
    r = c.get("/api/v1/games", headers={"Authorization": "Basic eDp5"})
    refused(r, 401, "unauthorized")
    # the link still lets anyone watch it
    assert c.get(f"/api/v1/games/{unlisted['id']}").status_code == 200
    view = c.get(f"/api/v1/games/{unlisted['id']}/view")
    assert view.status_code == 200 and json_of(view)["you"] is None


def test_pages_of_each_caller_are_slices_of_what_it_may_see(env: Env) -> None:
    c, _ = env
    made = [create(c, public=i % 3 != 1) for i in range(7)]  # unlisted: the 2nd and the 5th
    mine = made[4]
    everyone, _ = listed(c, ADMIN_TOKEN)
    assert everyone == [g["id"] for g in made[::-1]]
    seen = {g["id"] for i, g in enumerate(made) if i % 3 != 1} | {mine["id"]}
    expected = [g for g in everyone if g in seen]
    for token in (mine["host_token"], seat_token(mine)):
        for query in ({}, {"status": "active"}):
            for per_page in (1, 2, 3, 5):
                got: list[str] = []
                for page in range(1, 8):
                    ids, total = listed(c, token, page=page, per_page=per_page, **query)
                    assert total == len(expected)
                    got += ids
                assert got == expected, (per_page, query)
    stranger = [g for g in expected if g != mine["id"]]
    assert listed(c, page=2, per_page=2) == (stranger[2:4], len(stranger))


def test_a_seat_given_back_no_longer_lists_the_table(env: Env) -> None:
    c, r = env
    created = create(c, [{"name": "Host"}, {"open": True}, {"open": True}])  # still waits
    gid = created["id"]
    code = created["invitations"][0]["code"]
    joined = c.post(f"/api/v1/games/{gid}/join", json={"name": "Jo", "invitation": code})
    assert joined.status_code == 201, joined.json
    token = json_of(joined)["token"]
    assert listed(c, token) == ([gid], 1)
    assert c.post(f"/api/v1/games/{gid}/leave", headers=auth(token)).status_code == 200
    assert listed(c, token) == ([], 0)
    assert listed(c, created["host_token"]) == ([gid], 1)
    # a stale entry (a leave that died before unlisting the token) fails closed too
    store = RedisEventStore(r)
    store.index_tokens(gid, [token_hash(token)])
    assert listed(c, token) == ([], 0)


def test_games_stored_before_the_indexes_are_unlisted_until_the_backfill(env: Env) -> None:
    c, r = env
    public = create(c, public=True)
    unlisted = create(c)
    r.delete(PUBLIC, TOKENS)  # as a store written before this change
    assert listed(c) == ([], 0)
    assert listed(c, seat_token(unlisted)) == ([], 0)
    store = RedisEventStore(r)
    assert listing.backfill_once(store) == 2  # what a worker does at its start
    assert listed(c) == ([public["id"]], 1)
    assert listed(c, seat_token(unlisted)) == ([unlisted["id"], public["id"]], 2)
    r.delete(PUBLIC)
    assert listing.backfill_once(store) is None  # once, not at every start
    assert listed(c) == ([], 0)
