"""The typed client (``chronicle_client``) against a live server: the documented example plays a
game against a bot to the end; ``stream`` yields a spectator's whole log; ``act`` resends at
the new version after a 409 while its action stays legal; 429s are waited out by their
``Retry-After``; refusals arrive as typed errors."""

from __future__ import annotations

import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from chronicle_client import (
    ApiError,
    Client,
    IllegalAction,
    RateLimited,
    Unavailable,
    VersionConflict,
)
from chronicle_client.example import play_against_bot
from service.app import create_app
from service.redis_server import RedisServer, free_port
from tests.conftest import settings
from tests.support.server import serving


def test_the_example_plays_a_game_against_a_bot(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    gid, result = play_against_bot(server_url, seed=15)
    assert sorted(result["scores"]) == ["0", "1"] and result["winners"]
    summary = Client(server_url).summary(gid)
    assert summary["status"] == "finished" and summary["result"] == result


def test_stream_yields_a_spectators_whole_log_to_the_end(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    api = Client(server_url)
    bots = [{"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"}]
    gid = api.create("artus", bots)["id"]
    versions = [e["version"] for e in api.stream(gid, wait=2)]
    final = api.summary(gid)
    assert final["status"] == "finished"
    assert versions == list(range(1, final["version"] + 1))


def test_act_reloads_after_a_conflict_while_the_action_is_legal(server_url: str) -> None:
    api = Client(server_url)
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    tokens = {s["seat"]: api.as_token(s["token"]) for s in created["seats"]}
    seat = api.summary(gid)["to_act"][0]
    me = tokens[seat]
    listed = me.actions(gid)
    stale = listed["version"] - 1
    # a stale version, an action still legal now: sent again at the current version
    done = me.act(gid, listed["actions"][0], stale)
    assert done["version"] > listed["version"]
    # the same action again at its old version: after the reload it is no longer legal
    with pytest.raises(VersionConflict) as conflict:
        me.act(gid, listed["actions"][0], listed["version"])
    assert conflict.value.current_version == done["version"]
    assert api.summary(gid)["version"] == done["version"]
    # and without reload the conflict is raised at once
    with pytest.raises(VersionConflict):
        tokens[1 - seat].act(gid, listed["actions"][0], stale, reload=False)


def test_refusals_are_typed_errors(server_url: str) -> None:
    api = Client(server_url)
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    seat = api.summary(gid)["to_act"][0]
    me = api.as_token(next(s["token"] for s in created["seats"] if s["seat"] == seat))
    version = me.actions(gid)["version"]
    with pytest.raises(IllegalAction) as illegal:
        me.act(gid, {"type": "place_knight", "seat": 0}, version)  # the King's seat
    assert illegal.value.status == 422 and illegal.value.message.startswith("AR-")
    with pytest.raises(ApiError) as missing:
        api.summary("no-such-game")
    assert missing.value.status == 404 and missing.value.code == "not_found"


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> Iterator[str]:
    """The API with a per-address limit of 3 a second, on a real HTTP server."""
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", "3/second")
    with serving(create_app(settings(redis_url))) as base:
        yield base


def test_rate_limits_are_waited_out_by_retry_after(limited: str) -> None:
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    api = Client(limited, sleep=sleep)
    for _ in range(8):
        assert api.catalog()["games"]
    assert waits and all(w == 1.0 for w in waits), waits  # Retry-After of a 1-second window
    impatient = Client(limited, retries=0)
    with pytest.raises(RateLimited) as refused:
        for _ in range(10):
            impatient.catalog()
    assert refused.value.status == 429 and refused.value.details["retry_after"] == 1


def test_raw_is_one_attempt_and_the_response_as_it_came(limited: str) -> None:
    """The escape hatch neither waits nor raises: the 429s come back as responses."""
    waits: list[float] = []
    api = Client(limited, sleep=waits.append)
    answers = [api.raw("GET", "/api/v1/catalog") for _ in range(10)]  # 3 a second at most
    refused = [r for r in answers if r.status_code == 429]
    assert refused and waits == []
    assert refused[0].headers["Retry-After"] == "1"
    assert refused[0].json()["error"]["code"] == "rate_limited"


def test_unavailable_reads_and_keyed_writes_are_retried(tmp_path: Path) -> None:
    """Redis stopped, then back 1.5 s later on its files: the client's read and its act (which
    carries an Idempotency-Key) wait out the 503s and succeed, each applied once."""
    port = free_port()
    redis_server = RedisServer(tmp_path / "redis", port=port, appendfsync="always")
    url = redis_server.start()
    try:
        with serving(create_app(settings(url))) as base:
            waits: list[float] = []

            def sleep(seconds: float) -> None:
                waits.append(seconds)
                time.sleep(seconds)

            api = Client(base, retries=8, sleep=sleep)
            created = api.create("artus", [{"name": "A"}, {"name": "B"}])
            gid = created["id"]
            seat = api.summary(gid)["to_act"][0]
            me = api.as_token(next(s["token"] for s in created["seats"] if s["seat"] == seat))
            listed = me.actions(gid)
            redis_server.stop()
            restart = threading.Timer(1.5, redis_server.start)
            restart.start()
            try:
                assert api.summary(gid)["version"] == listed["version"]
                assert waits, "no 503 was seen"
                redis_server.stop()
                waits.clear()
                threading.Timer(1.5, redis_server.start).start()
                done = me.act(gid, listed["actions"][0], listed["version"])
                assert waits and done["version"] == listed["version"] + 1
                assert api.summary(gid)["version"] == done["version"]
            finally:
                restart.cancel()
            # a POST without a key is not retried on 503: it might have been applied
            redis_server.stop()
            waits.clear()
            with pytest.raises(Unavailable):
                api.create("artus", [{"name": "A"}, {"name": "B"}])
            assert waits == []
    finally:
        redis_server.stop()


def test_a_dropped_connection_is_retried_for_reads_and_keyed_writes_only() -> None:
    """A server that resets the first connection of each pair (as one closing an idle kept-alive
    connection does under a client that reuses it): a read and a keyed write are sent again and
    answered; a POST without a key raises (it might have been applied)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    body = b'{"ok": true}'
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n%s"
    )
    seen: list[bytes] = []

    def serve() -> None:
        for i in range(6):  # bounded: three calls, each reset once at most
            conn, _ = listener.accept()
            with conn:
                seen.append(conn.recv(65536).split(b" ", 1)[0])
                if i % 2 == 0:  # reset: RST, no answer
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    continue
                conn.sendall(answer % (len(body), body))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    waits: list[float] = []
    api = Client(f"http://127.0.0.1:{port}", retries=2, sleep=waits.append)
    try:
        assert api.request("GET", "/api/v1/anything") == {"ok": True}
        keyed = {"Idempotency-Key": "k-1"}
        assert api.request("POST", "/api/v1/anything", json={}, headers=keyed) == {"ok": True}
        assert len(waits) == 2 and seen == [b"GET", b"GET", b"POST", b"POST"]
        with pytest.raises(requests.ConnectionError):
            api.request("POST", "/api/v1/anything", json={})
        assert len(waits) == 2, "an unkeyed POST is not sent again"
        thread.join(0.5)  # the server waits for a sixth connection that never comes
        assert seen == [b"GET", b"GET", b"POST", b"POST", b"POST"]
    finally:
        listener.close()
