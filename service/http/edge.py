"""The request's edges, checked before Flask sees it, where gunicorn's parser leaves them to
the application (``docs/adr/0001-http-server.md``):

- **Host** (RFC 9112 §3.2): an HTTP/1.1 request must carry exactly one ``Host``, and it (and
  an absolute target's authority) must be a host with an optional port.  gunicorn accepts a
  request without one and joins repeated fields with ``,``, which no valid host holds, so a
  doubled ``Host`` is refused here too.  And a body must be plainly chunked, in HTTP/1.1
  only (§6.1).  400 ``bad_request``, and the connection is closed.
- **Sizes**: a URL over ``MAX_URL`` bytes is 414 ``uri_too_long``, request headers over
  ``MAX_HEADERS`` bytes in all are 431 ``headers_too_large`` (gunicorn's own limits are set
  above these: ``service.gunicorn_conf``).
- **Slow clients**: no read of a body or write of an answer may wait more than
  ``CHRONICLE_IO_TIMEOUT`` seconds for the client (the socket's timeout), and a body must
  arrive within ``CHRONICLE_BODY_TIMEOUT`` of the request: else 408 ``request_timeout``.  A
  body gunicorn cannot read (a malformed chunk, extension or trailer; cut short) is 400.
  After either, the connection is closed once the answer is sent.

All in the contract's JSON error shape.  Under another server (the tests' werkzeug servers)
there is no ``gunicorn.socket``: the time limits are that server's.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext, suppress
from typing import Any

import gevent
from gevent import monkey
from gunicorn.http.errors import ParseException
from werkzeug.exceptions import BadRequest, RequestTimeout

from service.serving import timeouts

MAX_URL = 4096  # bytes of path and query string together
MAX_HEADERS = 8192  # bytes of every request header, names and values, together
LINGER_BYTES = 64 * 1024  # unread body drained before a close, so the answer is not reset
CLOSE_KEY = "chronicle.close"  # set when the connection must close after this answer
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+;=-]+)(?::[0-9]*)?")
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)")


def error_response(status: int, reason: str, code: str, message: str) -> tuple[str, list, bytes]:
    body = json.dumps({"error": {"code": code, "message": message, "details": {}}}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    return f"{status} {reason}", headers, body


def header_bytes(environ: dict[str, Any]) -> int:
    total = 0
    for key, value in environ.items():
        if key.startswith("HTTP_") or key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            total += len(key) - (5 if key.startswith("HTTP_") else 0) + len(str(value)) + 4
    return total


def framing_problem(environ: dict[str, Any]) -> str | None:
    """Why the request's ``Host`` (or its absolute target's authority) is refused, or its
    framing: ``Transfer-Encoding`` in an HTTP/1.0 request (RFC 9112 §6.1: faulty framing;
    gunicorn reads it as chunked), or a coding besides chunked (gunicorn passes ``gzip,
    chunked`` on; the app decodes none)."""
    host = environ.get("HTTP_HOST")
    http10 = environ.get("SERVER_PROTOCOL") == "HTTP/1.0"
    coding = environ.get("HTTP_TRANSFER_ENCODING")
    if coding is not None and (http10 or coding.strip().lower() != "chunked"):
        return "Transfer-Encoding: only chunked, and only in HTTP/1.1"
    if host is None:
        return None if http10 else "an HTTP/1.1 request needs a Host"
    if host and not _HOST.fullmatch(host):
        return "Host must be one host, with an optional port"
    target = environ.get("RAW_URI", "")
    absolute = None if target.startswith("/") else _ABSOLUTE.match(target)
    if absolute and not _HOST.fullmatch(absolute.group(1)):
        return "an absolute target must name one host, with an optional port"
    return None


class TimedInput:
    """``wsgi.input`` within the body timeout, gunicorn's read errors as werkzeug's.  Each
    wait for a byte is bounded by the socket's (io) timeout; the body as a whole, under
    gevent, by a ``gevent.Timeout`` for what is left of the body's time (a body dripped a
    byte at a time never waits long for one byte)."""

    def __init__(self, environ: dict[str, Any], body: float) -> None:
        self.environ, self.raw = environ, environ["wsgi.input"]
        self.deadline = time.monotonic() + body

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            with _whole(left):
                return method(*args)
        except TimeoutError:
            self.environ[CLOSE_KEY] = True
            raise RequestTimeout("the body did not arrive in time") from None
        except (ParseException, OSError) as exc:  # gunicorn's NoMoreData is an OSError
            self.environ[CLOSE_KEY] = True
            raise BadRequest(f"the body could not be read: {type(exc).__name__}") from None

    def read(self, size: int | None = None) -> bytes:
        return self._call(self.raw.read, size)

    def readline(self, size: int | None = None) -> bytes:
        return self._call(self.raw.readline, size)

    def readlines(self, hint: int | None = None) -> list[bytes]:
        return self._call(self.raw.readlines, hint)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")


class Closing:
    """An answer after which the connection ends: once it is sent, the socket is shut for
    writing, what the client still sends of its body is drained (up to ``LINGER_BYTES``,
    briefly) so that closing does not reset the connection under the answer, and the read
    side is shut, which ends gunicorn's loop over the connection's requests."""

    def __init__(self, body: Iterable[bytes], sock: Any) -> None:
        self.body, self.sock = body, sock

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            with suppress(OSError):
                self.sock.shutdown(socket.SHUT_WR)
                self.sock.settimeout(0.2)
                drained = 0
                while drained < LINGER_BYTES and (got := self.sock.recv(65536)):
                    drained += len(got)
            with suppress(OSError):
                self.sock.shutdown(socket.SHUT_RD)


class EdgeLimits:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        limits = timeouts()
        self.body, self.io = limits["body"], limits["io"]

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get("gunicorn.socket")
        if sock is not None and sock.gettimeout() != self.io:
            sock.settimeout(self.io)  # once per connection: writes, and reads of a body
        url = len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", "")) + 1
        refused = None
        if problem := framing_problem(environ):
            refused = error_response(400, "Bad Request", "bad_request", problem)
            environ[CLOSE_KEY] = True
        elif url > MAX_URL:
            refused = error_response(
                414, "URI Too Long", "uri_too_long",
                f"the URL is {url} bytes long; at most {MAX_URL}",
            )  # fmt: skip
        elif (size := header_bytes(environ)) > MAX_HEADERS:
            refused = error_response(
                431, "Request Header Fields Too Large", "headers_too_large",
                f"the request headers are {size} bytes long; at most {MAX_HEADERS}",
            )  # fmt: skip
        if refused is None:
            if sock is not None and _has_body(environ):
                environ["wsgi.input"] = TimedInput(environ, self.body)
            result = self.app(environ, start_response)
        else:
            status, headers, body = refused
            start_response(status, headers)
            result = [body]
        if sock is not None and environ.get(CLOSE_KEY):
            return Closing(result, sock)
        return result


def _whole(seconds: float) -> Any:
    """A bound on a whole read under gevent (its greenlets' sockets); else none: a threaded
    server's socket timeout bounds each wait."""
    if monkey.is_module_patched("socket"):
        return gevent.Timeout(seconds, TimeoutError)
    return nullcontext()


def _has_body(environ: dict[str, Any]) -> bool:
    return environ.get("CONTENT_LENGTH", "0") not in ("", "0") or (
        "HTTP_TRANSFER_ENCODING" in environ
    )
