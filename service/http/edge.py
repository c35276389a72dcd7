"""The request's edges, checked before Flask sees it: a URL over ``MAX_URL`` bytes is 414
``uri_too_long``, request headers over ``MAX_HEADERS`` bytes in all are 431
``headers_too_large``, both in the contract's JSON error shape.

gunicorn has limits of its own (request line, each header field, their number) and answers
them with an HTML page.  ``chronicle serve`` raises those above the ones here, so that this
middleware is what answers in practice (and the test servers, which are not gunicorn, answer
the same); whatever still reaches gunicorn's limits (a request line over 8 KB, a single field
over 16 KB) is answered in JSON too, by the worker class in ``service.serving``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

MAX_URL = 4096  # bytes of path and query string together
MAX_HEADERS = 8192  # bytes of every request header, names and values, together
HEADER_BYTES_KEY = "chronicle.header_bytes"  # header_bytes, counted by service.http1
# The server's (service.http1) ``later(work) -> bool``: whether it takes ``work`` to run once
# the answer is sent (the request's log line and metrics:
# ``service.http.middleware.after_answer``); if not, the app runs it now.
AFTER_ANSWER_KEY = "chronicle.after_answer"


def error_response(status: int, reason: str, code: str, message: str) -> tuple[str, list, bytes]:
    body = json.dumps({"error": {"code": code, "message": message, "details": {}}}).encode()
    headers = [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
    ]
    return f"{status} {reason}", headers, body


def header_bytes(environ: dict[str, Any]) -> int:
    total = 0
    for key, value in environ.items():
        if key.startswith("HTTP_") or key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            total += len(key) - (5 if key.startswith("HTTP_") else 0) + len(str(value)) + 4
    return total


class EdgeLimits:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        url = len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", "")) + 1
        refused = None
        if url > MAX_URL:
            refused = error_response(
                414, "URI Too Long", "uri_too_long",
                f"the URL is {url} bytes long; at most {MAX_URL}",
            )  # fmt: skip
        elif (size := environ.get(HEADER_BYTES_KEY) or header_bytes(environ)) > MAX_HEADERS:
            refused = error_response(
                431, "Request Header Fields Too Large", "headers_too_large",
                f"the request headers are {size} bytes long; at most {MAX_HEADERS}",
            )  # fmt: skip
        if refused is None:
            return self.app(environ, start_response)
        status, headers, body = refused
        start_response(status, headers)
        return [body]
