"""Large answers gzip-compressed for clients that accept it, and the documents the service
builds itself answered from memory.

**Per answer.**  Exports, audits and long event lists compress about tenfold.  Small JSON
answers, which are nearly all of them (a move, a view, legal actions), are sent as they are:
compressing them would cost the hot path CPU for a few hundred bytes.  Streams (SSE) are never
buffered here.

**Built once** (``Built``).  A document that does not change while the process lives (the
OpenAPI document, the catalog, the docs pages and Swagger UI's files) is built on its first
request, its gzip form with it, and then answered from memory with a strong ``ETag``; a client
that sends it back in ``If-None-Match`` gets ``304 Not Modified`` and no body.  Rebuilding
the OpenAPI document (about 300 KB) for each request let a client pipelining requests for it
hold a process for seconds; now such a request costs what a small answer costs.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, request
from werkzeug.http import parse_etags

MIN_BYTES = 8 * 1024  # below this, the bytes saved are not worth the CPU
LEVEL = 6


def gzipped(body: bytes, accept_encoding: str, path: str = "") -> bytes | None:
    """A JSON answer's body compressed, if its client accepts gzip and it is large enough to
    be worth it; else None (sent as it is).  (``path`` is not used: a document that does not
    change is ``Built``, which keeps its gzip form.)"""
    if "gzip" not in accept_encoding or len(body) < MIN_BYTES:
        return None
    return gzip.compress(body, LEVEL, mtime=0)


def compress(response: Response) -> Response:
    if (
        response.direct_passthrough
        or response.is_streamed
        or response.mimetype != "application/json"
        or "Content-Encoding" in response.headers
        or "gzip" not in request.environ.get("HTTP_ACCEPT_ENCODING", "")
    ):
        return response
    body = gzipped(response.get_data(), "gzip")
    if body is None:
        return response
    response.set_data(body)
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


@dataclass(frozen=True)
class Built:
    """A document built once: its bytes, their gzip form (if large enough to be worth it)
    and its strong ETag (the gzip form's is the same with ``-gzip``: another
    representation, another validator)."""

    body: bytes
    mimetype: str
    gz: bytes | None
    etag: str
    max_age: int  # seconds a client may keep it without asking; 0: it asks (and gets a 304)

    @classmethod
    def of(cls, body: bytes, mimetype: str, max_age: int = 0) -> Built:
        packed = gzip.compress(body, LEVEL, mtime=0) if len(body) >= MIN_BYTES else None
        return cls(body, mimetype, packed, hashlib.sha256(body).hexdigest()[:32], max_age)

    def answer(self, environ: Mapping[str, Any]) -> Response:
        """The answer to a GET of this document: 304 if the client has it, else the body (its
        gzip form to a client that accepts gzip)."""
        packed = self.gz is not None and "gzip" in environ.get("HTTP_ACCEPT_ENCODING", "")
        etag = f"{self.etag}-gzip" if packed else self.etag
        known = parse_etags(environ.get("HTTP_IF_NONE_MATCH"))
        if known.contains_weak(self.etag) or known.contains_weak(f"{self.etag}-gzip"):
            response = Response(status=304)
        elif packed:
            response = Response(self.gz, mimetype=self.mimetype)
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = Response(self.body, mimetype=self.mimetype)
        response.set_etag(etag)
        if self.gz is not None:
            response.vary.add("Accept-Encoding")
        if self.max_age:
            response.cache_control.public = True
            response.cache_control.max_age = self.max_age
        else:
            response.cache_control.no_cache = True
        return response


def install(app: Flask) -> None:
    app.after_request(compress)
