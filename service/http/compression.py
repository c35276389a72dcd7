"""Large JSON answers gzip-compressed for clients that accept it.

The typed OpenAPI document (about 300 KB, read by the browser client on its first load to see
what the server offers), exports, audits and long event lists compress about tenfold.  Small
answers, which are nearly all of them (a move, a view, legal actions), are sent as they are:
compressing them would cost the hot path CPU for a few hundred bytes.  Streams (SSE) are never
buffered here.  The body of a document that does not change (the OpenAPI document) is
compressed once per distinct body.
"""

from __future__ import annotations

import gzip
import hashlib

from flask import Flask, Response, request

MIN_BYTES = 8 * 1024  # below this, the bytes saved are not worth the CPU
LEVEL = 6
_CACHE: dict[bytes, bytes] = {}  # sha256 of a body -> its gzip (bodies of the cached paths)
_CACHED_PATHS = ("/api/v1/openapi.json",)
_CACHE_LIMIT = 8


def gzipped(body: bytes, accept_encoding: str, path: str) -> bytes | None:
    """A JSON answer's body compressed, if its client accepts gzip and it is large enough to
    be worth it; else None (sent as it is)."""
    if "gzip" not in accept_encoding or len(body) < MIN_BYTES:
        return None
    return _gzip(body, path)


def _gzip(body: bytes, path: str) -> bytes:
    if path not in _CACHED_PATHS:
        return gzip.compress(body, LEVEL, mtime=0)
    key = hashlib.sha256(body).digest()
    hit = _CACHE.get(key)
    if hit is None:
        hit = gzip.compress(body, LEVEL, mtime=0)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = hit
    return hit


def compress(response: Response) -> Response:
    if (
        response.direct_passthrough
        or response.is_streamed
        or response.mimetype != "application/json"
        or "Content-Encoding" in response.headers
        or "gzip" not in request.environ.get("HTTP_ACCEPT_ENCODING", "")
    ):
        return response
    body = gzipped(response.get_data(), "gzip", request.path)
    if body is None:
        return response
    response.set_data(body)
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


def install(app: Flask) -> None:
    app.after_request(compress)
