"""The documentation the API serves itself, so that it works offline and from a clone.

- **Swagger UI's files** (``/api/v1/docs/assets/...``) come from the ``swagger-ui-bundle``
  package: the docs page (``/api/v1/docs``, flask-smorest's) loads nothing from a CDN, so it
  works on a machine without internet access and cannot change under us with an unpinned CDN.
- **The project's pages** (``docs/`` in the repository: the HTTP contract and the games' rules
  digests, indexed by ``docs/README.md``) are served as HTML at ``/api/v1/docs/<page>`` and as
  Markdown at ``/api/v1/docs/<page>.md``.  The set of pages is the Markdown files found under
  the docs folder when the app is built: a request names one of them or gets 404, so no path
  from a request ever reaches the file system.

Each page and file is read (and a page rendered) on its first request only, then answered from
memory with an ``ETag`` (``compression.Built``): a flood of requests for a page costs what
small answers cost, and a client that has it gets 304.  A page changed on disk is served
once the process restarts.

The docs folder is ``CHRONICLE_DOCS_DIR`` if set (the Docker image copies ``docs/`` there),
else ``docs/`` beside the packages (a checkout or an editable install).
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort
from markdown_it import MarkdownIt
from swagger_ui_bundle import swagger_ui_path

from service.http.compression import Built
from service.http.middleware import current_request

PREFIX = "/api/v1/docs"
ASSETS_URL = f"{PREFIX}/assets/"
INDEX = "index"  # docs/README.md
OPENAPI_DESCRIPTION = (
    "Event-sourced game log and replay service.\n\n"
    f"Documentation, served by this API and shipped in the repository's `docs/`: "
    f"[the HTTP contract]({PREFIX}/contract) and the rules digests of "
    f"[Artus]({PREFIX}/rules/artus), [Kings and Castles]({PREFIX}/rules/kings-and-castles) and "
    f"[Lancaster]({PREFIX}/rules/lancaster) ([index]({PREFIX}/{INDEX}))."
)
_ASSETS = frozenset(("swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"))
_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Chronicle</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; }}
body {{ padding: 0 1rem; }}
code, pre {{ background: #f3f3f3; }} pre {{ padding: .5rem; overflow-x: auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .2rem .5rem; }}
nav {{ margin-bottom: 1rem; }}
</style></head><body>
<nav><a href="{prefix}/index">Documentation</a> · <a href="{prefix}">API (OpenAPI)</a> ·
<a href="{prefix}/{name}.md">Markdown source</a></nav>
<main>
{body}
</main></body></html>
"""


def docs_dir() -> Path:
    configured = os.environ.get("CHRONICLE_DOCS_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "docs"


def pages(root: Path) -> dict[str, Path]:
    """Page name -> file: ``contract`` -> contract.md, ``rules/artus`` -> rules/artus.md, and
    ``index`` -> README.md."""
    found: dict[str, Path] = {}
    if root.is_dir():
        for path in sorted(root.rglob("*.md")):
            name = path.relative_to(root).with_suffix("").as_posix()
            found[INDEX if name == "README" else name] = path
    return found


def _renderer() -> MarkdownIt:
    """CommonMark with tables; raw HTML in a page is shown as text, not interpreted.  Links to
    another ``.md`` page point at its HTML page instead."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        href = tokens[idx].attrGet("href") or ""
        if href.endswith(".md") and "://" not in href:
            href = href[: -len(".md")]
            if href == "README" or href.endswith("/README"):
                href = href[: -len("README")] + INDEX
            tokens[idx].attrSet("href", href)
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    return md


def blueprint(root: Path | None = None) -> Blueprint:
    root = root or docs_dir()
    found = pages(root)
    md = _renderer()
    bp = Blueprint("docs", __name__, url_prefix=PREFIX)

    built: dict[str, Built] = {}  # a page or an asset, by its name in the URL, once built

    @bp.get("/assets/<name>")
    def asset(name: str) -> Response:
        if name not in _ASSETS:
            abort(404)
        done = built.get(name)
        if done is None:
            kind = "text/css" if name.endswith(".css") else "text/javascript"
            body = (Path(swagger_ui_path) / name).read_bytes()
            done = built[name] = Built.of(body, kind, max_age=86400)
        return done.answer(current_request().environ)

    @bp.get("/<path:name>")
    def page(name: str) -> Response:
        raw = name.endswith(".md")
        key = name[: -len(".md")] if raw else name
        path = found.get(key)
        if path is None:
            abort(404, description=f"no documentation page {name!r}; see {PREFIX}/{INDEX}")
        done = built.get(name)  # only names of found pages get here: the dict stays small
        if done is None:
            done = built[name] = _built_page(path, key, raw, md)
        return done.answer(current_request().environ)

    return bp


def _built_page(path: Path, key: str, raw: bool, md: MarkdownIt) -> Built:
    """A page as Markdown (``raw``) or rendered as HTML."""
    text = path.read_text(encoding="utf-8")
    if raw:
        return Built.of(text.encode(), "text/markdown")
    title = next((ln.lstrip("# ") for ln in text.splitlines() if ln.startswith("#")), key)
    # Relative links resolve against the page's URL: pages under rules/ link to ../x.
    doc = _PAGE.format(title=html.escape(title), prefix=PREFIX, name=key, body=md.render(text))
    return Built.of(doc.encode(), "text/html")
