"""The browser client's pages as HTTP resources: served by the API process itself, with a
strict Content-Security-Policy and no referrer, compressed static files, nothing outside the
static directory, and no third-party address anywhere in what a browser loads."""

from __future__ import annotations

import re

import pytest

from service.web import STATIC
from tests.support.client import Client

PAGES = ["/", "/play/abc123", "/join/abc123", "/replay/abc123", "/signin", "/players/abc"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_the_shell_with_strict_headers(api: Client, path: str) -> None:
    """Every page has the strict headers; the game pages are the one shell (``main.js``),
    the account's pages their own (``account.js``: the code in a sign-in link meets no other
    script)."""
    r = api.get(path)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    script = "account.js" if path in ("/signin", "/players/abc") else "main.js"
    assert f'<script type="module" src="/assets/{script}"></script>' in r.text


def test_static_files_are_gzipped_and_revalidated(api: Client) -> None:
    r = api.http.get(api.base + "/assets/table.js", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["Content-Encoding"] == "gzip"
    assert r.headers["Content-Type"].startswith("text/javascript")
    assert r.text == (STATIC / "table.js").read_text()  # requests un-gzips it
    raw = api.http.get(
        api.base + "/assets/table.js", headers={"Accept-Encoding": "identity"}, stream=True
    )
    assert "Content-Encoding" not in raw.headers
    again = api.http.get(
        api.base + "/assets/table.js",
        headers={"Accept-Encoding": "gzip", "If-None-Match": r.headers["ETag"]},
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    "path", ["/assets/../__init__.py", "/assets/%2e%2e/__init__.py", "/assets/nope.js"]
)
def test_nothing_outside_the_static_directory(api: Client, path: str) -> None:
    assert api.get(path).status_code == 404


def test_no_inline_script_or_style_and_no_other_origin() -> None:
    """What the CSP would block anyway, checked at the source: no inline handlers, no style
    attributes, no address of another site (the client works with no internet)."""
    for f in sorted(STATIC.iterdir()):
        text = f.read_text()
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), f.name
        if f.suffix in (".html", ".js"):
            assert not re.search(r"\son[a-z]+=\"", text), f"{f.name}: inline event handler"
            assert 'style="' not in text, f"{f.name}: style attribute"
            assert "eval(" not in text and "new Function" not in text, f.name
    html = (STATIC / "index.html").read_text()
    assert "<script>" not in html and "<style" not in html
