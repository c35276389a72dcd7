"""Rate limits per token and per address (counters in the service's Redis, one script call):
429 ``rate_limited`` in the contract's shape, nothing appended, no raw token in Redis."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.app import create_app
from service.http import limits
from service.redis_server import RedisServer, free_port
from tests.conftest import settings
from tests.reliability.test_hostile_input import json_of


@pytest.fixture(params=["tcp", "unix"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A Redis of this test's own, reached by a ``redis://`` or a ``unix://`` URL."""
    port = free_port() if request.param == "tcp" else None
    server = RedisServer(tmp_path / "redis", port=port, persistent=False)
    yield server.start()
    server.stop()


def app_with(monkeypatch: pytest.MonkeyPatch, url: str, token: str, address: str) -> Flask:
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT", token)
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", address)
    return create_app(settings(url))


def new_game(c: FlaskClient) -> tuple[str, list[str], str]:
    r = c.post("/api/v1/games", json={"game": "artus", "players": [{"name": "a"}, {"name": "b"}]})
    assert r.status_code == 201, r.json
    body = json_of(r)
    return body["id"], [s["token"] for s in body["seats"]], body["host_token"]


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def assert_limited(r: TestResponse, limit: str) -> None:
    assert r.status_code == 429, r.json
    err = json_of(r)["error"]
    assert err["code"] == "rate_limited" and "rate limit" in err["message"]
    assert err["details"]["limit"] == limit and err["details"]["retry_after"] > 0
    assert int(r.headers["Retry-After"]) == err["details"]["retry_after"]


def test_per_token_limit(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    app = app_with(monkeypatch, url, "6/minute", "off")
    c = app.test_client()
    gid, tokens, _ = new_game(c)  # no token: only the address limit (off) counts
    version = json_of(c.get(f"/api/v1/games/{gid}"))["version"]
    seat = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    for _ in range(6):
        assert c.get(f"/api/v1/games/{gid}/view", headers=auth(tokens[seat])).status_code == 200
    assert_limited(c.get(f"/api/v1/games/{gid}/view", headers=auth(tokens[seat])), "6 per 1 minute")
    # a write over the limit is refused before anything is read or appended
    body = {"action": {"type": "place_knight", "seat": 27}, "expected_version": version}
    assert_limited(
        c.post(f"/api/v1/games/{gid}/actions", json=body, headers=auth(tokens[seat])),
        "6 per 1 minute",
    )
    assert json_of(c.get(f"/api/v1/games/{gid}"))["version"] == version
    # other tokens and spectators are not affected; a made-up token has its own counter
    assert c.get(f"/api/v1/games/{gid}/view", headers=auth(tokens[1 - seat])).status_code == 200
    for _ in range(10):
        assert c.get(f"/api/v1/games/{gid}/view").status_code == 200
    assert c.get(f"/api/v1/games/{gid}/view", headers=auth("made-up")).status_code == 401

    # the counters' keys hold a hash of the token, never the token
    r = redis.Redis.from_url(url)
    keys = [k.decode() for k in r.scan_iter(count=1000)]
    limiter_keys = [k for k in keys if k.startswith("chronicle-rl")]
    assert limiter_keys, keys
    dumped = " ".join(keys) + " ".join(str(r.dump(k)) for k in limiter_keys)
    for token in tokens:
        assert token not in dumped
        assert hashlib.sha256(token.encode()).hexdigest() not in dumped


def test_per_address_limit(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    app = app_with(monkeypatch, url, "off", "8/minute")
    c = app.test_client()
    gid, tokens, _ = new_game(c)  # 1
    for i in range(7):  # 2..8, with and without tokens: all count for the address
        assert c.get(f"/api/v1/games/{gid}", headers=auth(tokens[i % 2])).status_code == 200
    assert_limited(c.get(f"/api/v1/games/{gid}"), "8 per 1 minute")
    assert_limited(c.get(f"/api/v1/games/{gid}", headers=auth(tokens[0])), "8 per 1 minute")
    # another address is counted apart (the test client sets REMOTE_ADDR; nothing is sent)
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert other.get(f"/api/v1/games/{gid}").status_code == 200
    # only health and readiness are never limited: the documents the API serves count too
    for path in ("/healthz", "/readyz"):
        assert c.get(path).status_code == 200, path
    for path in ("/api/v1/openapi.json", "/api/v1/docs", "/api/v1/docs/contract", "/metrics"):
        assert_limited(c.get(path), "8 per 1 minute")


def test_limits_can_be_turned_off_and_are_checked(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    c = app_with(monkeypatch, url, "off", "off").test_client()
    gid, tokens, _ = new_game(c)
    for _ in range(50):
        assert c.get(f"/api/v1/games/{gid}", headers=auth(tokens[0])).status_code == 200
    with pytest.raises(RuntimeError, match="CHRONICLE_RATE_LIMIT"):
        app_with(monkeypatch, url, "lots", "off")


def test_an_app_from_the_environment_is_limited_by_default(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    assert limits.configured({}) == (limits.DEFAULT_TOKEN_LIMIT, limits.DEFAULT_ADDRESS_LIMIT)
    assert limits.configured({}, defaults=False) == (None, None)
    monkeypatch.delenv("CHRONICLE_RATE_LIMIT", raising=False)
    monkeypatch.delenv("CHRONICLE_RATE_LIMIT_ADDRESS", raising=False)
    monkeypatch.setenv("REDIS_URL", url)
    c = create_app().test_client()  # as gunicorn builds it
    gid, tokens, _ = new_game(c)
    codes = [c.get(f"/api/v1/games/{gid}", headers=auth(tokens[0])).status_code for _ in range(40)]
    assert 429 in codes and codes[0] == 200  # 20/second per token


def test_every_counter_of_a_request_costs_one_round_trip(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    """Two limits of two windows each: four counters, one script call (flask-limiter made
    one round trip per window)."""
    c = app_with(monkeypatch, url, "100/second;1000/minute", "100/second;1000/minute").test_client()
    _, tokens, _ = new_game(c)
    r = redis.Redis.from_url(url)

    def calls() -> tuple[int, int]:
        stats = r.info("commandstats")
        return tuple(stats.get(f"cmdstat_{c}", {}).get("calls", 0) for c in ("evalsha", "incr"))

    before = calls()
    assert c.get("/api/v1/catalog", headers=auth(tokens[0])).status_code == 200
    after = calls()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 4)
