"""The documentation site at ``/docs/``: the static files MkDocs builds from ``docs/``, served
by the service itself so that a reader of a running Chronicle has the whole documentation,
offline, on the same address as the game.

- **Where.** ``CHRONICLE_DOCS_SITE`` if set, else ``site/`` of the checkout (a directory with
  ``mkdocs.yml`` beside the packages), where ``scripts/setup.sh`` builds it when ``docs/`` or
  ``mkdocs.yml`` changed.  The site is a build product, not package data: a wheel does not
  carry it, and MkDocs is a build-time tool only (docs/adr/0005-docs-site.md).
- **Not built** (a wheel install, a checkout before its first set-up): ``/docs/`` answers 404
  with a short HTML note saying how to build it and where the same pages are served one by one
  (``/api/v1/docs/index``).  A browser shows the note; the status says there is no site.  A
  file missing from a built site is a plain 404 in the contract's JSON error shape.
- **Safe.** A request's path reaches the file system only through ``safe_join`` (no ``..``, no
  absolute path, no drive), and only regular files under the root are sent; a directory gets
  its ``index.html``.  The content type comes from the file's name.  Like the client's files,
  every answer is revalidated on each load (``no-cache`` with an ETag and Last-Modified, so a
  304 costs nothing) and carries the pages' security headers.  The built pages hold Material's
  own inline scripts and styles, so their Content-Security-Policy allows inline code from the
  files we build (nothing a request or a player can write reaches them) and still nothing from
  another origin.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Blueprint, Response, abort, redirect, send_from_directory
from werkzeug.security import safe_join

PREFIX = "/docs"
CHECKOUT = Path(__file__).resolve().parents[2]

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Documentation not built - Chronicle</title>
</head><body>
<h1>The documentation site is not built here</h1>
<p>In a checkout, <code>scripts/setup.sh</code> builds it (or run
<code>.venv/bin/mkdocs build --strict</code>, which writes <code>site/</code>); a site built
elsewhere is served from <code>CHRONICLE_DOCS_SITE</code>.</p>
<p>The same pages are served one by one at <a href="/api/v1/docs/index">/api/v1/docs/index</a>.</p>
</body></html>
"""


def site_dir() -> Path | None:
    """The built site's directory as configured (it may not be built yet), or None."""
    configured = os.environ.get("CHRONICLE_DOCS_SITE")
    if configured:
        return Path(configured)
    if (CHECKOUT / "mkdocs.yml").is_file():
        return CHECKOUT / "site"
    return None


def blueprint(root: Path | None = None) -> Blueprint:
    chosen = root or site_dir()
    bp = Blueprint("site", __name__, url_prefix=PREFIX)

    @bp.get("")
    def bare() -> Response:
        # relative links in the pages need the trailing slash
        return redirect(f"{PREFIX}/", code=308)  # type: ignore[return-value]

    @bp.get("/")
    def index() -> Response:
        return file("index.html")

    @bp.get("/<path:name>")
    def file(name: str) -> Response:
        if chosen is None or not (chosen / "index.html").is_file():
            return _secured(Response(NOT_BUILT, status=404, content_type="text/html"))
        path = safe_join(str(chosen), name)
        if path is None:
            abort(404)
        if os.path.isdir(path):
            name = f"{name.rstrip('/')}/index.html"
            path = safe_join(str(chosen), name)
        if path is None or not os.path.isfile(path):
            abort(404)
        return _secured(send_from_directory(chosen, name, max_age=None))

    return bp


def _secured(resp: Response) -> Response:
    resp.headers.update(HEADERS)
    return resp
