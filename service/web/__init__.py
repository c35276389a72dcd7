"""The browser client: the pages (lobby, table, join, replay) and their static files.

No build step and no dependency: the pages are one HTML shell that loads native ES modules,
which draw every board as SVG from the public API's views (``/api/v1``), the same API any other
client uses.  Seat tokens travel only in the URL fragment (``#token=``), which browsers never send
to a server, and live in the browser's ``localStorage``; ``Referrer-Policy: no-referrer`` keeps
page addresses out of other sites' logs.  The Content-Security-Policy allows scripts, styles and
connections from this origin only, with no inline script or style, so an injected string can
never run.  Static files are served gzip-compressed when the browser accepts it (compressed once
per file and kept in memory: the files are small and change only with a new release).
"""

from __future__ import annotations

import gzip
import mimetypes
import threading
import zlib
from pathlib import Path

from flask import Blueprint, Response, abort, request

STATIC = Path(__file__).resolve().parent / "static"

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}

TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
}

pages = Blueprint("pages", __name__)

_cache: dict[tuple[str, float], tuple[bytes, bytes]] = {}
_lock = threading.Lock()


def _file(path: Path) -> tuple[bytes, bytes]:
    """(raw, gzipped) bytes of a static file, compressed once per modification time."""
    key = (str(path), path.stat().st_mtime)
    with _lock:
        hit = _cache.get(key)
    if hit is None:
        raw = path.read_bytes()
        hit = (raw, gzip.compress(raw, 9, mtime=0))
        with _lock:
            _cache[key] = hit
    return hit


def _send(path: Path) -> Response:
    raw, packed = _file(path)
    kind = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "text/plain"
    gz = "gzip" in request.headers.get("Accept-Encoding", "")
    resp = Response(packed if gz else raw, content_type=kind)
    if gz:
        resp.headers["Content-Encoding"] = "gzip"
    resp.headers["Vary"] = "Accept-Encoding"
    # Revalidated on every load (cheap 304s), so a new release is picked up at once.
    resp.headers["Cache-Control"] = "no-cache"
    resp.set_etag(f"{len(raw)}-{zlib.crc32(raw):08x}{'-gz' if gz else ''}")
    resp.make_conditional(request)  # turns it into a 304 in place when the ETag matches
    return resp


@pages.after_request
def secure(resp: Response) -> Response:
    resp.headers.update(SECURITY_HEADERS)
    return resp


@pages.get("/")
@pages.get("/play/<game_id>")
@pages.get("/join/<game_id>")
@pages.get("/replay/<game_id>")
def shell(game_id: str | None = None) -> Response:
    """Every page is the same shell; ``main.js`` picks the page from the path."""
    return _send(STATIC / "index.html")


@pages.get("/assets/<path:name>")
def asset(name: str) -> Response:
    path = (STATIC / name).resolve()
    if STATIC not in path.parents or not path.is_file():
        abort(404)
    return _send(path)
