"""HTTP/1.1 framing as a client on the internet may send it (issue 33), tried black-box on raw
sockets against a `chronicle serve` process: ``Host`` (RFC 9112 §3.2, §3.2.2), line endings
(§2.2) and chunk extensions and trailers (§7.1.1, §7.1.2).

Nothing here knows which HTTP server `serve` runs: only the bytes on the wire.  A refusal is a
400 in the contract's JSON error shape, and the connection ends after it.  Every read waits at
most ``WAIT`` seconds, well below the server's header timeout (10 s by default): a server
that waits for more of a head it should refuse fails the test at once instead of timing out.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from tests.reliability.served import Served, served

WAIT = 3.0  # seconds: each read of an answer (the server's header timeout is 10 s)


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(tmp_path_factory.mktemp("framing"), CHRONICLE_CREATE_QUOTA="off") as s:
        yield s


QUICK_HEADERS = 2  # seconds: the header timeout of ``quick_headers``


@pytest.fixture(scope="module")
def quick_headers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("framing-quick")
    with served(tmp, CHRONICLE_HEADER_TIMEOUT=str(QUICK_HEADERS)) as s:
        yield s


class Answer:
    """One answer read off a socket, and whether the server closed the connection after it."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes, closed: bool) -> None:
        self.status, self.headers, self.body, self.closed = status, headers, body, closed

    def json(self) -> dict:
        loaded = json.loads(self.body)
        assert isinstance(loaded, dict)
        return loaded


def _recv(s: socket.socket, what: str) -> bytes:
    try:
        return s.recv(65536)
    except TimeoutError:
        pytest.fail(f"no {what} within {WAIT} s: the server waits for more instead of answering")


def exchange(port: int, data: bytes) -> Answer:
    """Send ``data`` (the write side stays open, as a client waiting for its answer keeps
    it), read one answer by its ``Content-Length``, then see whether the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
        s.sendall(data)
        buf = b""
        while b"\r\n\r\n" not in buf:
            got = _recv(s, "answer")
            assert got, f"closed without an answer (after {buf!r})"
            buf += got
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])
        }
        length = int(headers["content-length"])
        while len(body) < length:
            got = _recv(s, "whole body")
            assert got, "closed before the whole body"
            body += got
        closed = False
        deadline = time.monotonic() + WAIT
        while not closed and time.monotonic() < deadline:
            try:
                closed = s.recv(65536) == b""
            except ConnectionResetError:
                closed = True
            except TimeoutError:
                break
        return Answer(status, headers, body[:length], closed)


def refused(port: int, data: bytes) -> Answer:
    """``data`` answered 400 in the contract's JSON error shape, and the connection closed."""
    got = exchange(port, data)
    assert got.status == 400, (got.status, got.body)
    assert got.headers["content-type"].startswith("application/json")
    error = got.json()["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert error["code"] == "bad_request" and error["message"], error
    assert got.closed, "the connection stayed open after a refusal"
    return got


def served_ok(port: int, data: bytes, status: int = 200) -> Answer:
    got = exchange(port, data)
    assert got.status == status, (got.status, got.body)
    return got


# ---- Host (RFC 9112 §3.2) ------------------------------------------------------------------
@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"GET /healthz HTTP/1.1\r\n\r\n", id="http11-without-host"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n", id="two-hosts-same"),
        pytest.param(
            b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nhost: b\r\n\r\n", id="two-hosts"
        ),
        pytest.param(b"GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", id="http10-two"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: a, b\r\n\r\n", id="host-list"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: a,b\r\n\r\n", id="host-list-no-space"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n", id="host-with-space"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: a/b\r\n\r\n", id="host-with-slash"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: u@a\r\n\r\n", id="host-with-userinfo"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: a:8o\r\n\r\n", id="host-bad-port"),
        pytest.param(b"GET /healthz HTTP/1.0\r\nHost: a b\r\n\r\n", id="http10-bad-host"),
        pytest.param(b"GET http://x/healthz HTTP/1.1\r\n\r\n", id="absolute-without-host"),
        pytest.param(b"GET http://x/healthz HTTP/1.1\r\nHost: a b\r\n\r\n", id="absolute-bad"),
        pytest.param(b"GET http:///healthz HTTP/1.1\r\nHost: x\r\n\r\n", id="absolute-no-host"),
        pytest.param(b"GET http://u@x/healthz HTTP/1.1\r\nHost: x\r\n\r\n", id="absolute-user"),
        pytest.param(b"GET http://x,y/healthz HTTP/1.1\r\nHost: x\r\n\r\n", id="absolute-list"),
    ],
)
def test_a_request_without_exactly_one_valid_host_is_refused(serve: Served, head: bytes) -> None:
    refused(serve.port, head)


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", id="one-host"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nhost:127.0.0.1:8000\r\n\r\n", id="host-port"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", id="host-ipv6"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: api.example-1.org\r\n\r\n", id="name"),
        pytest.param(b"GET /healthz HTTP/1.0\r\n\r\n", id="http10-without-host"),
        pytest.param(b"GET http://x:1/healthz HTTP/1.1\r\nHost: y\r\n\r\n", id="absolute"),
    ],
)
def test_a_request_with_one_valid_host_is_served(serve: Served, head: bytes) -> None:
    assert served_ok(serve.port, head).json()["status"] == "ok"


# ---- line endings (RFC 9112 §2.2) -----------------------------------------------------------
@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"GET /healthz HTTP/1.1\nHost: x\n\n", id="bare-lf"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\n\n", id="bare-lf-in-fields"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\n", id="bare-lf-in-a-field"),
        pytest.param(b"GET /healthz HTTP/1.1\nHost: x", id="bare-lf-half-a-head"),
        pytest.param(b"GET /healthz HTTP/1.1\rHost: x\r\r\n\r\n", id="bare-cr"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\rX-A: 1\r\n\r\n", id="bare-cr-in-a-field"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", id="cr-in-value"),
    ],
)
def test_a_head_with_a_bare_lf_or_cr_is_refused_at_once(serve: Served, head: bytes) -> None:
    """A bare CR is judged when its line ends (its CRLF has come): gunicorn reads a line
    up to its CRLF (see the test below for a line that never gets one)."""
    started = time.monotonic()
    refused(serve.port, head)
    assert time.monotonic() - started < WAIT + 1


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"GET /healthz HTTP/1.1\rHost: x\r\r", id="bare-cr"),
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\rX-A: 1\r", id="bare-cr-in-a-field"),
    ],
)
def test_a_line_with_a_bare_cr_and_no_crlf_is_never_served(
    quick_headers: Served, head: bytes
) -> None:
    """gunicorn waits for a line's CRLF before it judges the line: a head whose bare CRs never
    get one is closed at the header timeout without an answer (never served, nothing
    smuggled; the wait costs a greenlet, as any slow head does)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", quick_headers.port), timeout=WAIT + 3) as s:
        s.sendall(head)
        try:
            got = s.recv(65536)
        except ConnectionResetError:
            got = b""
    assert got == b"", got[:200]
    assert time.monotonic() - started < QUICK_HEADERS + 2


def test_a_head_sent_in_pieces_split_inside_its_crlfs_is_served(serve: Served) -> None:
    """A CR at the end of one segment and its LF at the start of the next are one CRLF."""
    pieces = [b"GET /healthz HTTP/1.1\r", b"\nHost: x\r", b"\n\r", b"\n"]
    with socket.create_connection(("127.0.0.1", serve.port), timeout=WAIT) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for piece in pieces:
            s.sendall(piece)
            time.sleep(0.05)
        answer = b""
        while b"\r\n\r\n" not in answer:
            got = _recv(s, "answer")
            assert got, answer
            answer += got
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


# ---- chunk extensions and trailers (RFC 9112 §7.1.1, §7.1.2) --------------------------------
DOC = json.dumps({"game": "artus", "players": [{"name": "a"}, {"name": "b"}]}).encode()
CHUNKED = (
    b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)


def chunked(ext: bytes = b"", trailer: bytes = b"", last_ext: bytes = b"") -> bytes:
    """A game's creation as a chunked body in two chunks, ``ext`` after the first's size and
    ``last_ext`` after the last's, ``trailer`` as its trailer section."""
    half = len(DOC) // 2
    return CHUNKED + b"%X%s\r\n%s\r\n%X\r\n%s\r\n0%s\r\n%s\r\n" % (
        half, ext, DOC[:half], len(DOC) - half, DOC[half:], last_ext, trailer,
    )  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(chunked(b";a\x00"), id="nul-in-name"),
        pytest.param(chunked(b";a=b\x00"), id="nul-in-value"),
        pytest.param(chunked(b";a=\x7f"), id="del-in-value"),
        pytest.param(chunked(b";a=b\rc"), id="bare-cr-in-value"),
        pytest.param(chunked(b';a="b\x00c"'), id="nul-in-quoted"),
        pytest.param(chunked(b';a="b\rc"'), id="bare-cr-in-quoted"),
        pytest.param(chunked(b';a="b'), id="unclosed-quote"),
        pytest.param(chunked(b";"), id="no-name"),
        pytest.param(chunked(b";a="), id="no-value"),
        pytest.param(chunked(b";a b"), id="two-words"),
        pytest.param(chunked(b";a=b c"), id="value-with-space"),
        pytest.param(chunked(b" "), id="space-without-extension"),
        pytest.param(chunked(last_ext=b";a=\x7f"), id="del-on-the-last-chunk"),
        pytest.param(chunked(trailer=b"X-T: a\x00b\r\n"), id="nul-in-a-trailer"),
        pytest.param(chunked(trailer=b"X-T: a\rb\r\n"), id="bare-cr-in-a-trailer"),
        pytest.param(chunked(trailer=b"no colon\r\n"), id="trailer-without-colon"),
        pytest.param(chunked(trailer=b"X-T: 1\r\n folded\r\n"), id="folded-trailer"),
        pytest.param(chunked(trailer=b"X T: 1\r\n"), id="trailer-name-with-space"),
    ],
)
def test_a_malformed_chunk_extension_or_trailer_is_refused(serve: Served, body: bytes) -> None:
    refused(serve.port, body)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(chunked(), id="plain"),
        pytest.param(chunked(b";name=value"), id="token-value"),
        pytest.param(chunked(b';name="quoted value"'), id="quoted-value"),
        pytest.param(chunked(b";flag"), id="name-only"),
        pytest.param(chunked(b' ; a = "q\\"\\\\ \t\xe9" ;b;c=1'), id="bws-escapes-several"),
        pytest.param(chunked(last_ext=b";done=yes"), id="on-the-last-chunk"),
        pytest.param(chunked(trailer=b"X-T: 1\r\nX-U:\tv\xe9\t\r\n"), id="trailers"),
    ],
)
def test_a_chunked_body_with_valid_extensions_and_trailers_is_served(
    serve: Served, body: bytes
) -> None:
    got = served_ok(serve.port, body, 201)
    assert got.json()["game"] == "artus"
