"""How the API is served: gunicorn with its gevent worker, adapted (``Worker``).

**Why gevent.**  A long-poll, a stream or a client that sends its headers slowly spends almost
all its life waiting.  Under a thread per request (gunicorn's ``gthread``, 8 threads a
process) each such wait holds a thread: 16 spectators long-polling filled a two-process server
and everyone else waited (issue 10).  Under gevent a waiting connection is a greenlet (a few
KB), the stdlib is patched at the start of each worker process (before the app is imported:
gunicorn's ``GeventWorker.patch``, run first in ``init_process``), so redis-py, the locks and
conditions of ``service.stream`` and the sockets all yield instead of blocking.  The figures
that decided it are in the README (``python -m bench.edge``).

What this class adds to gunicorn's worker:

- **A header timeout.**  A request's line and headers must arrive within
  ``CHRONICLE_HEADER_TIMEOUT`` seconds (default 10) of the connection or of the previous
  response on a kept-alive connection; a client that sends half a request is closed then.
- **JSON errors.**  What gunicorn refuses itself (a request line over its limit, a header field
  over its limit, a malformed request) is answered in the contract's JSON error shape, not
  gunicorn's HTML page.  ``service.http.edge`` answers the usual limits before that.

This module imports gunicorn and gevent only (not the service): gunicorn's master imports it,
and the service must first be imported in the worker, after the patch.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors, wsgi
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service.balance import Balance, BalancedServer, Slots

HEADER_TIMEOUT = 10.0
WORKER_CONNECTIONS = 10_000
# gunicorn's own limits, above the application's (service.http.edge: 4 KB URL, 8 KB headers)
LIMIT_REQUEST_LINE = 8190  # gunicorn's maximum
LIMIT_REQUEST_FIELD_SIZE = 16384
LIMIT_REQUEST_FIELDS = 200


def header_timeout() -> float:
    return float(os.environ.get("CHRONICLE_HEADER_TIMEOUT") or HEADER_TIMEOUT)


class CoalescedResponse(wsgi.Response):
    """gunicorn's response, its head sent in one ``send`` with the first bytes of the body.

    gunicorn writes the status line and headers, then the body: two system calls (and two
    loopback packets) for every JSON answer, which fits in one.  The head is composed when
    the first body bytes come and goes with them; anything that would end the response
    without them (``close``, an early return of ``write``) sends it alone, as before."""

    _head = b""
    headers_sent: bool

    def write(self, arg: bytes) -> None:
        if not self.headers_sent and isinstance(arg, bytes) and arg and not self._omits_body:
            tosend = self.default_headers()
            tosend.extend(["%s: %s\r\n" % (k, v) for k, v in self.headers])  # noqa: UP031
            self._head = util.to_bytestring("%s\r\n" % "".join(tosend), "latin-1")  # noqa: UP031
            self.headers_sent = True
        super().write(arg)
        self._flush()

    def _emit_body(self, data: bytes) -> None:
        head, self._head = self._head, b""
        if not head:
            super()._emit_body(data)
        elif self.chunked:
            self.sock.sendall(b"%s%X\r\n%s\r\n" % (head, len(data), data))
        else:
            self.sock.sendall(head + data)

    def close(self) -> None:
        self._flush()
        super().close()

    def _flush(self) -> None:
        if self._head:
            head, self._head = self._head, b""
            util.write(self.sock, head)


SLOTS = Slots()  # made in gunicorn's master, which imports this module: shared by its children


class Worker(GeventWorker):
    """gunicorn's gevent worker with a header timeout, JSON errors and balanced accepts.

    Once the app is loaded its objects (routes, schemas, the OpenAPI document, the games'
    tables) live as long as the process: ``gc.freeze`` takes them out of the collector's
    generations, so a full collection no longer walks them while a move waits (it is the
    move path's p99).  New connections go to the API process holding fewest
    (``service.balance``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slot = SLOTS.assign(self)  # in the master, before the fork

    def init_process(self) -> None:
        wsgi.Response = CoalescedResponse  # what gunicorn's ``wsgi.create`` builds, here
        self.balance: Balance | None = None
        if self.cfg.workers > 1 and not os.environ.get("CHRONICLE_UNBALANCED"):
            self.balance = Balance(SLOTS, self.slot)
            self.balance.beat()
            BalancedServer.balance = self.balance
            ggevent.StreamServer = BalancedServer  # what gunicorn's ``run`` serves with, here
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        if self.balance is None:
            return super().handle(listener, client, addr)
        self.balance.opened()
        try:
            super().handle(listener, client, addr)
        finally:
            self.balance.closed()

    def notify(self) -> None:
        super().notify()
        if self.balance is not None:
            self.balance.beat()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        gc.collect()
        gc.freeze()

    def timeout_ctx(self) -> Any:
        # gunicorn wraps reading each request (line and headers) in this, the first included
        return gevent.Timeout(header_timeout(), False)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason, code = _classify(exc)
        if status >= 500:
            self.log.exception("Error handling request")
            message = "internal error; it has been logged"
        else:
            self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
            message = str(exc) or reason
        body = json.dumps({"error": {"code": code, "message": message, "details": {}}}).encode()
        head = (
            f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode("latin1")
        try:
            util.write_nonblock(client, head + body)
        except Exception:
            self.log.debug("Failed to send error message.")


def _classify(exc: BaseException) -> tuple[int, str, str]:
    if isinstance(exc, errors.LimitRequestLine):
        return 414, "URI Too Long", "uri_too_long"
    if isinstance(exc, errors.LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", "headers_too_large"
    if isinstance(exc, errors.InvalidResponseHeader | errors.InvalidResponseHeaderName):
        return 500, "Internal Server Error", "internal"
    if isinstance(exc, errors.ForbiddenProxyRequest):
        return 403, "Forbidden", "forbidden"
    if isinstance(exc, errors.ExpectationFailed):
        return 417, "Expectation Failed", "bad_request"
    if isinstance(exc, errors.UnsupportedTransferCoding):
        return 501, "Not Implemented", "bad_request"
    if isinstance(exc, errors.ParseException):
        return 400, "Bad Request", "bad_request"
    return 500, "Internal Server Error", "internal"


def gunicorn_command(
    bind: str,
    processes: int,
    worker_class: str = "gevent",
    threads: int = 8,
    extra: list[str] | None = None,
) -> list[str]:
    """The command that serves ``service.app:create_app()``: ``gevent`` (this module's worker,
    the default) or ``gthread`` (a thread per request; kept for comparison in ``bench``)."""
    args = [
        sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(processes),
        "--timeout", "30", "--graceful-timeout", "5", "--no-control-socket",
        "--limit-request-line", str(LIMIT_REQUEST_LINE),
        "--limit-request-field_size", str(LIMIT_REQUEST_FIELD_SIZE),
        "--limit-request-fields", str(LIMIT_REQUEST_FIELDS),
    ]  # fmt: skip
    if worker_class == "gevent":
        connections = os.environ.get("CHRONICLE_WORKER_CONNECTIONS") or str(WORKER_CONNECTIONS)
        args += ["--worker-class", "service.serving.Worker", "--worker-connections", connections]
        args += ["--keep-alive", str(max(1, int(header_timeout())))]  # on: the timeout_ctx
    else:
        args += ["--worker-class", "gthread", "--threads", str(threads)]
    return [*args, *(extra or []), "service.app:create_app()"]


def main(argv: list[str] | None = None) -> None:
    """``python -m service.serving [--bind H:P] [--workers N]``: the API alone, served as
    `chronicle serve` serves it (the Docker image's command)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m service.serving", description=main.__doc__)
    parser.add_argument("--bind", default="0.0.0.0:8000")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    command = gunicorn_command(args.bind, args.workers)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
