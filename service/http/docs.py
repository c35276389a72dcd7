"""The documentation the API serves itself, so that it works offline and from a clone.

- **Swagger UI's files** (``/api/v1/docs/assets/...``) come from the ``swagger-ui-bundle``
  package: the docs page (``/api/v1/docs``, flask-smorest's) loads nothing from a CDN, so it
  works on a machine without internet access and cannot change under us with an unpinned CDN.
- **The project's pages** (``docs/`` in the repository: the HTTP contract, the games' rules
  for players, the developers' rules digests and the guides of every section, indexed by
  ``docs/README.md``) are served as HTML at ``/api/v1/docs/<page>`` and as Markdown at
  ``/api/v1/docs/<page>.md``.  The set of pages is the Markdown files found under the docs
  folder when the app is built: a request names one of them or gets 404, so no path from a
  request ever reaches the file system.
- **Languages.** A page may come in several languages, one file each beside the others:
  ``rules/artus.en.md`` (English), later ``rules/artus.ja.md`` and ``rules/artus.zh-TW.md``.
  ``?lang=`` picks one, else the caller's language (``service.http.languages``); a language
  the page does not have gets English, and ``Content-Language`` says which was served.  A
  file without a language tag is English.
- **Rule ids.** A heading that names a rule id (``## A turn (AR-3)`` in the players' rules,
  ``## AR-3 Turn`` in a digest) gets it as its HTML ``id``, so ``.../rules/artus#AR-3`` lands
  on the rule that a refusal's ``details.rule`` names.

Each page and file is read (and a page rendered) on its first request only, then answered from
memory with an ``ETag`` (``compression.Built``): a flood of requests for a page costs what
small answers cost, and a client that has it gets 304.  A page changed on disk is served
once the process restarts.

The same pages built into a site, with navigation and search, are served at ``/docs/`` by
``service.http.site`` when the site is built; these one-page answers need no build.

The docs folder is ``CHRONICLE_DOCS_DIR`` if set (the Docker image copies ``docs/`` there), else
the copy a wheel ships as package data (``service/docs/``, put there by ``setup.py``'s build
step), else ``docs/`` beside the packages (a checkout or an editable install).
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, request
from markdown_it import MarkdownIt
from swagger_ui_bundle import swagger_ui_path

from service.http.compression import Built
from service.http.languages import language
from service.http.middleware import current_request

PREFIX = "/api/v1/docs"
ASSETS_URL = f"{PREFIX}/assets/"
INDEX = "index"  # docs/README.md
LANGUAGES = ("en", "ja", "zh-TW")  # the contract's; the first is the default
DEFAULT_LANGUAGE = LANGUAGES[0]
RULES = "rules"  # rules/<game>: the players' rules, in languages
DIGESTS = "digests"  # digests/<game>: the developers' rules digests
OPENAPI_DESCRIPTION = (
    "Event-sourced game log and replay service.\n\n"
    f"Documentation, served by this API and shipped with it: "
    f"[the HTTP contract]({PREFIX}/contract); the rules for players of "
    f"[Artus]({PREFIX}/{RULES}/artus), [Kings and Castles]({PREFIX}/{RULES}/kings-and-castles) "
    f"and [Lancaster]({PREFIX}/{RULES}/lancaster) (`?lang=en`); the developers' rules digests "
    f"of [Artus]({PREFIX}/{DIGESTS}/artus), "
    f"[Kings and Castles]({PREFIX}/{DIGESTS}/kings-and-castles) and "
    f"[Lancaster]({PREFIX}/{DIGESTS}/lancaster) ([index]({PREFIX}/{INDEX}))."
)
_LANGUAGE_TAG = re.compile(r"^(?P<page>.+)\.(?P<lang>" + "|".join(map(re.escape, LANGUAGES)) + ")$")
# A rule id at the end of a heading, in brackets (players' rules) or at its start (digests).
RULE_ID = r"[A-Z]{2}-\d+(?:\.\d+)*"
_HEADING_RULE = re.compile(rf"\(({RULE_ID})\)\s*$|^({RULE_ID})\b")
_ASSETS = frozenset(("swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"))
_PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title} - Chronicle</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; }}
body {{ padding: 0 1rem; }}
code, pre {{ background: #f3f3f3; }} pre {{ padding: .5rem; overflow-x: auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .2rem .5rem; }}
nav {{ margin-bottom: 1rem; }}
</style></head><body>
<nav><a href="{prefix}/index">Documentation</a> · <a href="{prefix}">API (OpenAPI)</a> ·
<a href="{prefix}/{name}.md?lang={lang}">Markdown source</a></nav>
<main>
{body}
</main></body></html>
"""


def docs_dir() -> Path:
    configured = os.environ.get("CHRONICLE_DOCS_DIR")
    if configured:
        return Path(configured)
    shipped = Path(__file__).resolve().parents[1] / "docs"  # a wheel's package data
    return shipped if shipped.is_dir() else Path(__file__).resolve().parents[2] / "docs"


def pages(root: Path) -> dict[str, dict[str, Path]]:
    """Page name -> language -> file: ``contract`` -> {en: contract.md}, ``rules/artus`` ->
    {en: rules/artus.en.md}, ``digests/artus`` -> {en: digests/artus.md}, and ``index`` ->
    {en: README.md}."""
    found: dict[str, dict[str, Path]] = {}
    if root.is_dir():
        for path in sorted(root.rglob("*.md")):
            name = path.relative_to(root).with_suffix("").as_posix()
            lang = DEFAULT_LANGUAGE
            if tagged := _LANGUAGE_TAG.match(name):
                name, lang = tagged["page"], tagged["lang"]
            found.setdefault(INDEX if name == "README" else name, {})[lang] = path
    return found


def served_language(available: dict[str, Path], asked: str | None) -> str:
    """The language served for ``?lang=asked``: that one if the page has it, else English (else
    the page's first language)."""
    if asked in available:
        return str(asked)
    return DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in available else next(iter(available))


def rule_anchor(heading: str) -> str | None:
    """The rule id a heading names, or None: ``A turn (AR-3)`` and ``AR-3 Turn`` -> ``AR-3``."""
    m = _HEADING_RULE.search(heading.strip())
    return (m[1] or m[2]) if m else None


@dataclass(frozen=True)
class Rendered:
    """A Markdown page as HTML: its title, its sections (level, anchor, text) and its body;
    the body also in two parts without the title (what comes before the first section, and
    the sections), for a page that lays them out itself."""

    title: str
    sections: tuple[tuple[int, str, str], ...]
    body: str
    intro: str = ""
    rest: str = ""


def render(text: str, md: MarkdownIt | None = None) -> Rendered:
    """``text`` rendered, each ``##``/``###`` heading with an ``id``: its rule id, else a slug
    of its words (unique within the page)."""
    md = md or _renderer()
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    sections: list[tuple[int, str, str]] = []
    title = ""
    used: set[str] = set()
    first_title = first_section = None  # token indexes
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        words = tokens[i + 1].content
        level = int(token.tag[1])
        if level == 1:
            if not title:
                title, first_title = words, i
            continue
        if first_section is None:
            first_section = i
        anchor = rule_anchor(words) or re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
        while anchor in used:
            anchor += "-"
        used.add(anchor)
        token.attrSet("id", anchor)
        sections.append((level, anchor, words))
    split = len(tokens) if first_section is None else first_section
    head = tokens[:split]
    if first_title is not None and first_title < split:  # without the title's 3 tokens
        head = head[:first_title] + head[first_title + 3 :]
    return Rendered(
        title,
        tuple(sections),
        _html(md, tokens, env),
        intro=_html(md, head, env),
        rest=_html(md, tokens[split:], env),
    )


def _html(md: MarkdownIt, tokens: list[Any], env: dict[str, Any]) -> str:
    return str(md.renderer.render(tokens, md.options, env))


def _renderer() -> MarkdownIt:
    """CommonMark with tables; raw HTML in a page is shown as text, not interpreted.  Links to
    another ``.md`` page point at its HTML page instead (a language's file at the page)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        href = tokens[idx].attrGet("href") or ""
        if href.endswith(".md") and "://" not in href:
            href = href[: -len(".md")]
            if tagged := _LANGUAGE_TAG.match(href):  # rules/artus.en.md -> rules/artus
                href = tagged["page"]
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
        languages = found.get(key)
        if languages is None:
            abort(404, description=f"no documentation page {name!r}; see {PREFIX}/{INDEX}")
        lang = served_language(languages, request.args.get("lang") or _caller_language())
        # only names of found pages in their languages get here: the dict stays small
        done = built.get(f"{name}?{lang}")
        if done is None:
            done = built[f"{name}?{lang}"] = _built_page(languages[lang], key, raw, md, lang)
        answer = done.answer(current_request().environ)
        answer.headers["Content-Language"] = lang
        return answer

    return bp


def _caller_language() -> str:
    """Without ``?lang=``: the caller's language (the account's, else Accept-Language)."""
    return language()


def _built_page(path: Path, key: str, raw: bool, md: MarkdownIt, lang: str) -> Built:
    """A page as Markdown (``raw``) or rendered as HTML."""
    text = path.read_text(encoding="utf-8")
    if raw:
        return Built.of(text.encode(), "text/markdown")
    page = render(text, md)
    # Relative links resolve against the page's URL: pages under rules/ link to ../x.
    doc = _PAGE.format(
        title=html.escape(page.title or key), prefix=PREFIX, name=key, body=page.body, lang=lang
    )
    return Built.of(doc.encode(), "text/html")


def players_rules(game: str, lang: str | None = None) -> tuple[str, Rendered] | None:
    """The players' rules of ``game`` for the browser's rules page: (the language served, the
    page rendered), or None if the game has none.  Each file is read and rendered once per
    process, as the API's pages are; names from a request are only looked up, never cached."""
    languages = _shipped().get(f"{RULES}/{game}")
    if languages is None:
        return None
    served = served_language(languages, lang)
    return served, _rendered_file(languages[served])


@cache
def _shipped() -> dict[str, dict[str, Path]]:
    return pages(docs_dir())


@cache
def _rendered_file(path: Path) -> Rendered:
    return render(path.read_text(encoding="utf-8"))
