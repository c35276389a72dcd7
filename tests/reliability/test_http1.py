"""HTTP/1.1 as `chronicle serve` speaks it (``service.http1``), tried on raw sockets: keep-alive
and pipelining, HTTP/1.0, chunked bodies both ways, ``Expect: 100-continue``, ``HEAD``, and
the requests it must refuse (smuggling pairs, unknown codings, malformed lines and fields,
headers spelled with ``_``), each in the contract's JSON shape and without taking the server
down."""

from __future__ import annotations

import contextlib
import json
import random
import select
import socket
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from service import http1
from service.http import edge
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
    with served(tmp_path_factory.mktemp("http1")) as s:
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
        assert "connection" not in headers  # HTTP/1.1: kept alive
        status, headers, body, rest = read_answer(s, rest)
        assert (status, headers["x-request-id"]) == (404, "second-2")
        assert json.loads(body)["error"]["code"] == "not_found"
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers, _, _ = read_answer(s, rest)
        assert (status, headers["connection"]) == (200, "close")
        assert _closed(s)


def test_a_client_pipelining_a_burst_does_not_hold_up_the_others(serve: Served) -> None:
    """One API process; one client pipelines 300 requests that never wait, another sends one.
    The other's answer comes while the burst is still being answered (before ``FAIR_TURN``,
    the burst's greenlet answered all 300 before the other's request was even read)."""
    burst = 300
    with (
        socket.create_connection(("127.0.0.1", serve.port), timeout=10) as hog,
        socket.create_connection(("127.0.0.1", serve.port), timeout=10) as other,
    ):
        hog.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * burst)
        other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: other-1\r\n\r\n")
        status, headers, _, _ = read_answer(other)
        assert (status, headers["x-request-id"]) == (200, "other-1")
        hog.setblocking(False)
        received = b""
        with contextlib.suppress(BlockingIOError):
            while chunk := hog.recv(1 << 20):
                received += chunk
        answered = received.count(b"HTTP/1.1 200")
        assert answered < burst, "the burst was answered whole before the other request"
        hog.setblocking(True)
        rest = received
        for _ in range(burst):  # and the burst is answered in full
            status, _, _, rest = read_answer(hog, rest)
            assert status == 200


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
         501, "bad_request"),
        (b"POST /api/v1/games HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 501,
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
        (b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"v" * 1000)
         for i in range(70)) + b"\r\n", 431, "headers_too_large"),  # 70 KB: over MAX_HEAD
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
    """gunicorn's ``--max-requests`` still counts requests (``Worker._counted``)."""
    with served(tmp_path, GUNICORN_CMD_ARGS="--max-requests 5") as s:
        proc = s.proc
        assert proc is not None

        def api_processes() -> set[int]:
            return {p for p in descendants(proc.pid) if "gunicorn" in cmdline(p) and alive(p)}

        before = api_processes()
        for _ in range(12):
            got = requests.get(s.base + "/healthz", headers={"Connection": "close"}, timeout=5)
            assert got.ok
        wait_until(lambda: api_processes() - before, 15, "no API process was restarted")


_NAMES = st.sampled_from(
    ["Content-Type", "Content-Length", "X-A", "x-a", "X_Under", "Accept", "Cookie"]
)
_VALUES = st.text(  # visible ASCII and Latin-1 (obs-text): what a value may hold
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=30,
)


def _never_called(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """The app of a connection of which only the head is read."""
    raise AssertionError("the app was called")


@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=12))
@settings(max_examples=300, deadline=None)
def test_the_header_size_counted_while_reading_is_the_edges(fields: list[tuple[str, str]]) -> None:
    """``chronicle.header_bytes`` equals ``service.http.edge.header_bytes`` of the environ
    (repeated fields joined, ``_`` names dropped, Content-Type and Content-Length by their
    CGI names), so the edge's 431 is the same under either server."""
    lines = [b"GET /healthz HTTP/1.1", b"Host: h"]  # exactly one valid Host (RFC 9112 §3.2)
    for name, value in fields:
        if name == "Content-Length":
            value = "12"
        lines.append(f"{name}: {value}".encode("latin-1"))
    conn = http1.Connection(
        _never_called, None, ("127.0.0.1", 1), ("127.0.0.1", "80"), bool, http1.Timeouts(), None
    )
    env = conn._environ(b"\r\n".join(lines))[0]
    counted = env.pop(edge.HEADER_BYTES_KEY)
    assert counted == edge.header_bytes(env)


def test_work_left_for_after_the_answer_runs_once_it_is_sent() -> None:
    """The app's bookkeeping (``edge.AFTER_ANSWER_KEY``) runs after the whole answer is on its
    way and before the next request is read; a failing piece is logged, the rest still runs
    and the connection serves on."""
    client, server = socket.socketpair()
    seen: list[Any] = []
    failures: list[str] = []

    def app(env: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Length", "5")])
        later = env[edge.AFTER_ANSWER_KEY]
        assert later(lambda: 1 / 0)
        assert later(lambda: seen.append(client.recv(65536, socket.MSG_PEEK | socket.MSG_DONTWAIT)))
        return [b"hello"]

    class Log:
        def exception(self, message: str, *args: Any) -> None:
            failures.append(message)

    conn = http1.Connection(
        app, server, ("127.0.0.1", 1), ("127.0.0.1", "80"), lambda: True, http1.Timeouts(), Log()
    )
    client.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
    client.shutdown(socket.SHUT_WR)
    conn.serve()
    server.close()
    first, rest = seen[0].split(b"\r\n\r\n", 1)
    assert first.startswith(b"HTTP/1.1 200") and rest == b"hello", "the whole first answer"
    assert len(seen) == 2 and seen[1].count(b"hello") == 2, "then the whole second one"
    assert failures == ["Error after a response"] * 2
    client.close()


def test_while_another_request_is_in_the_app_the_work_is_declined() -> None:
    """A process busy with other requests answers after the bookkeeping, as before (sending
    answers sooner under load cost CPU); open streams are not in the app and do not count."""
    client, server = socket.socketpair()
    taken: list[bool] = []
    in_app: list[int] = []

    def app(env: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Length", "2")])
        in_app.append(http1.Connection.in_app)
        taken.append(env[edge.AFTER_ANSWER_KEY](lambda: None))
        return [b"ok"]

    conn = http1.Connection(
        app, server, ("127.0.0.1", 1), ("127.0.0.1", "80"), lambda: True, http1.Timeouts(), None
    )
    client.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    http1.Connection.in_app += 1  # another request of the process, in the app
    try:
        conn.serve()
    finally:
        http1.Connection.in_app -= 1
    assert (taken, in_app, http1.Connection.in_app) == ([False], [2], 0)
    client.close()
    server.close()


_WELL_FORMED = st.builds(
    lambda name, value: name + b":" + value.encode("latin-1"),
    st.sampled_from([b"Host", b"X-A", b"x-a", b"Content-Length", b"connection", b"X_U", b"Cookie"]),
    st.text(alphabet=st.sampled_from(" \t:a,0Z\xe9~"), max_size=12),
)
_FIELD_BYTES = (
    _WELL_FORMED
    | st.binary(max_size=40)
    | st.sampled_from(
        [
            b"Host: x",
            b"content-length: 12",
            b"Content-Length: 1x",
            b"Connection: close, Keep-Alive",
            b"Transfer-Encoding: chunked",
            b"Expect: 100-continue",
            b"X_Under: 1",
            b"Bad Name: 1",
            b"X-A:\tv\t",
            b"X-A: a\rb",
            b"X-A: \x7f",
            b"no colon",
            b": empty name",
            b"X-B: \xe9t\xe9",
        ]
    )
)


@given(st.lists(_FIELD_BYTES, max_size=10))
@settings(max_examples=500, deadline=None)
def test_fields_vouched_for_at_once_read_as_when_checked_line_by_line(fields: list[bytes]) -> None:
    """``read_fields`` skips the per-line checks when one match of ``_FIELD_LINES`` vouches
    for the whole head: on any head (well-formed or not) both ways give the same environ
    and what the connection reads, or the same refusal."""
    head = b"\r\n".join([b"POST /x HTTP/1.1", *fields])
    lines = head.split(b"\r\n")
    got: list[tuple[object, object]] = []
    for vouch in (True, False):
        env: dict[str, object] = {}
        try:
            found = http1.read_fields(env, head, lines, vouch=vouch)
            got.append((env, found))
        except http1.Refused as refused:
            got.append((refused.status, refused.message))
    assert got[0] == got[1]


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


# ---- time limits on a body and on an answer (service.http1.Timeouts) ------------------------
IO_TIMEOUT, BODY_TIMEOUT = 1.5, 3.0


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(
        tmp_path_factory.mktemp("http1-timeouts"),
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
    """A 408 ``request_timeout`` in the JSON shape, with Connection: close, then the end."""
    status, headers, body, rest = read_answer(s)
    assert _error((status, headers, body), 408) == "request_timeout"
    assert headers["connection"] == "close"
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
    log = impatient.log.read_text()
    assert "it took nothing of its answer for 1.5 s" in log
    assert requests.get(impatient.base + "/healthz", timeout=5).ok


def test_the_time_limits_come_from_the_environment_and_a_bad_one_is_refused() -> None:
    from service import serving

    assert serving.timeouts({}) == http1.Timeouts(header=10.0, body=60.0, io=30.0)
    got = serving.timeouts({"CHRONICLE_IO_TIMEOUT": "2.5", "CHRONICLE_HEADER_TIMEOUT": "4"})
    assert (got.header, got.body, got.io) == (4.0, 60.0, 2.5)
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
