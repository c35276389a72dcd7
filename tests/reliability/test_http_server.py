"""HTTP/1.1 as `chronicle serve` speaks it (gunicorn's parser and writer, ``service.serving``
and ``service.http.edge``), tried black-box on raw sockets: keep-alive and pipelining,
HTTP/1.0, chunked bodies, ``Expect: 100-continue``, ``HEAD``, the requests it must refuse
(smuggling pairs, unknown codings, malformed lines and fields, headers spelled with ``_``),
each in the contract's JSON shape and without taking the server down; and the time limits on
a body and on an answer."""

from __future__ import annotations

import contextlib
import json
import random
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.reliability.served import (
    Served,
    alive,
    cmdline,
    descendants,
    raw_request,
    served,
    wait_until,
)
from tests.support.client import Client
from tests.support.raw_http import read_answer
from tests.support.sse import Stream


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(tmp_path_factory.mktemp("http-server")) as s:
        yield s


def _closed(sock: socket.socket) -> bool:
    sock.settimeout(5)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _error(got: tuple[int, dict[str, str], bytes], status: int) -> str:
    code, headers, body = got
    assert code == status, (code, body)
    assert headers["content-type"] == "application/json"
    return str(json.loads(body)["error"]["code"])


def test_requests_pipelined_on_one_connection_are_answered_in_order(serve: Served) -> None:
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        one = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: first-1\r\n\r\n"
        two = b"GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Request-ID: second-2\r\n\r\n"
        s.sendall(one + two)
        status, headers, _, rest = read_answer(s)
        assert (status, headers["x-request-id"]) == (200, "first-1")
        assert headers.get("connection", "keep-alive") == "keep-alive"  # HTTP/1.1
        status, headers, body, rest = read_answer(s, rest)
        assert (status, headers["x-request-id"]) == (404, "second-2")
        assert json.loads(body)["error"]["code"] == "not_found"
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers, _, _ = read_answer(s, rest)
        assert (status, headers["connection"]) == (200, "close")
        assert _closed(s)


def test_http_1_0_closes_unless_kept_alive(serve: Served) -> None:
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        status, headers, _, _ = read_answer(s)
        assert (status, headers["connection"]) == (200, "close")
        assert _closed(s)
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        status, headers, _, rest = read_answer(s)
        assert (status, headers["connection"]) == (200, "keep-alive")
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        assert read_answer(s, rest)[0] == 200


def test_a_chunked_body_and_expect_100_continue_create_a_game(serve: Served) -> None:
    doc = json.dumps({"game": "artus", "players": [{"name": "a"}, {"name": "b"}]}).encode()
    half = len(doc) // 2
    chunks = b"%X\r\n%s\r\n%X;ext=1\r\n%s\r\n0\r\nX-Trailer: t\r\n\r\n" % (
        half, doc[:half], len(doc) - half, doc[half:],
    )  # fmt: skip
    head = (
        b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.sendall(head)
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += s.recv(65536)
        assert buf.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        s.sendall(chunks)
        status, _, body, _ = read_answer(s, buf[len(b"HTTP/1.1 100 Continue\r\n\r\n") :])
        assert status == 201, body
        assert json.loads(body)["game"] == "artus"


def test_head_answers_the_length_without_a_body(serve: Served) -> None:
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        get = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        s.sendall(get.replace(b"GET", b"HEAD") + get)
        buf = b""
        while buf.count(b"HTTP/1.1 200") < 2 or not buf.rstrip().endswith(b"}"):
            data = s.recv(65536)
            assert data, buf
            buf += data
        first, _, second = buf.partition(b"\r\n\r\n")
        assert b"content-length" in first.lower()
        assert second.startswith(b"HTTP/1.1 200"), "no body after the HEAD's head"


@pytest.mark.parametrize(
    ("request_head", "status", "code"),
    [
        # a smuggling pair: a proxy and this server could disagree on where the body ends
        (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad_request"),
        (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
         b"Content-Length: 5\r\n\r\n", 400, "bad_request"),
        (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: +4\r\n\r\n", 400,
         "bad_request"),
        (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
         400, "bad_request"),
        (b"POST /api/v1/games HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
         "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: the-moon\r\n\r\n", 417, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 400, "bad_request"),
        (b"GET healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(201))
         + b"\r\n", 431, "headers_too_large"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: " + b"v" * 17000 + b"\r\n\r\n", 431,
         "headers_too_large"),  # one field over gunicorn's limit
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    ],
)  # fmt: skip
def test_malformed_requests_are_refused_in_json_and_closed(
    serve: Served, request_head: bytes, status: int, code: str
) -> None:
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.sendall(request_head)
        got, headers, body, _ = read_answer(s)
        assert _error((got, headers, body), status) == code
        assert headers["connection"] == "close"
        assert _closed(s)
    assert requests.get(serve.base + "/healthz", timeout=5).ok


def test_a_header_spelled_with_underscores_is_dropped(serve: Served) -> None:
    got = raw_request(
        serve.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX_Request_ID: spoofed\r\n\r\n"
    )
    assert got[0] == 200
    assert got[1]["x-request-id"] != "spoofed"


def test_an_absolute_target_and_leading_blank_lines(serve: Served) -> None:
    got = raw_request(serve.port, b"\r\nGET http://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert got[0] == 200
    assert json.loads(got[2])["status"] == "ok"


def test_a_body_cut_short_is_a_400_or_a_close_and_the_server_stays(serve: Served) -> None:
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.sendall(
            b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game"'
        )
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        assert data == b"" or data.startswith(b"HTTP/1.1 400")
    wait_until(lambda: requests.get(serve.base + "/healthz", timeout=2).ok, 5, "down")


def test_an_unread_body_is_drained_and_the_connection_lives_on(serve: Served) -> None:
    body = b'{"x": 1}'
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        # 404 before anyone reads the body: the next request must still parse
        s.sendall(
            b"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s"
            % (len(body), body)
            + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        status, _, _, rest = read_answer(s)
        assert status == 404
        assert read_answer(s, rest)[0] == 200


def test_a_head_sent_a_byte_at_a_time_is_read(serve: Served) -> None:
    data = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: drip-1\r\n\r\n"
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            s.sendall(data[i : i + 1])
        status, headers, _, _ = read_answer(s)
        assert (status, headers["x-request-id"]) == (200, "drip-1")


def test_max_requests_restarts_the_api_process(tmp_path: Path) -> None:
    with served(tmp_path, GUNICORN_CMD_ARGS="--max-requests 5") as s:
        assert s.proc is not None

        def api_processes() -> set[int]:
            return {p for p in descendants(s.proc.pid) if "gunicorn" in cmdline(p) and alive(p)}

        before = api_processes()
        for _ in range(12):
            got = requests.get(s.base + "/healthz", headers={"Connection": "close"}, timeout=5)
            assert got.ok
        wait_until(lambda: api_processes() - before, 15, "no API process was restarted")


_SEEDS = (
    b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b'Content-Length: 54\r\n\r\n{"game":"artus","players":[{"name":"a"},{"name":"b"}]}',
    b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n',
    b"GET /api/v1/games/abc/view?x=1 HTTP/1.0\r\nAuthorization: Bearer z\r\n"
    b"Expect: 100-continue\r\n\r\n",
)


def _mutated(rng: random.Random) -> bytes:
    """A seed request with a few bytes flipped, inserted, cut or repeated."""
    b = bytearray(rng.choice(_SEEDS))
    for _ in range(rng.randint(1, 6)):
        op, i = rng.random(), rng.randrange(len(b))
        if op < 0.3:
            b[i] = rng.randrange(256)
        elif op < 0.5:
            b[i:i] = bytes([rng.choice(b"\r\n :;,\x00\t0aZ%/?#")])
        elif op < 0.7:
            del b[i : i + rng.randint(1, 4)]
        else:
            b[i:i] = b[rng.randrange(len(b)) :][: rng.randint(1, 20)]
    return bytes(b)


def test_mutated_requests_get_no_5xx_and_leave_the_server_up(serve: Served) -> None:
    """A hostile client's bytes: 400 requests, each a seed mutated at random (seeded), sent and
    half-closed.  Whatever the answer, it is never a 5xx other than 501, nothing is logged as
    an error, and the server answers others afterwards."""
    rng = random.Random(16)
    answered = 0
    for _ in range(400):
        data = _mutated(rng)
        with socket.create_connection(("127.0.0.1", serve.port), timeout=5) as s:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            out = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := s.recv(65536):
                    out += chunk
        codes = [line[9:12] for line in out.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]
        answered += bool(codes)
        assert all(not c.startswith(b"5") or c == b"501" for c in codes), (data, out[:300])
    assert answered > 300, "most mutated requests are answered (the rest are half heads)"
    assert requests.get(serve.base + "/healthz", timeout=5).ok
    assert "Traceback" not in serve.output()


# ---- time limits on a body and on an answer (service.http.edge) -----------------------------
IO_TIMEOUT, BODY_TIMEOUT = 1.5, 3.0


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(
        tmp_path_factory.mktemp("http-timeouts"),
        CHRONICLE_IO_TIMEOUT=str(IO_TIMEOUT),
        CHRONICLE_BODY_TIMEOUT=str(BODY_TIMEOUT),
        CHRONICLE_STREAM_HEARTBEAT="0.5",
    ) as s:
        yield s


POST_HEAD = (
    b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 200\r\n\r\n"
)


def _timed_out(s: socket.socket) -> None:
    """A 408 ``request_timeout`` in the JSON shape, then the end of the connection (gunicorn
    writes the answer's ``Connection`` field itself: the app ends the connection after it)."""
    status, headers, body, rest = read_answer(s)
    assert _error((status, headers, body), 408) == "request_timeout"
    assert rest == b"" and _closed(s)


def test_a_body_that_stops_is_a_408_after_the_io_timeout(impatient: Served) -> None:
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as s:
        started = time.monotonic()
        s.sendall(POST_HEAD + b'{"game"')
        _timed_out(s)
        took = time.monotonic() - started
    assert IO_TIMEOUT - 0.2 < took < IO_TIMEOUT + 3, took
    assert requests.get(impatient.base + "/healthz", timeout=5).ok


def test_a_body_dripped_a_byte_at_a_time_is_a_408_after_the_body_timeout(
    impatient: Served,
) -> None:
    """Each byte comes well within the io timeout; the body as a whole does not."""
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as s:
        started = time.monotonic()
        s.sendall(POST_HEAD)
        for _ in range(40):  # 40 x 0.4 s, far beyond the body timeout: bounded either way
            readable, _, _ = select.select([s], [], [], 0.4)
            if readable:
                break
            s.sendall(b" ")
        else:
            pytest.fail("no answer while the body dripped for 16 s")
        _timed_out(s)
        took = time.monotonic() - started
    assert BODY_TIMEOUT - 0.2 < took < BODY_TIMEOUT + 3, took


def test_a_client_that_stops_reading_its_answers_is_closed(impatient: Served) -> None:
    """Pipelined requests for a large answer, none read: once the socket buffers are full the
    server waits for the client, and after the io timeout closes the connection (without the
    limit it waits for ever, holding a greenlet and a connection slot)."""
    ask = b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
    size = len(requests.get(impatient.base + "/api/v1/openapi.json", timeout=10).content)
    count = 64 * 1024 * 1024 // size + 1  # more than any socket buffers hold
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(10)
        s.connect(("127.0.0.1", impatient.port))
        with contextlib.suppress(OSError):  # the server may close before all are sent
            s.sendall(ask * count)
        time.sleep(IO_TIMEOUT * 2 + 1)
        got, ended = 0, False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                data = s.recv(1024 * 1024)
            except ConnectionResetError:
                data = b""
            if not data:
                ended = True
                break
            got += len(data)
    assert ended, "the connection was still open after a minute of reading"
    assert got < size * count, "every answer came: the server never gave up on the client"
    assert requests.get(impatient.base + "/healthz", timeout=5).ok


def test_the_time_limits_come_from_the_environment_and_a_bad_one_is_refused() -> None:
    from service import serving

    assert serving.timeouts({}) == {"header": 10.0, "body": 60.0, "io": 30.0}
    got = serving.timeouts({"CHRONICLE_IO_TIMEOUT": "2.5", "CHRONICLE_HEADER_TIMEOUT": "4"})
    assert got == {"header": 4.0, "body": 60.0, "io": 2.5}
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(ValueError, match="CHRONICLE_BODY_TIMEOUT must be"):
            serving.timeouts({"CHRONICLE_BODY_TIMEOUT": bad})


def test_chronicle_serve_refuses_a_bad_time_limit_before_starting_anything(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "CHRONICLE_IO_TIMEOUT": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "chronicle", "serve", "--port", "1", "--data-dir", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "CHRONICLE_IO_TIMEOUT must be a number of seconds above 0, not '0'" in done.stderr
    assert not (tmp_path / "redis").exists()  # nothing started


def test_a_stream_read_by_its_client_outlives_the_io_timeout(impatient: Served) -> None:
    """The io timeout bounds a wait for the client, not an answer's life: a spectator's
    stream, read as it comes, keeps its heartbeats coming long after it."""
    api = Client(impatient.base)
    gid = api.create("artus", [{"name": "a"}, {"name": "b"}])["id"]
    with Stream(f"{impatient.base}/api/v1/games/{gid}/stream") as st:
        assert st.status == 200
        started = time.monotonic()
        while st.next().at - started < IO_TIMEOUT * 3:
            pass
        assert st.next().kind == "comment"  # still open: a heartbeat after 4.5 s
