"""The edges of `chronicle serve` as a hostile client tries them (issue 10), each on loopback
and bounded in time:

- 100 spectators long-polling one game do not hold a thread or a Redis connection each:
  ``/healthz`` and the other resources stay fast, and an append answers all of them;
- 20 sockets that send half a request are closed after the header timeout while other clients
  are served;
- concurrent waits beyond the cap per address are refused 429 ``rate_limited`` with
  ``Retry-After``, and the caps hold across API processes (serve's and one in the test);
- a URL over 4 KB and headers over 8 KB get the contract's JSON errors (414, 431), both where
  the application checks them and beyond gunicorn's own limits; so do 404 and 405.
"""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from pathlib import Path

import pytest
import requests

from chronicle_client.types import Created
from service.app import create_app
from tests.conftest import settings
from tests.reliability.served import raw_request, served, wait_until
from tests.support.client import Client
from tests.support.server import serving


def _timed_get(url: str, timeout: float = 5) -> float:
    t = time.perf_counter()
    r = requests.get(url, timeout=timeout)
    assert r.status_code == 200, r.text
    return time.perf_counter() - t


def _artus(api: Client) -> Created:
    return api.create("artus", [{"name": "a"}, {"name": "b"}], options={"rules": "basic"})


def test_a_hundred_long_polls_hold_no_thread_and_no_redis_connection(tmp_path: Path) -> None:
    with served(tmp_path, CHRONICLE_WAITS_PER_ADDRESS="200") as s:
        api = Client(s.base)
        game = _artus(api)
        gid, version = game["id"], game["version"]
        answers: list[requests.Response | Exception] = []

        def poll() -> None:
            try:
                answers.append(
                    requests.get(
                        f"{s.base}/api/v1/games/{gid}/events",
                        params={"after": version, "wait": 30},
                        timeout=40,
                    )
                )
            except requests.RequestException as exc:
                answers.append(exc)

        pollers = [threading.Thread(target=poll, daemon=True) for _ in range(100)]
        for t in pollers:
            t.start()
        time.sleep(1.5)  # every poll is in and waiting
        assert not answers, "a long-poll answered before anything was appended"
        times = [_timed_get(f"{s.base}/healthz", timeout=3) for _ in range(30)]
        times += [_timed_get(f"{s.base}/api/v1/games/{gid}", timeout=3) for _ in range(10)]
        clients = int(s.redis().info("clients")["connected_clients"])
        p99 = sorted(times)[int(len(times) * 0.99) - 1]
        assert p99 < 0.5, f"requests waited behind the long-polls: p99 {p99:.3f} s"
        assert clients < 40, f"{clients} Redis connections for 100 waiting long-polls"
        # one append answers every waiter with it
        seat = api.summary(gid)["to_act"][0]
        token = game["seats"][seat]["token"]
        action = api.actions(gid, token)["actions"][0]
        assert api.act(gid, token, action, version).status_code == 201
        for t in pollers:
            t.join(10)
        assert len(answers) == 100
        bad = [a for a in answers if isinstance(a, Exception) or a.status_code != 200]
        assert not bad, bad[:3]
        got = [a for a in answers if isinstance(a, requests.Response)]  # all of them (not bad)
        assert all(a.json()["events"][0]["version"] == version + 1 for a in got)
        print(
            f"\nFIGURE 100 long-polls waiting: /healthz and summary p50 "
            f"{statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; "
            f"{clients} Redis connections"
        )


def _answered(sock: socket.socket) -> None:
    """One whole answer to a ``GET /healthz`` read from ``sock`` (kept alive)."""
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
    while len(body) < length:
        body += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200") and b"connection: close" not in head.lower()


def test_half_sent_requests_are_closed_after_the_header_timeout(tmp_path: Path) -> None:
    """Each head has its time limit: the first of a connection, and a later one on a
    connection kept alive (half sent, or never sent)."""
    with served(tmp_path, CHRONICLE_HEADER_TIMEOUT="2") as s:
        partial = []
        for i in range(20):
            sock = socket.create_connection(("127.0.0.1", s.port), timeout=15)
            if i < 2:  # a kept-alive connection after one answer: a second head half sent, none
                _answered(sock)
            if i != 1:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            partial.append(sock)
        started = time.monotonic()
        try:
            times = [_timed_get(f"{s.base}/healthz", timeout=3) for _ in range(20)]
            assert max(times) < 0.5, f"other clients waited behind half-sent requests: {times}"
            closed_after = []
            for sock in partial:
                try:
                    got = sock.recv(1024)
                except TimeoutError:
                    got = b"still open"
                except OSError:
                    got = b""
                assert got == b"", f"a half-sent request was answered or kept open: {got!r}"
                closed_after.append(time.monotonic() - started)
            assert max(closed_after) < 10, closed_after
        finally:
            for sock in partial:
                sock.close()
        print(f"\nFIGURE 20 half-sent requests closed after {max(closed_after):.1f} s")


def test_concurrent_waits_beyond_the_cap_are_refused_429(tmp_path: Path) -> None:
    with served(tmp_path, CHRONICLE_WAITS_PER_ADDRESS="5", CHRONICLE_WAITS_PER_TOKEN="2") as s:
        api = Client(s.base)
        game = _artus(api)
        gid, version = game["id"], game["version"]
        url = f"{s.base}/api/v1/games/{gid}/events?after={version}&wait=6"
        held: list[requests.Response] = []

        def poll(headers: dict[str, str]) -> None:
            held.append(requests.get(url, headers=headers, timeout=15))

        spectators = [threading.Thread(target=poll, args=({},)) for _ in range(5)]
        for t in spectators:
            t.start()
        time.sleep(1.0)
        over = requests.get(url, timeout=5)
        assert over.status_code == 429, over.text
        assert over.json()["error"]["code"] == "rate_limited"
        assert int(over.headers["Retry-After"]) >= 1
        stream = requests.get(f"{s.base}/api/v1/games/{gid}/stream", timeout=5, stream=True)
        assert stream.status_code == 429, "a stream counts as a wait too"
        # the cap per token: two waits of one seat, the third refused
        token = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
        for t in spectators:
            t.join(15)
        seats = [threading.Thread(target=poll, args=(token,)) for _ in range(2)]
        for t in seats:
            t.start()
        time.sleep(1.0)
        third = requests.get(url, headers=token, timeout=5)
        assert third.status_code == 429, third.text
        for t in seats:
            t.join(15)
        assert all(r.status_code == 200 for r in held), [r.status_code for r in held]
        # a wait that ended frees its place
        assert requests.get(url.replace("wait=6", "wait=0.2"), timeout=5).status_code == 200


def test_a_stream_whose_client_hung_up_gives_its_place_back_at_once(tmp_path: Path) -> None:
    """A stream only writes, so a client that closed its connection went unnoticed until the
    next heartbeat (15 s): meanwhile it held its greenlet and its place under the caps, and a
    page reloaded twice was refused 429.  The hub now watches each socket for the hang-up."""
    with served(tmp_path, CHRONICLE_WAITS_PER_TOKEN="1") as s:
        api = Client(s.base)
        game = _artus(api)
        gid, token, version = game["id"], game["seats"][0]["token"], game["version"]
        host, port = s.base.removeprefix("http://").split(":")
        request = (
            f"GET /api/v1/games/{gid}/stream HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
        for _ in range(3):  # a page loaded and reloaded
            sock = socket.create_connection((host, int(port)), timeout=5)
            sock.sendall(request)
            head = sock.recv(65536)
            assert head.startswith(b"HTTP/1.1 200"), head[:200]
            started = time.monotonic()
            sock.close()
            while True:  # the place is free well before a heartbeat would have found out
                again = requests.get(
                    f"{s.base}/api/v1/games/{gid}/events?after={version}&wait=0.1",
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=5,
                )
                if again.status_code == 200:
                    break
                assert again.status_code == 429, again.text
                assert time.monotonic() - started < 5, "the hung-up stream still holds its place"
                time.sleep(0.05)


def test_the_caps_on_waits_hold_across_api_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    caps = {"CHRONICLE_WAITS_PER_ADDRESS": "3", "CHRONICLE_WAITS_PER_TOKEN": "2"}
    for name, value in caps.items():
        monkeypatch.setenv(name, value)  # the in-process app reads them too
    with served(tmp_path, 1, **caps) as s:
        other = create_app(settings(f"unix://{s.data / 'redis' / 'redis.sock'}"))
        with serving(other) as base:  # a second API process of the service: this one
            game = _artus(Client(s.base))
            gid, version = game["id"], game["version"]
            path = f"/api/v1/games/{gid}/events?after={version}&wait=5"
            held: list[requests.Response] = []

            def poll(where: str, headers: dict[str, str]) -> None:
                held.append(requests.get(where + path, headers=headers, timeout=15))

            def hold(*calls: tuple[str, dict[str, str]]) -> list[threading.Thread]:
                threads = [threading.Thread(target=poll, args=call) for call in calls]
                for t in threads:
                    t.start()
                time.sleep(1.0)
                return threads

            # the address: two waits on serve's process and one on this one, then both refuse
            waiting = hold((s.base, {}), (s.base, {}), (base, {}))
            for where in (base, s.base):
                over = requests.get(where + path, timeout=5)
                assert over.status_code == 429, (where, over.text)
                assert over.json()["error"]["code"] == "rate_limited"
                assert "this address" in over.json()["error"]["message"]
                assert int(over.headers["Retry-After"]) >= 1
            stream = requests.get(f"{base}/api/v1/games/{gid}/stream", timeout=5, stream=True)
            assert stream.status_code == 429, "a stream counts as a wait too"
            for t in waiting:
                t.join(15)
            # the token: one wait on each process, the third refused on either
            token = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
            waiting = hold((s.base, token), (base, token))
            for where in (base, s.base):
                third = requests.get(where + path, headers=token, timeout=5)
                assert third.status_code == 429, (where, third.text)
                assert "this token" in third.json()["error"]["message"]
            for t in waiting:
                t.join(15)
            assert [r.status_code for r in held] == [200] * 5
            # the waits that ended gave their leases back
            for where in (base, s.base):
                quick = requests.get(where + path.replace("wait=5", "wait=0.2"), timeout=5)
                assert quick.status_code == 200, quick.text


def _json_error(status: int, headers: dict[str, str], body: bytes, expected: int) -> dict:
    assert status == expected, (status, body[:300])
    assert headers.get("content-type", "").startswith("application/json"), headers
    doc = json.loads(body)
    assert set(doc["error"]) == {"code", "message", "details"}, doc
    return doc


def test_oversized_urls_and_headers_get_json_errors(tmp_path: Path) -> None:
    with served(tmp_path) as s:
        for n in (5_000, 12_000):  # over our 4 KB; over gunicorn's own limit as well
            got = raw_request(
                s.port, f"GET /healthz?x={'a' * n} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            )
            assert _json_error(*got, 414)["error"]["code"] == "uri_too_long"
        many = "".join(f"X-Pad-{i}: {'b' * 1000}\r\n" for i in range(10))  # 10 KB in all
        one = f"X-Pad: {'c' * 9000}\r\n"  # one field over gunicorn's field limit
        for extra in (many, one):
            got = raw_request(s.port, f"GET /healthz HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())
            assert _json_error(*got, 431)["error"]["code"] == "headers_too_large"
        got = raw_request(s.port, b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _json_error(*got, 404)["error"]["code"] == "not_found"
        got = raw_request(
            s.port, b"DELETE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert _json_error(*got, 405)["error"]["code"] == "method_not_allowed"
        got = raw_request(s.port, b"GARBAGE\r\n\r\n")
        assert _json_error(*got, 400)["error"]["code"] == "bad_request"
        # and the service is still up for everyone else
        wait_until(lambda: requests.get(s.base + "/healthz", timeout=2).ok, 5, "down")
