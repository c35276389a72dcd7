"""What operators rely on, through HTTP: request ids, /metrics (requests by route and status,
appends, conflicts, refused undos), CORS by configuration, and trusted proxies for the
per-address rate limit.  (Multi-process metrics and the JSON log lines of real gunicorn and
worker processes: tests/reliability/test_observability.py.)"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
import time
from typing import Any

import pytest

from service import logs, metrics
from service.app import create_app
from service.http import middleware
from tests.conftest import settings
from tests.support.client import Client
from tests.support.metrics import scrape, value
from tests.support.play import new_game

HEX_ID = re.compile(r"[0-9a-f]{32}")


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The fields of a log line (``extra={"fields": ...}``), which ``LogRecord`` does not type."""
    return dict(vars(record)["fields"])


def test_request_ids_are_honoured_when_sane_and_made_otherwise(api: Client) -> None:
    sent = {"X-Request-ID": "trace-42.a:b_c"}
    r = api.http.get(f"{api.base}/api/v1/catalog", headers=sent, timeout=10)
    assert r.headers["X-Request-ID"] == "trace-42.a:b_c"
    for bad in ("", "has space", "x" * 129, "semi;colon", "ünï"):
        r = api.http.get(f"{api.base}/api/v1/games/nope", headers={"X-Request-ID": bad}, timeout=10)
        assert r.status_code == 404
        assert HEX_ID.fullmatch(r.headers["X-Request-ID"]), (bad, r.headers["X-Request-ID"])
    a, b = (api.get("/healthz").headers["X-Request-ID"] for _ in range(2))
    assert HEX_ID.fullmatch(a) and a != b


def test_metrics_count_requests_appends_conflicts_and_refused_undos(api: Client) -> None:
    before = scrape(api.base)
    for _ in range(3):
        assert api.get("/api/v1/catalog").status_code == 200
    gid, tokens = new_game(api, "artus", {"rules": "basic", "undo": "none"}, 2)
    summary = api.summary(gid)
    seat = summary["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    assert api.act(gid, tokens[seat], listed["actions"][0], listed["version"]).status_code == 201
    stale = api.act(gid, tokens[1 - seat], listed["actions"][0], listed["version"])
    assert stale.status_code == 409
    undo = api.post(f"/api/v1/games/{gid}/undo", {}, tokens[seat])
    assert undo.status_code == 409 and undo.json()["error"]["details"]["reason"] == "undo_disabled"
    after = scrape(api.base)

    def delta(sample: str, **labels: str) -> float:
        return value(after, sample, **labels) - value(before, sample, **labels)

    route = "/api/v1/catalog"
    assert delta("chronicle_http_requests_total", route=route, status="200", method="GET") == 3
    assert delta("chronicle_http_request_duration_seconds_count", route=route) == 3
    acts = "/api/v1/games/<game_id:game_id>/actions"
    assert delta("chronicle_http_requests_total", route=acts, method="POST", status="201") == 1
    assert delta("chronicle_http_requests_total", route=acts, method="POST", status="409") == 1
    assert delta("chronicle_appends_total") == 2  # the creation and the action
    assert delta("chronicle_events_appended_total") >= 2
    assert delta("chronicle_conflicts_total") == 1
    assert delta("chronicle_undo_refused_total", reason="undo_disabled") == 1
    assert "chronicle_queue_depth" in after and "chronicle_live_watchers" in after
    assert gid not in after and not any(t in after for t in tokens.values())


def test_live_watchers_is_a_gauge_others_can_hold(inprocess_api: Client) -> None:
    api = inprocess_api
    start = value(scrape(api.base), "chronicle_live_watchers")
    with metrics.watching(), metrics.watching():
        assert value(scrape(api.base), "chronicle_live_watchers") == start + 2
    assert value(scrape(api.base), "chronicle_live_watchers") == start


def test_a_waiting_long_poll_is_a_live_watcher(api: Client) -> None:
    gid, _ = new_game(api, "artus", {"rules": "basic"}, 2)
    version = api.summary(gid)["version"]
    start = value(scrape(api.base), "chronicle_live_watchers")
    poll = threading.Thread(
        target=lambda: api.get(f"/api/v1/games/{gid}/events", after=version, wait=3)
    )
    poll.start()
    try:
        deadline = time.monotonic() + 2.5
        while value(scrape(api.base), "chronicle_live_watchers") != start + 1:
            assert time.monotonic() < deadline, "the long-poll was never counted"
            time.sleep(0.05)
    finally:
        poll.join(10)
    assert value(scrape(api.base), "chronicle_live_watchers") == start


def test_request_log_lines_name_the_request_and_no_secret(
    inprocess_api: Client, caplog: pytest.LogCaptureFixture
) -> None:
    api = inprocess_api
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    caplog.set_level(logging.INFO, logger="chronicle.request")
    r = api.http.get(
        f"{api.base}/api/v1/games/{gid}/view?version=1",
        headers={"Authorization": f"Bearer {tokens[0]}", "X-Request-ID": "look-for-me"},
        timeout=10,
    )
    assert r.status_code == 200
    formatter = logs.JsonFormatter()
    records = [rec for rec in caplog.records if rec.name == "chronicle.request"]
    [mine] = [rec for rec in records if fields_of(rec)["path"].endswith(f"{gid}/view")]
    assert fields_of(mine) == {
        "request_id": "look-for-me",
        "method": "GET",
        "route": "/api/v1/games/<game_id:game_id>/view",
        "path": f"/api/v1/games/{gid}/view",
        "status": 200,
        "duration_ms": fields_of(mine)["duration_ms"],
        "client": "127.0.0.1",
    }
    line = formatter.format(mine)
    assert tokens[0] not in line and "version=1" not in line
    doc = json.loads(line)
    assert list(doc)[:5] == ["ts", "level", "logger", "message", "request_id"]
    assert doc["request_id"] == "look-for-me" and doc["message"] == "request"


def test_cors_is_off_by_default(api: Client) -> None:
    r = api.http.options(
        f"{api.base}/api/v1/games",
        headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
        timeout=10,
    )
    assert "Access-Control-Allow-Origin" not in r.headers
    r = api.http.get(
        f"{api.base}/api/v1/catalog", headers={"Origin": "https://elsewhere.example"}, timeout=10
    )
    assert "Access-Control-Allow-Origin" not in r.headers


def test_cors_allows_the_configured_origins(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("CHRONICLE_CORS_ORIGINS", "https://play.example, http://localhost:5173")
    c = create_app(settings(redis_url)).test_client()
    pre = c.options(
        "/api/v1/games",
        headers={
            "Origin": "http://localhost:5173",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        },
    )
    assert pre.status_code == 200
    assert pre.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    allowed = {h.strip().lower() for h in pre.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key"} <= allowed
    assert "Access-Control-Allow-Credentials" not in pre.headers
    got = c.get("/api/v1/catalog", headers={"Origin": "https://play.example"})
    assert got.headers["Access-Control-Allow-Origin"] == "https://play.example"
    exposed = got.headers["Access-Control-Expose-Headers"].lower()
    assert "x-request-id" in exposed and "retry-after" in exposed
    other = c.get("/api/v1/catalog", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_trusted_proxies_name_the_client_for_the_address_limit(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", "3/minute")
    monkeypatch.setenv("CHRONICLE_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")
    c = create_app(settings(redis_url)).test_client()
    ann, bob = (f"203.0.{secrets.randbelow(250)}.{secrets.randbelow(250)}" for _ in range(2))
    via_proxy = {"X-Forwarded-For": f"{ann}, 10.1.2.3"}  # Ann, then a proxy of ours
    for _ in range(3):
        assert c.get("/api/v1/catalog", headers=via_proxy).status_code == 200
    assert c.get("/api/v1/catalog", headers=via_proxy).status_code == 429
    # Bob, behind the same proxies, is another client; a forged left-most entry changes nothing
    forged = {"X-Forwarded-For": f"{ann}, {bob}, 10.9.9.9"}
    assert c.get("/api/v1/catalog", headers=forged).status_code == 200


def test_an_untrusted_peer_cannot_choose_its_address(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", "3/minute")
    monkeypatch.setenv("CHRONICLE_TRUSTED_PROXIES", "10.0.0.0/8")
    c = create_app(settings(redis_url)).test_client()
    c.environ_base["REMOTE_ADDR"] = f"198.51.100.{secrets.randbelow(250)}"
    for i in range(3):
        r = c.get("/api/v1/catalog", headers={"X-Forwarded-For": f"192.0.2.{i}"})
        assert r.status_code == 200
    assert c.get("/api/v1/catalog", headers={"X-Forwarded-For": "192.0.2.99"}).status_code == 429


@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        ("127.0.0.1", "", "127.0.0.1"),
        ("127.0.0.1", "203.0.113.9", "203.0.113.9"),
        ("127.0.0.1", "1.1.1.1, 203.0.113.9", "203.0.113.9"),
        ("127.0.0.1", "203.0.113.9, 10.0.0.2, 10.0.0.1", "203.0.113.9"),
        ("127.0.0.1", "10.0.0.2, 10.0.0.1", "10.0.0.2"),  # only proxies: the farthest one
        ("127.0.0.1", "garbage, 10.0.0.1", "10.0.0.1"),
        ("192.0.2.1", "203.0.113.9", "192.0.2.1"),  # not a proxy of ours
        ("::1", "2001:db8::5", "2001:db8::5"),
    ],
)
def test_client_address(redis_url: str, remote: str, forwarded: str, client: str) -> None:
    app = create_app(settings(redis_url))
    app.extensions["chronicle.trusted_proxies"] = middleware.trusted_proxies(
        {"CHRONICLE_TRUSTED_PROXIES": "127.0.0.1,::1,10.0.0.0/8"}
    )
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    with app.test_request_context("/", headers=headers, environ_base={"REMOTE_ADDR": remote}):
        assert middleware.client_address() == client


def test_a_bad_trusted_proxy_entry_stops_the_app() -> None:
    with pytest.raises(RuntimeError, match=re.escape("CHRONICLE_TRUSTED_PROXIES: '10.0.0.300'")):
        middleware.trusted_proxies({"CHRONICLE_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.300"})


def test_metrics_count_against_the_address_like_every_path_but_the_health_checks(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", "2/minute")
    c = create_app(settings(redis_url)).test_client()
    c.environ_base["REMOTE_ADDR"] = f"198.51.100.{secrets.randbelow(250)}"
    assert [c.get("/metrics").status_code for _ in range(3)] == [200, 200, 429]
    assert [c.get(p).status_code for p in ("/healthz", "/readyz") * 3] == [200] * 6
