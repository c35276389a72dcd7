"""One HTTP/1.1 connection of an API process, read and answered here (``Connection.serve``).

gunicorn keeps the processes (the master, forking, signals, timeouts, graceful restarts) and
gevent the greenlets; what happens on a connection is this module's: it reads each request's
head, checks it, builds the WSGI environ, calls the app and writes its answer.  gunicorn's
own request parser and response writer took a large share of an API process's CPU under moves
(a ``py-spy`` profile: its parser reads a line at a time through two buffers,
builds a dozen objects a request, formats a date every response and reads its settings
through ``Config.__getattr__``); this reads a head in one search for the blank line and
one split, and a response is one ``send`` when it is short.

**What it accepts** (RFC 9112, strictly; anything else is refused in the contract's JSON
error shape and the connection closed):

- every line of the head ends with CRLF (§2.2): a bare LF or a bare CR anywhere in it is 400
  as soon as it arrives (a head of bare LFs never holds the CRLF CRLF that ends one: it would
  wait for the header timeout); CR and LF bytes before the request line are skipped;
- a request line ``METHOD SP target SP HTTP/1.x``, the target in origin form
  (``/path?query``), absolute form (``http://host/path``), or ``*`` for ``OPTIONS``; at most
  ``LIMIT_REQUEST_LINE`` bytes (else 414);
- header fields ``name: value``, the name a token, the value without control characters;
  at most ``LIMIT_REQUEST_FIELDS`` of them, each at most ``LIMIT_REQUEST_FIELD_SIZE`` bytes,
  the whole head at most ``MAX_HEAD`` (else 431); no obsolete line folding; a name with
  ``_`` is dropped (as gunicorn does: in the environ ``X_Forwarded_For`` would pass for
  ``X-Forwarded-For``);
- one ``Host`` field (§3.2): none is 400 on HTTP/1.1 (HTTP/1.0 may omit it), two are 400 on
  either; its value (possibly empty) and an absolute-form target's authority (never empty)
  are a host (an IPv6 literal in brackets, or a reg-name of RFC 3986 without commas: no
  space, ``@``, ``/`` or comma list) and an optional ``:port`` of digits, else 400.  An
  absolute-form target's authority is the request's ``HTTP_HOST`` (§3.2.2);
- a body by ``Content-Length`` (digits only; repeated, it must agree) or by
  ``Transfer-Encoding: chunked`` (HTTP/1.1 only, never with a ``Content-Length``: that pair
  is how requests are smuggled past a proxy); any other coding is 501;
- in a chunked body, a chunk's size line is hex digits then chunk extensions (§7.1.1), each
  ``;name`` or ``;name=value``, the name a token, the value a token or a quoted-string, SP
  or HTAB allowed around ``;`` and ``=`` and nowhere else; the trailer section's lines are
  header fields (as above, at most ``LIMIT_REQUEST_FIELDS``), then dropped.  Anything else
  (a NUL, a DEL, a bare CR) is the app's 400 when it reads the body, and the connection is
  closed after the answer;
- ``Expect: 100-continue`` (answered at once), any other expectation is 417.

**Time limits** (``Timeouts``; ``service.serving.timeouts()`` reads them from the environment).
A client on a public address may stop half-way on purpose, and each connection it holds is a
greenlet and a slot:

- the head (line and fields) must arrive within ``header`` seconds of the connection or of
  the previous response; a client that sends half a request, or nothing on a kept-alive
  connection, is closed then;
- the body must arrive within ``body`` seconds of its head, and no read of it may wait more
  than ``io`` seconds for a byte: else 408 ``request_timeout``, and the connection is closed
  (a body dripped a byte at a time, or one that stops);
- no write of an answer may wait more than ``io`` seconds for the client to take a byte (the
  socket's timeout, which the stream hub's writes to a watcher's socket have too): a client
  that stops reading is closed, however long a slow reader that keeps reading takes.

The service's own, lower limits on URL and headers (``service.http.edge``) answer first in
practice.

**Fair to the other connections.**  A greenlet runs until it waits.  A request that never
waits (a ``/healthz``, a refusal, a 429), followed by another already read or arriving at
once, would let one connection hold its process for as long as it kept them coming: a
client pipelining a burst of requests held the others up for the whole burst.  So a request
served without the event loop turning is followed by one turn (``FAIR_TURN``) before the
next is read; a request that waited (for Redis, for the client) costs nothing more.

**Bookkeeping after the answer.**  The app may hand work to the server for after its
answer is sent (``AFTER_ANSWER_KEY``: a function; its log line and metrics): the client has
its answer sooner, and the process is still at work when the client's next request comes,
instead of asleep (waking a sleeping process costs more than the bookkeeping): a move and
``/healthz`` are answered sooner at one client (``docs/benchmarks``).  The work runs once the
answer is sent or has failed, before the connection reads its next request.  The server takes
it only while no other request of the process is in the app
(``Connection.in_app``; a stream's body is sent outside the app, so open streams do not
count); else the app does it before answering, as before: sending answers sooner under load
only spread the processes' wake-ups over more turns, which cost more CPU a move and fewer moves
a second (measured: ``docs/benchmarks``).

**What it answers.**  The status and headers the app gives, a ``Date``, and
``Connection: close`` when the connection ends after this answer: the client asked,
HTTP/1.0 without keep-alive, the app said so, the process is stopping, a body was left
unread beyond ``DRAIN`` bytes.  A connection that ends with input left unread (a refused
head, a body the app never read) lingers before it closes (``LINGER``): it stops sending and
drops what still comes, so the client (or a proxy still sending a large body) reads the
whole answer instead of a reset.  A body without ``Content-Length`` is chunked on HTTP/1.1
(streams: each piece the app yields is sent when it comes) and ends the connection on
HTTP/1.0.  ``HEAD`` and 1xx/204/304 answers carry no body.  An error in the app before its
headers are sent is a 500 in the JSON shape (logged); after, the connection is closed.

The environ has what PEP 3333 asks, ``RAW_URI``, ``chronicle.socket`` (the client's socket,
for the stream hub's direct writes: ``service.http.stream.direct_socket``) and
``chronicle.header_bytes`` (the size of the headers as ``service.http.edge.header_bytes``
counts it, counted while they are read, so the edge does not walk the environ again).
"""

from __future__ import annotations

import contextlib
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

import gevent

from service.http.edge import AFTER_ANSWER_KEY, HEADER_BYTES_KEY, error_response

LIMIT_REQUEST_LINE = 8190
LIMIT_REQUEST_FIELD_SIZE = 16384
LIMIT_REQUEST_FIELDS = 200
MAX_HEAD = 64 * 1024  # request line and fields together (the app's own limit is 8 KB of fields)
DRAIN = 64 * 1024  # an unread body up to this is read and dropped; beyond, the connection ends
# Closing a socket with unread bytes in its buffer makes the kernel send RST, which can
# destroy the answer before the client has read it (a proxy that has sent a whole 16 MB
# body then reports 502/503 instead of our 401).  So a connection closed with input left
# unread first shuts its sending side and reads and drops what still comes, for at most
# LINGER seconds and LINGER_BYTES bytes (nginx's ``lingering_close`` does the same).
LINGER = 2.0
LINGER_BYTES = 32 * 1024 * 1024
RECV = 65536
SOCKET_KEY = "chronicle.socket"
# A request served without ever waiting (its next one already read, or arriving at once: a
# client pipelining, or one on loopback) is followed by one turn of the event loop, a timer
# so the sockets are polled in it; else one connection could hold its process for as long as
# it keeps requests coming, and the others wait (``Connection._serve``).
FAIR_TURN = 1e-6

_TOKEN_CHARS = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_REQUEST_LINE = re.compile(b"(" + _TOKEN_CHARS + rb") ([^\x00-\x20\x7f]+) HTTP/(1\.[01])")
_TOKEN = re.compile(_TOKEN_CHARS)
_BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_DIGITS = re.compile(rb"[0-9]{1,18}")
# A chunk's size line (RFC 9112 §7.1.1): hex digits, then chunk extensions, each
# ``BWS ";" BWS name [ BWS "=" BWS value ]``, the name a token, the value a token or a
# quoted-string (no control character but HTAB, no DEL, backslash-escapes only of visible bytes,
# SP, HTAB and obs-text).  Linear: each repeat starts at a ``;``, and a quoted-string's
# alternatives start with different bytes.
_QUOTED = rb'"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"'
_CHUNK_EXT = (
    rb"(?:[ \t]*;[ \t]*" + _TOKEN_CHARS
    + rb"(?:[ \t]*=[ \t]*(?:" + _TOKEN_CHARS + rb"|" + _QUOTED + rb"))?)*"
)  # fmt: skip
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,15})" + _CHUNK_EXT)
_AUTHORITY_END = re.compile(rb"[/?#]")  # in an absolute-form target, after ``scheme://``
# A Host field's value, or an absolute-form target's authority (RFC 9110 §7.2, RFC 3986 §3.2.2):
# an IPv6 literal in brackets or a reg-name (unreserved, %XX and the sub-delims but the comma:
# a comma list is what two Host fields folded into one look like, and no name holds a comma),
# then an optional ``:port``.  Empty is valid in a Host field (a target without an authority).
# Linear: each repeat of the reg-name's loop starts at a ``%``.
_REG_NAME = rb"[0-9A-Za-z._~!$&'()*+;=-]*"
_REG_NAME_PCT = _REG_NAME + rb"(?:%[0-9A-Fa-f]{2}" + _REG_NAME + rb")*"
_HOST = re.compile(rb"(?:\[[0-9A-Fa-f:.]+\]|" + _REG_NAME_PCT + rb")(?::[0-9]*)?")
_HOSTS: set[bytes] = set()  # Host values found valid (a client sends the same one each time)
_NO_BODY = frozenset((204, 304))
_ANSWER_READ = frozenset(("content-length", "connection", "transfer-encoding"))
_SPECIAL = {b"CONTENT-TYPE": "CONTENT_TYPE", b"CONTENT-LENGTH": "CONTENT_LENGTH"}
# Every field line of a head at once, as the checks of ``_check_field`` take them one by one (a
# token, a colon, a value without control characters; lines split at CRLF): a head it matches
# needs no check of each line.  Linear: a value cannot hold the CR that ends its line.
_FIELD = _TOKEN_CHARS + rb":[^\x00-\x08\x0a-\x1f\x7f]*"
_FIELD_LINES = re.compile(_FIELD + rb"(?:\r\n" + _FIELD + rb")*")
_FIELD_LINE = re.compile(_FIELD)  # one trailer field (``Body``), checked as a header field
# The fields the connection reads itself (besides putting them in the environ).
LENGTH, CODING, CONNECTION, EXPECT, HOST = 1, 2, 3, 4, 5
_READ = {
    b"CONTENT-LENGTH": LENGTH,
    b"TRANSFER-ENCODING": CODING,
    b"CONNECTION": CONNECTION,
    b"EXPECT": EXPECT,
    b"HOST": HOST,
}
_NAMES: dict[bytes, tuple[str | None, int]] = {}  # a field's name as sent -> (key, what to read)
NAMES_KEPT = 1024  # names (and valid Host values) remembered at most (a client may send any)


@dataclass(frozen=True)
class Timeouts:
    """Seconds: the head's whole time, the body's whole time, and the longest wait of one read
    of a body or one write of an answer (see the module's docstring)."""

    header: float = 10.0
    body: float = 60.0
    io: float = 30.0


class Refused(Exception):
    """A request this connection cannot serve: answered ``status`` and closed."""

    def __init__(self, status: int, reason: str, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.code, self.message = status, reason, code, message


def _bad(message: str) -> Refused:
    return Refused(400, "Bad Request", "bad_request", message)


class Closed(Exception):
    """The client went away (or sent half a head and stopped): nothing more to answer."""


_date: list[Any] = [0, ""]


def http_date() -> str:
    """The ``Date`` header's value, made once a second."""
    now = int(time.time())
    if _date[0] != now:
        _date[0], _date[1] = now, time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(now))
    return str(_date[1])


def error_bytes(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole answer in the contract's error shape, closing the connection: the edge's."""
    line, headers, body = error_response(status, reason, code, message)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return f"HTTP/1.1 {line}\r\n{head}\r\n".encode("latin-1") + body


class Body:
    """``wsgi.input``: the request's body, read from what the head's read left over and then
    from the socket, by length or chunked; nothing past its end."""

    def __init__(self, conn: Connection, length: int | None, chunked: bool) -> None:
        self.conn, self.left, self.chunked = conn, length or 0, chunked
        self.done = not chunked and not length
        self.broken = False  # cut, malformed or late: the connection is not reused
        self._chunk_left = 0
        self._deadline = time.monotonic() + conn.timeouts.body

    def _more(self) -> None:
        """More of the body from the socket: within the body's deadline, and no wait longer
        than the io timeout (the socket's)."""
        conn = self.conn
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._late()
        short = left < conn.timeouts.io
        try:
            if short:
                conn.sock.settimeout(left)
            data = conn.sock.recv(RECV)
        except TimeoutError:
            raise self._late() from None
        except OSError:
            self.broken = True
            raise
        finally:
            if short:
                conn.sock.settimeout(conn.timeouts.io)
        if not data:
            raise self._cut("the connection closed before the end of the body")
        conn.buf += data

    def _cut(self, message: str) -> Exception:
        """A malformed or cut body, as the app's 400; the connection is not reused."""
        self.broken = True
        return _body_error(message)

    def _late(self) -> Exception:
        self.broken = True
        t = self.conn.timeouts
        return _late_error(
            f"the body did not arrive in time (at most {t.body:g} s in all, "
            f"and no wait over {t.io:g} s for the next byte)"
        )

    def _take(self, n: int) -> bytes:
        """Up to ``n`` (> 0) bytes of the connection's stream, at least one."""
        conn = self.conn
        if not conn.buf:
            self._more()
        data, conn.buf = conn.buf[:n], conn.buf[n:]
        return data

    def _line(self) -> bytes:
        conn = self.conn
        while (i := conn.buf.find(b"\r\n")) < 0:
            if len(conn.buf) > 4096:
                raise self._cut("a chunk's size line or a trailer field is too long")
            self._more()
        line, conn.buf = conn.buf[:i], conn.buf[i + 2 :]
        return line

    def _read1(self, n: int) -> bytes:
        """Some bytes of the body (at most ``n``), b"" at its end."""
        if self.done:
            return b""
        if not self.chunked:
            data = self._take(min(n, self.left))
            self.left -= len(data)
            self.done = self.left == 0
            return data
        if self._chunk_left == 0:
            m = _CHUNK_SIZE.fullmatch(self._line())
            if m is None:
                raise self._cut("a malformed chunk size or chunk extension")
            self._chunk_left = int(m.group(1), 16)
            if self._chunk_left == 0:
                self._trailer()
                self.done = True
                return b""
        data = self._take(min(n, self._chunk_left))
        self._chunk_left -= len(data)
        if self._chunk_left == 0 and self._line():
            raise self._cut("a chunk does not end where its size says")
        return data

    def _trailer(self) -> None:
        """The trailer section, up to its blank line: checked as header fields are, then
        dropped (nothing here reads a trailer)."""
        count = 0
        while line := self._line():
            count += 1
            if count > LIMIT_REQUEST_FIELDS:
                raise self._cut(f"more than {LIMIT_REQUEST_FIELDS} trailer fields")
            if not _FIELD_LINE.fullmatch(line):
                raise self._cut("a malformed trailer field")

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while data := self._read1(RECV):
                parts.append(data)
            return b"".join(parts)
        parts, want = [], size
        while want > 0 and (data := self._read1(want)):
            parts.append(data)
            want -= len(data)
        return b"".join(parts)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        out = bytearray()
        while (size is None or size < 0 or len(out) < size) and (data := self.read(1)):
            out += data
            if data == b"\n":
                break
        return bytes(out)

    def readlines(self, hint: int = -1) -> list[bytes]:
        return list(iter(self.readline, b""))

    def __iter__(self) -> Any:
        return iter(self.readline, b"")

    def drain(self, limit: int) -> bool:
        """Read what is left of the body, up to ``limit`` bytes: whether it all was."""
        if self.broken:
            return False
        try:
            while not self.done and limit > 0:
                limit -= len(self._read1(min(RECV, limit)))
        except Exception:  # a malformed or cut body, the socket gone: no reuse
            return False
        return self.done


@dataclass(slots=True)
class Fields:
    """What the connection reads itself of a head's fields; ``size``: their bytes as
    ``service.http.edge.header_bytes`` counts them in the environ, counted as they are put
    there (so the edge does not walk the environ again)."""

    length: bytes | None = None
    coding: bytes | None = None
    connection: bytes = b""
    expect: bytes = b""
    host: bytes | None = None
    size: int = 0


def _name(name: bytes) -> tuple[str | None, int]:
    """A field's environ key (None for a name with ``_``: in the environ ``X_Forwarded_For``
    would pass for ``X-Forwarded-For``; gunicorn drops it too) and what the connection reads of
    it (``LENGTH``, ..., or 0), for a name not in ``_NAMES`` yet; remembered there for the
    next request, up to ``NAMES_KEPT`` names."""
    upper = name.upper()
    key = None
    if b"_" not in name:
        key = _SPECIAL.get(upper) or "HTTP_" + upper.decode("latin-1").replace("-", "_")
    known = (key, _READ.get(upper, 0))
    if len(_NAMES) < NAMES_KEPT:
        _NAMES[name] = known
    return known


def _check_field(line: bytes) -> None:
    """Refuse a field line that is too long or malformed, or whose value holds a control
    character: what ``_FIELD_LINES`` vouches for at once."""
    if len(line) > LIMIT_REQUEST_FIELD_SIZE:
        raise _too_large(f"a header field is over {LIMIT_REQUEST_FIELD_SIZE} bytes")
    name, sep, value = line.partition(b":")
    if not sep or not _TOKEN.fullmatch(name):
        raise _bad("a malformed header field")
    if _BAD_VALUE.search(value):
        raise _bad("a control character in a header field's value")


def read_fields(env: dict[str, Any], head: bytes, lines: list[bytes], vouch: bool = True) -> Fields:
    """The field lines of ``head`` (``lines[1:]``; ``lines`` is the head split at CRLF) into
    ``env`` by their CGI names (repeated ones joined by commas), and what the connection reads
    of them.  The lines are checked one by one (``_check_field``) unless ``_FIELD_LINES``
    vouches for all of them at once (``vouch``), as it does for any well-formed head; both
    ways give the same environ and the same refusals (``tests/reliability/test_http1.py``)."""
    found = Fields()
    vouched = (
        vouch
        and max(map(len, lines)) <= LIMIT_REQUEST_FIELD_SIZE
        and _FIELD_LINES.fullmatch(head, len(lines[0]) + 2) is not None
    )
    for i in range(1, len(lines)):
        line = lines[i]
        if not vouched:
            _check_field(line)
        name, _, value = line.partition(b":")
        key, read = _NAMES.get(name) or _name(name)
        value = value.strip(b" \t")
        if read:
            if read == LENGTH:
                if not _DIGITS.fullmatch(value) or (
                    found.length is not None and value != found.length
                ):
                    raise _bad("an invalid Content-Length")
                found.length = value
            elif read == CODING:
                coding = value.lower()
                found.coding = coding if found.coding is None else found.coding + b"," + coding
            elif read == CONNECTION:
                found.connection += b"," + value.lower()
            elif read == HOST:
                if found.host is not None:
                    raise _bad("more than one Host field")
                found.host = value
            else:
                found.expect = value.lower()
        if key is None:
            continue
        text = value.decode("latin-1")
        if key in env:
            env[key] = env[key] + "," + text
            found.size += 1 + len(text)
        else:
            env[key] = text
            found.size += len(name) + len(text) + 4
    return found


class Connection:
    """A client connection: its requests one after another (``serve``)."""

    in_app = 0  # requests of this process in the app (a stream's body is sent outside it)

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        sock: Any,
        addr: Any,
        server: tuple[str, str],
        alive: Callable[[], bool],
        timeouts: Timeouts,
        log: Any,
        counted: Callable[[], None] = lambda: None,
    ) -> None:
        self.app, self.sock, self.server, self.alive = app, sock, server, alive
        self.timeouts, self.log, self.counted = timeouts, log, counted
        self.remote = (str(addr[0]), str(addr[1])) if isinstance(addr, tuple) else ("", "")
        self.buf = b""
        self._timer: Any = None  # the head's time limit (``_head``), closed by ``serve``
        self._base: dict[str, Any] = {  # every request's environ starts as a copy of this
            "SCRIPT_NAME": "",
            "SERVER_NAME": server[0],
            "SERVER_PORT": server[1],
            "REMOTE_ADDR": self.remote[0],
            "REMOTE_PORT": self.remote[1],
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            SOCKET_KEY: sock,
        }

    # ---- reading a head -----------------------------------------------------------------
    def _head(self) -> bytes | None:
        """The next request's head (without its blank line), or None if the client closed
        or the header timeout passed before a whole head came.  Each byte is searched once
        (a client sending a byte at a time must not cost a search of everything so far), and
        a head is at most ``MAX_HEAD`` bytes."""
        timer = self._timer  # one per connection, started for each head: cheaper than a new one
        if timer is None:
            timer = self._timer = gevent.Timeout(self.timeouts.header)
        timer.start()
        try:
            buf = self.buf.lstrip(b"\r\n") if self.buf[:1] in (b"\r", b"\n") else self.buf
            searched, line_end = 0, -1
            while True:
                if (end := buf.find(b"\r\n\r\n", max(0, searched - 3))) >= 0:
                    if end > MAX_HEAD:  # its last read brought the rest of a head too long
                        raise _too_large(f"the request's head is over {MAX_HEAD} bytes")
                    self.buf = buf[end + 4 :]
                    return buf[:end]  # a bare LF or CR in it fails the line's check (_environ)
                # No end yet: a bare LF or CR in the bytes new since the last look (a CR last
                # may yet be followed by its LF) means this head can never end as it must.
                start = max(0, searched - 1)
                crlf = buf.count(b"\r\n", start)
                if buf.count(b"\n", searched) != crlf or buf.count(b"\r", start, -1) != crlf:
                    raise _bad("a bare LF or CR in the request's head (its lines end with CRLF)")
                if line_end < 0:
                    line_end = buf.find(b"\r\n", max(0, searched - 1))
                if (line_end if line_end >= 0 else len(buf)) > LIMIT_REQUEST_LINE:
                    message = f"the request line is over {LIMIT_REQUEST_LINE} bytes"
                    raise Refused(414, "URI Too Long", "uri_too_long", message)
                if len(buf) > MAX_HEAD:
                    raise _too_large(f"the request's head is over {MAX_HEAD} bytes")
                searched = len(buf)
                data = self.sock.recv(RECV)
                if not data:
                    self.buf = b""
                    return None
                buf += data
                if not searched:  # blank lines before a request line are ignored (RFC 9112)
                    buf = buf.lstrip(b"\r\n")
        except gevent.Timeout as t:
            if t is not timer:
                raise
            return None
        finally:
            timer.cancel()

    def _environ(self, head: bytes) -> tuple[dict[str, Any], Body, bool, bool]:
        """The environ of ``head``, its body, whether the client lets the connection live on,
        and whether it waits for a 100 Continue."""
        lines = head.split(b"\r\n")
        m = _REQUEST_LINE.fullmatch(lines[0])
        if m is None:
            raise _bad("a malformed request line")
        method, target, version = m.groups()
        if len(lines) - 1 > LIMIT_REQUEST_FIELDS:
            raise _too_large(f"more than {LIMIT_REQUEST_FIELDS} header fields")
        env = self._base.copy()
        found = read_fields(env, head, lines)
        path, query, authority = self._target(method, target)
        host = found.host
        if host is None:
            if version == b"1.1":
                raise _bad("an HTTP/1.1 request without a Host field")
        elif host not in _HOSTS:
            if not _HOST.fullmatch(host):
                raise _bad("an invalid Host field")
            if len(_HOSTS) < NAMES_KEPT:
                _HOSTS.add(host)
        if authority is not None:  # absolute form: its authority is the host (RFC 9112 §3.2.2)
            if not authority or authority[:1] == b":" or not _HOST.fullmatch(authority):
                raise _bad("an invalid authority in the request target")
            env["HTTP_HOST"] = authority.decode("latin-1")
            found.size += len(authority) - len(host) if host is not None else len(authority) + 8
        length, coding, expect = found.length, found.coding, found.expect
        chunked = False
        if coding is not None:
            if length is not None:
                raise _bad("both Content-Length and Transfer-Encoding")
            if version != b"1.1" or coding != b"chunked":
                message = "the only transfer coding accepted is chunked (HTTP/1.1)"
                raise Refused(501, "Not Implemented", "bad_request", message)
            chunked = True
        if expect and (expect != b"100-continue" or version != b"1.1"):
            raise Refused(417, "Expectation Failed", "bad_request", "unsupported Expect")
        if found.connection:
            tokens = {t.strip() for t in found.connection.split(b",")}
            keep = b"close" not in tokens if version == b"1.1" else b"keep-alive" in tokens
        else:
            keep = version == b"1.1"
        size = int(length) if length is not None else None
        body = Body(self, size, chunked)
        env["REQUEST_METHOD"] = method.decode("latin-1")
        env["PATH_INFO"] = path
        env["QUERY_STRING"] = query
        env["RAW_URI"] = target.decode("latin-1")
        env["SERVER_PROTOCOL"] = "HTTP/1.1" if version == b"1.1" else "HTTP/1.0"
        env["wsgi.input"] = body
        env[HEADER_BYTES_KEY] = found.size
        return env, body, keep, expect == b"100-continue" and (chunked or bool(size))

    @staticmethod
    def _target(method: bytes, target: bytes) -> tuple[str, str, bytes | None]:
        """The path and query of ``target``, and its authority if it is in absolute form."""
        authority = None
        if target[:1] != b"/":
            lower = target[:8].lower()
            if lower.startswith((b"http://", b"https://")):
                rest = target.split(b"//", 1)[1]
                end = m.start() if (m := _AUTHORITY_END.search(rest)) else len(rest)
                authority, target = rest[:end], rest[end:]
                if target[:1] != b"/":
                    target = b"/" + target
            elif target == b"*" and method == b"OPTIONS":
                return "*", "", None
            else:
                raise _bad("the request target must be a path")
        path, _, query = target.partition(b"?")
        if b"#" in target:
            query = query.partition(b"#")[0]
            path = path.partition(b"#")[0]
        if b"%" in path:
            path = unquote_to_bytes(path)
        return path.decode("latin-1"), query.decode("latin-1"), authority

    # ---- the loop -------------------------------------------------------------------------
    def serve(self) -> None:
        try:
            if self._serve():
                self._linger()
        finally:
            if self._timer is not None:
                self._timer.close()

    def _linger(self) -> None:
        """Close gracefully after an answer that left input unread (``LINGER``): the
        client reads the whole answer before the connection goes."""
        sock = self.sock
        deadline = time.monotonic() + LINGER
        left = LINGER_BYTES
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
            while left > 0 and (wait := deadline - time.monotonic()) > 0:
                sock.settimeout(wait)
                data = sock.recv(RECV)
                if not data:
                    return
                left -= len(data)

    def _serve(self) -> bool:
        """Serve requests until the connection ends: whether it ends with input left unread
        (a refused head, or a body the app did not read), so that it should linger."""
        sock, io = self.sock, self.timeouts.io
        loop = gevent.get_hub().loop
        turn = -1  # the event loop's iteration when this connection's last request began
        while True:
            if loop.iteration == turn:  # that request never waited: let the others run
                gevent.sleep(FAIR_TURN)
            turn = loop.iteration
            sock.settimeout(None)  # the head's reads: its own timer bounds them all
            try:
                head = self._head()
                if head is None:
                    return False
                env, body, keep, cont = self._environ(head)
                self.counted()
            except Refused as r:
                self.log.warning("Invalid request from ip=%s: %s", self.remote[0], r.message)
                sock.settimeout(io)  # the refusal too: its client may not be reading
                self._send_quietly(error_bytes(r.status, r.reason, r.code, r.message))
                return True
            except OSError:
                return False
            sock.settimeout(io)  # from here each read of the body and write of the answer
            if cont:
                try:
                    self._send(b"HTTP/1.1 100 Continue\r\n\r\n")
                except OSError:
                    return False
            try:
                keep = self._respond(env, body, keep) and keep
            except Closed:
                return False
            if not keep or not self.alive():
                return not body.done
            if not body.done and not body.drain(DRAIN):
                return True

    def _send(self, data: bytes) -> None:
        """All of ``data``, with the io timeout on each wait for the client to take more, not
        on the whole (gevent's ``sendall`` bounds the whole answer by the socket's timeout,
        and asks the socket's buffer size first): a slow reader gets a long answer as long as
        it keeps reading; one that stops is closed (``TimeoutError``, an ``OSError``)."""
        send = self.sock.send
        try:
            sent = send(data)
            if sent < len(data):
                view = memoryview(data)
                while sent < len(view):
                    sent += send(view[sent:])
        except TimeoutError:
            self.log.warning(
                "Closing a connection from ip=%s: it took nothing of its answer for %g s",
                self.remote[0], self.timeouts.io,
            )  # fmt: skip
            raise

    def _send_quietly(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            self._send(data)

    def _respond(self, env: dict[str, Any], body: Body, keep: bool) -> bool:
        """Call the app for ``env`` and send its answer: whether the connection may serve
        another request after it."""
        state: dict[str, Any] = {}
        head_only = env["REQUEST_METHOD"] == "HEAD"
        http11 = env["SERVER_PROTOCOL"] == "HTTP/1.1"

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Any:
            if exc_info is not None and state.get("sent"):
                raise exc_info[1].with_traceback(exc_info[2])
            state["status"], state["headers"] = status, headers
            return write

        def head(first: bytes) -> bytes:
            status = state["status"]
            code = int(status[:3])
            length = None
            # a body left unread past what a drain takes (a refusal before a large body) ends
            # the connection: the answer says so, so that no client sends on it again
            unread = not body.done and (body.chunked or body.left > DRAIN)
            stay = keep and self.alive() and not body.broken and not unread
            fields = []
            for name, value in state["headers"]:
                lower = name.lower()
                if lower in _ANSWER_READ:  # the fields this connection reads or writes itself
                    if _broken(value):
                        raise ValueError(f"a response header with a line break: {name!r}")
                    if lower == "content-length":
                        length = int(value)
                    else:
                        if lower == "connection":
                            stay = stay and "close" not in value.lower()
                        continue
                fields.append(f"{name}: {value}\r\n")
            text = "".join(fields)
            if text.count("\n") != len(fields) or text.count("\r") != len(fields):
                name = next(n for n, v in state["headers"] if _broken(n) or _broken(v))
                raise ValueError(f"a response header with a line break: {name!r}")
            bodiless = head_only or code in _NO_BODY or code < 200
            chunked = False
            if length is None and not bodiless:
                if http11:
                    chunked = True
                    text += "Transfer-Encoding: chunked\r\n"
                else:
                    stay = False
            if not stay:
                text += "Connection: close\r\n"
            elif not http11:
                text += "Connection: keep-alive\r\n"
            state.update(sent=True, chunked=chunked, bodiless=bodiless, length=length, stay=stay)
            state["count"] = 0
            line = f"HTTP/1.1 {status}\r\n{text}Date: {http_date()}\r\n\r\n"
            return line.encode("latin-1") + frame(first)

        def frame(data: bytes) -> bytes:
            if not data or state["bodiless"]:
                return b""
            if state["chunked"]:
                return b"%X\r\n%s\r\n" % (len(data), data)
            length = state["length"]
            if length is not None:
                data = data[: max(0, length - state["count"])]
            state["count"] += len(data)
            return data

        def write(data: bytes) -> None:
            out = frame(data) if state.get("sent") else head(data)
            if out:
                self._send(out)

        result: Iterable[bytes] | None = None
        after: list[Callable[[], Any]] = []

        def later(work: Callable[[], Any]) -> bool:
            """Take ``work`` for after the answer if no other request of this process is in
            the app (see the module's docstring); else the app does it now."""
            if Connection.in_app > 1:
                return False
            after.append(work)
            return True

        env[AFTER_ANSWER_KEY] = later
        try:
            Connection.in_app += 1
            try:
                result = self.app(env, start_response)
            finally:
                Connection.in_app -= 1
            for data in result:
                if data:
                    write(data)
            if not state.get("sent"):
                self._send(head(b""))
            elif state["chunked"]:
                self._send(b"0\r\n\r\n")
        except OSError as e:
            raise Closed() from e
        except Exception:
            # the path only: a query string may carry a stream ticket
            self.log.exception("Error handling request %s", env["PATH_INFO"][:200])
            if not state.get("sent"):
                self._send_quietly(
                    error_bytes(
                        500,
                        "Internal Server Error",
                        "internal",
                        "internal error; it has been logged",
                    )
                )
            raise Closed() from None
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    self.log.exception("Error closing a response")
            for work in after:  # the request's bookkeeping, once its answer is on its way
                try:
                    work()
                except Exception:
                    self.log.exception("Error after a response")
        length = state.get("length")
        complete = length is None or state.get("bodiless") or state.get("count") == length
        return bool(state.get("stay")) and bool(complete)


def _broken(text: str) -> bool:
    return "\r" in text or "\n" in text


def _body_error(message: str) -> Exception:
    """A malformed or cut body, as the app's 400 (``werkzeug``'s ``BadRequest``, imported here
    and not at the top: gunicorn's master imports this module before gevent's patch)."""
    from werkzeug.exceptions import BadRequest

    return BadRequest(message)


def _late_error(message: str) -> Exception:
    """A body that did not come in time, as the app's 408 (``request_timeout``)."""
    from werkzeug.exceptions import RequestTimeout

    return RequestTimeout(message)


def _too_large(message: str) -> Refused:
    return Refused(431, "Request Header Fields Too Large", "headers_too_large", message)
