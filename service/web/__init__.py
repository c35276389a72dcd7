"""The browser client: the pages (lobby, table, join, replay) and their static files.

No build step and no dependency: the pages are one HTML shell that loads native ES modules,
which draw every board as SVG from the public API's views (``/api/v1``), the same API any other
client uses.  Seat tokens travel only in the URL fragment (``#token=``), which browsers never send
to a server, and live in the browser's ``localStorage``; ``Referrer-Policy: no-referrer`` keeps
page addresses out of other sites' logs.  The Content-Security-Policy allows scripts, styles and
connections from this origin only, with no inline script or style, so an injected string can
never run.  Static files are served gzip-compressed when the browser accepts it (compressed once
per file and kept in memory: the files are small and change only with a new release).

The pages are an installable app: a web manifest (``/assets/manifest.webmanifest``) and a
service worker at ``/sw.js`` (scope ``/``) that shows the notices pushed to the browser
(``service.push``) and opens the table when one is clicked; it has no fetch handler.

Signing in to an account (optional: guests play with seat links) is the page ``/signin``; an
account's session is an HttpOnly cookie the pages never read, and their writes carry its CSRF
token (``account.js``, ``api.js``).

The rules page (``/rules/<game>``) is rendered here from the players' rules the API serves at
``/api/v1/docs/rules/<game>`` (``service.http.docs``), with a table of contents and an anchor
per rule id (``/rules/artus#AR-3``): it needs no script, and the same CSP holds.
"""

from __future__ import annotations

import gzip
import html
import mimetypes
import threading
import zlib
from pathlib import Path

from flask import Blueprint, Response, abort, request

from domain import games
from service import i18n
from service.http import docs, languages

STATIC = Path(__file__).resolve().parent / "static"

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "worker-src 'self'",  # the service worker (/sw.js)
        "manifest-src 'self'",  # the web manifest: an installable app
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
    ".webmanifest": "application/manifest+json",
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
    return _answer(raw, packed, kind)


def _answer(raw: bytes, packed: bytes, kind: str) -> Response:
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
    return _page(STATIC / "index.html")


@pages.get("/signin")
@pages.get("/players/<player_id>")
def signin(player_id: str | None = None) -> Response:
    """The account's pages (``account.js``): sign-in (the mailed link ``/signin#code=...``
    lands here, the code in the fragment, which the browser never sends to a server) and a
    player's public profile."""
    return _page(STATIC / "signin.html")


_pages: dict[tuple[str, float, str], tuple[bytes, bytes]] = {}


def _page(path: Path) -> Response:
    """A page with ``<html lang>`` of the browser's language (``Accept-Language``), made once
    per file and language; ``i18n.js`` then follows the person's own choice, if any."""
    lang = languages.language()
    raw, packed = _file(path)
    if lang != i18n.DEFAULT:
        key = (str(path), path.stat().st_mtime, lang)
        hit = _pages.get(key)
        if hit is None:
            said = raw.replace(b'<html lang="en">', f'<html lang="{lang}">'.encode(), 1)
            hit = _pages[key] = (said, gzip.compress(said, 9, mtime=0))
        raw, packed = hit
    resp = _answer(raw, packed, TYPES[".html"])
    resp.vary.add("Accept-Language")
    return resp


@pages.get("/i18n/<lang>.json")
def client_words(lang: str) -> Response:
    """The client's words in ``lang`` (``static/i18n.js``), from its gettext catalogue."""
    if lang not in i18n.LANGUAGES:
        abort(404)
    raw = i18n.client_json(lang)
    return _answer(raw, gzip.compress(raw, 9, mtime=0), "application/json")


@pages.get("/sw.js")
def service_worker() -> Response:
    """The service worker (``static/sw.js``): served at the root so that its scope is the
    whole site, every page of which may be open when a notice is clicked."""
    resp = _send(STATIC / "sw.js")
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


@pages.get("/assets/<path:name>")
def asset(name: str) -> Response:
    path = (STATIC / name).resolve()
    if STATIC not in path.parents or not path.is_file():
        abort(404)
    return _send(path)


_RULES_PAGE = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Chronicle</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<header class="top">
  <a href="/" class="brand" aria-label="Chronicle: the lobby"><img src="/assets/icon.svg" alt="" \
width="24" height="24"> Chronicle</a>
  <nav id="nav" aria-label="the rules of each game">{games}</nav>
  <nav class="langs" aria-label="{language}">{langs}</nav>
</header>
<main id="app" class="rules-page">
<div class="rules-intro rules">
<h1>{title}</h1>
{intro}
</div>
<nav class="rules-toc" aria-labelledby="toc-h"><details open><summary id="toc-h">\
{contents}</summary>
<ol>{toc}</ol></details></nav>
<article class="rules">
{body}
<p class="muted rules-foot">{developers} <a href="{digest}">{digest_name}</a> {digest_says} \
<a href="/">{back}</a></p>
</article>
</main>
</body>
</html>
"""
_rules_built: dict[tuple[str, str], tuple[bytes, bytes]] = {}  # (game, language): a found game's


def _rules_page(game: str, lang: str, page: docs.Rendered) -> tuple[bytes, bytes]:
    """The page bytes, plain and gzipped, built once per game and language."""
    hit = _rules_built.get((game, lang))
    if hit is None:
        toc = []
        for level, anchor, words in page.sections:
            cls = "toc-sub" if level > 2 else "toc-top"
            toc.append(
                f'<li class="{cls}"><a href="#{html.escape(anchor)}">{html.escape(words)}</a></li>'
            )
        here = ' aria-current="page"'
        kept = "" if lang == i18n.DEFAULT else f"?lang={lang}"  # the same language, game to game
        links = " ".join(
            f'<a href="/rules/{g.id}{kept}"{here if g.id == game else ""}>{html.escape(g.name)}</a>'
            for g in games.GAMES.values()
        )
        langs = " ".join(
            f'<a href="/rules/{game}?lang={code}" hreflang="{code}" lang="{code}"'
            f"{here if code == lang else ''}>{html.escape(name)}</a>"
            for code, name in i18n.LANGUAGE_NAMES.items()
        )
        text = _RULES_PAGE.format(
            **{k: html.escape(i18n.gettext(lang, v)) for k, v in i18n.RULES_PAGE_WORDS.items()},
            langs=langs,
            lang=lang,
            title=html.escape(page.title),
            games=links,
            toc="".join(toc),
            intro=page.intro,
            body=page.rest,
            digest=f"{docs.PREFIX}/{docs.DIGESTS}/{game}",
        )
        raw = text.encode()
        hit = _rules_built[(game, lang)] = (raw, gzip.compress(raw, 9, mtime=0))
    return hit


@pages.get("/rules/<game>")
def rules(game: str) -> Response:
    """A game's rules for players, the language from ``?lang=``, else the browser's
    (``Accept-Language``; the account's choice reaches this page as ``?lang=``)."""
    found = docs.players_rules(game, request.args.get("lang") or languages.language())
    if found is None:
        abort(404, description=f"no rules for a game {game!r}")
    lang, page = found
    raw, packed = _rules_page(game, lang, page)
    resp = _answer(raw, packed, TYPES[".html"])
    resp.headers["Content-Language"] = lang
    resp.vary.add("Accept-Language")
    return resp
