"""How the API is served: gunicorn, its stock gevent worker, HTTP/1.1 parsed and framed by
gunicorn (``docs/adr/0001-http-server.md``).

**Why gevent.**  A long-poll, a stream or a client that sends its headers slowly spends almost
all its life waiting.  Under a thread per request (gunicorn's ``gthread``) each such wait holds
a thread: 16 spectators long-polling filled a two-process server (issue 10).  Under gevent a
waiting connection is a greenlet of a few KB; gunicorn patches the standard library at the
start of each worker process, before the app is imported, so redis-py, the locks of
``service.stream`` and the sockets all yield instead of blocking.

The server's configuration (time limits, request limits, the metrics' hooks) is
``service.gunicorn_conf``.  What this module adds to gunicorn's worker is one thing: its own
refusals (a malformed request line or field, a request line or head over the limits) are
answered in the contract's JSON error shape instead of gunicorn's HTML page, with the status
gunicorn chose.  ``handle_error`` is the worker's method for exactly that answer.

This module imports gunicorn and gevent only: gunicorn's master imports it, and the service
must first be imported in the worker, after the patch.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.ggevent import GeventWorker

WORKER_CONNECTIONS = 10_000
TIMEOUTS = {  # field -> (its environment variable, default seconds)
    "header": ("CHRONICLE_HEADER_TIMEOUT", 10.0),
    "body": ("CHRONICLE_BODY_TIMEOUT", 60.0),
    "io": ("CHRONICLE_IO_TIMEOUT", 30.0),
}
# gunicorn's refusals by its exception: (status, reason); any other ParseException is a 400
REFUSALS: dict[type[Exception], tuple[int, str]] = {
    http_errors.LimitRequestLine: (414, "URI Too Long"),
    http_errors.LimitRequestHeaders: (431, "Request Header Fields Too Large"),
    http_errors.UnsupportedTransferCoding: (501, "Not Implemented"),
    http_errors.ExpectationFailed: (417, "Expectation Failed"),
    http_errors.ForbiddenProxyRequest: (403, "Forbidden"),
}
CODES = {403: "forbidden", 414: "uri_too_long", 431: "headers_too_large"}  # else bad_request


def timeouts(env: Mapping[str, str] = os.environ) -> dict[str, float]:
    """The connections' time limits from the environment (seconds, > 0), else the defaults.
    A bad value stops ``chronicle serve`` (and each API process) with the variable named."""
    out = {}
    for field, (name, default) in TIMEOUTS.items():
        raw = env.get(name)
        value = default
        if raw:
            try:
                value = float(raw)
            except ValueError:
                value = float("nan")
            if not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a number of seconds above 0, not {raw!r}")
        out[field] = value
    return out


def refusal(exc: BaseException) -> tuple[int, str, bytes]:
    """The status, reason and JSON body of gunicorn's answer to ``exc``."""
    status, reason = 500, "Internal Server Error"
    message = "the server could not answer this request"
    if isinstance(exc, http_errors.ParseException):
        status, reason = next(
            (v for k, v in REFUSALS.items() if isinstance(exc, k)), (400, "Bad Request")
        )
        message = f"malformed request: {type(exc).__name__}"
    code = "internal" if status >= 500 and status != 501 else CODES.get(status, "bad_request")
    body = json.dumps({"error": {"code": code, "message": message, "details": {}}})
    return status, reason, body.encode()


class Worker(GeventWorker):
    """gunicorn's gevent worker, its refusals in the contract's JSON shape."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason, body = refusal(exc)
        if isinstance(exc, http_errors.ParseException):  # a client's: its bytes not logged
            self.log.info("refused %s: %s", status, type(exc).__name__)
        else:
            self.log.exception("Error handling request")
        head = (
            f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        try:
            util.write_nonblock(client, head.encode() + body)
        except Exception:
            self.log.debug("Failed to send error message.")


def gunicorn_command(
    bind: str,
    processes: int,
    worker_class: str = "gevent",
    threads: int = 8,
    extra: list[str] | None = None,
) -> list[str]:
    """The command that serves ``service.app:create_app()``: ``gevent`` (``Worker``, the
    default), or gunicorn's ``gevent_pywsgi`` (gevent's WSGIServer) or ``gthread`` (a thread
    per request), kept to compare them in ``bench``."""
    args = [
        sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
        "--bind", bind, "--workers", str(processes),
    ]  # fmt: skip
    if worker_class == "gevent":
        args += ["--worker-class", "service.serving.Worker"]
    elif worker_class == "gthread":
        args += ["--worker-class", "gthread", "--threads", str(threads)]
    else:
        args += ["--worker-class", worker_class]
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
