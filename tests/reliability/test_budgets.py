"""Budgets (issue 10): the embedded Redis has a memory budget with ``noeviction``; the service
answers 507 ``storage_full`` before it is reached (and when Redis itself refuses a write, never
500); creation and import have quotas per address and per token (429).  Nothing is stored by a
refused request.  Each test has a Redis of its own; apps run in process."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask

from service.app import create_app
from service.redis_server import RedisServer
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import auth, json_of, refused

PLAYERS = {"game": "artus", "players": [{"name": "a"}, {"name": "b"}]}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, redis.Redis]]:
    s = RedisServer(tmp_path / "redis", persistent=False)
    url = s.start()
    yield url, redis.Redis.from_url(url)
    s.stop()


def stored_games(r: redis.Redis) -> int:
    return len(list(r.scan_iter(match="{g:*}:meta")))


def app(monkeypatch: pytest.MonkeyPatch, url: str, **env: str) -> Flask:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return create_app(settings(url))


def test_the_embedded_redis_has_a_memory_budget_and_never_evicts(tmp_path: Path) -> None:
    default = RedisServer(tmp_path / "a", persistent=False)
    sized = RedisServer(tmp_path / "b", persistent=False, maxmemory="64mb")
    try:
        for server, expected in ((default, 1024**3), (sized, 64 * 1024**2)):
            r = redis.Redis.from_url(server.start())
            budget = r.config_get("maxmemory")["maxmemory"]
            assert budget is not None and int(budget) == expected
            assert r.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    finally:
        default.stop()
        sized.stop()


def test_creation_floods_and_padded_imports_hit_the_quotas(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    c = app(monkeypatch, url, CHRONICLE_CREATE_QUOTA="3/minute",
            CHRONICLE_IMPORT_QUOTA="2/minute").test_client()  # fmt: skip
    made = [c.post("/api/v1/games", json=PLAYERS) for _ in range(3)]
    assert [m.status_code for m in made] == [201, 201, 201]
    before = stored_games(r)
    for _ in range(5):  # the flood
        err = refused(c.post("/api/v1/games", json=PLAYERS), 429, "rate_limited")
        assert err["details"]["limit"] == "3 per 1 minute"
    assert stored_games(r) == before
    # another address is not limited by this one's quota ...
    other = {"REMOTE_ADDR": "127.0.0.2"}
    assert c.post("/api/v1/games", json=PLAYERS, environ_base=other).status_code == 201
    # ... but the same token from many addresses is (per token)
    for i in range(3, 6):
        addr = {"REMOTE_ADDR": f"127.0.1.{i}"}
        assert c.post("/api/v1/games", json=PLAYERS, headers=auth("tok"),
                      environ_base=addr).status_code == 201  # fmt: skip
    refused(c.post("/api/v1/games", json=PLAYERS, headers=auth("tok"),
                   environ_base={"REMOTE_ADDR": "127.0.1.9"}), 429, "rate_limited")  # fmt: skip
    # imports: two per minute, padded or not; the third is refused before it is read
    gid = json_of(made[0])["id"]
    export = json_of(c.get(f"/api/v1/games/{gid}/export", headers=auth(ADMIN_TOKEN)))
    ok = [c.post("/api/v1/games/import", json=export, headers=auth(ADMIN_TOKEN))
          for _ in range(2)]  # fmt: skip
    assert [o.status_code for o in ok] == [201, 201], [o.json for o in ok]
    padded = {**export, "undone": [{"by": "seat:0", "at": export["created_at"], "from_version": 9,
              "to_version": 8, "events": [{"pad": "x" * (4 << 20)}], "hash": ""}]}  # fmt: skip
    before, memory = stored_games(r), r.info("memory")["used_memory"]
    for _ in range(3):
        refused(c.post("/api/v1/games/import", data=json.dumps(padded),
                       headers={"Content-Type": "application/json", **auth(ADMIN_TOKEN)}),
                429, "rate_limited")  # fmt: skip
    assert stored_games(r) == before
    assert r.info("memory")["used_memory"] < memory + (1 << 20)


def _fill_to(r: redis.Redis, fraction: float) -> None:
    """Set the budget so that what Redis holds now is ``fraction`` of it."""
    used = int(r.info("memory")["used_memory"])
    r.config_set("maxmemory", int(used / fraction))


def test_507_storage_full_before_the_budget_is_reached(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    # marks far apart: what a small Redis holds moves by a few percent between two reads
    marks = {"CHRONICLE_STORAGE_HIGH_WATER": "0.5", "CHRONICLE_STORAGE_WRITE_MARK": "0.8"}
    c = app(monkeypatch, url, **marks).test_client()
    game = json_of(c.post("/api/v1/games", json=PLAYERS))
    export = json_of(c.get(f"/api/v1/games/{game['id']}/export", headers=auth(ADMIN_TOKEN)))
    _fill_to(r, 0.65)  # past the high-water mark, under the write mark
    time.sleep(1.1)  # the cached INFO is at most a second old
    before = stored_games(r)
    err = refused(c.post("/api/v1/games", json=PLAYERS), 507, "storage_full")
    assert err["details"]["mark"] == 0.5
    refused(c.post("/api/v1/games/import", json=export, headers=auth(ADMIN_TOKEN)), 507,
            "storage_full")  # fmt: skip
    assert stored_games(r) == before
    # a game under way can still be played ...
    tokens = {s["seat"]: s["token"] for s in game["seats"]}
    seat = json_of(c.get(f"/api/v1/games/{game['id']}"))["to_act"][0]
    listed = json_of(c.get(f"/api/v1/games/{game['id']}/actions", headers=auth(tokens[seat])))
    body: dict[str, Any] = {"action": listed["actions"][0], "expected_version": listed["version"]}
    path = f"/api/v1/games/{game['id']}/actions"
    assert c.post(path, json=body, headers=auth(tokens[seat])).status_code == 201
    # ... until the write mark
    _fill_to(r, 0.95)
    time.sleep(1.1)
    seat = json_of(c.get(f"/api/v1/games/{game['id']}"))["to_act"][0]
    listed = json_of(c.get(f"/api/v1/games/{game['id']}/actions", headers=auth(tokens[seat])))
    body = {"action": listed["actions"][0], "expected_version": listed["version"]}
    refused(c.post(path, json=body, headers=auth(tokens[seat])), 507, "storage_full")
    assert json_of(c.get(f"/api/v1/games/{game['id']}"))["version"] == listed["version"]
    for read in ("/api/v1/games", f"/api/v1/games/{game['id']}"):
        assert c.get(read).status_code == 200


def test_redis_refusing_a_write_is_507_never_500(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    # the service's own marks out of the way: Redis is the one to refuse
    c = app(monkeypatch, url, CHRONICLE_STORAGE_MAX_BYTES=str(10**15)).test_client()
    game = json_of(c.post("/api/v1/games", json=PLAYERS))
    tokens = {s["seat"]: s["token"] for s in game["seats"]}
    seat = json_of(c.get(f"/api/v1/games/{game['id']}"))["to_act"][0]
    listed = json_of(c.get(f"/api/v1/games/{game['id']}/actions", headers=auth(tokens[seat])))
    before = stored_games(r)
    r.config_set("maxmemory", 1)
    try:
        refused(c.post("/api/v1/games", json=PLAYERS), 507, "storage_full")
        body = {"action": listed["actions"][0], "expected_version": listed["version"]}
        path = f"/api/v1/games/{game['id']}/actions"
        refused(c.post(path, json=body, headers=auth(tokens[seat])), 507, "storage_full")
    finally:
        r.config_set("maxmemory", 0)
    assert stored_games(r) == before
    assert json_of(c.get(f"/api/v1/games/{game['id']}"))["version"] == listed["version"]
