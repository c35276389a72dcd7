"""The docs site at ``/docs/`` (``service/http/site.py``): a built site's files are served with
their content types, revalidated like the client's files and with the pages' security headers;
nothing outside the site's directory is reachable; and without a built site ``/docs/`` says
how to build it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from tests.conftest import settings

INDEX = "<!doctype html><title>Chronicle</title><h1>Chronicle docs</h1>"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small built site, beside a file it must never serve."""
    tmp_path = tmp_path_factory.mktemp("docs")
    root = tmp_path / "site"
    (root / "play").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "index.html").write_text(INDEX)
    (root / "play" / "index.html").write_text("<h1>Players' guide</h1>")
    (root / "assets" / "bundle.js").write_text("console.log(1)")
    (root / "assets" / "main.css").write_text("body{}")
    (root / "search_index.json").write_text('{"docs": []}')
    (tmp_path / "secret.txt").write_text("not for you")
    return root


def client_for(root: Path, redis_url: str) -> FlaskClient:
    """The whole app (its hooks and error handlers) with ``root`` as its built site."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHRONICLE_DOCS_SITE", str(root))
        return create_app(settings(redis_url)).test_client()


@pytest.fixture(scope="module")
def docs(site: Path, redis_url: str) -> Iterator[FlaskClient]:
    yield client_for(site, redis_url)


@pytest.mark.parametrize(
    ("path", "kind", "text"),
    [
        ("/docs/", "text/html", "Chronicle docs"),
        ("/docs/index.html", "text/html", "Chronicle docs"),
        ("/docs/play/", "text/html", "Players' guide"),
        ("/docs/play/index.html", "text/html", "Players' guide"),
        ("/docs/assets/bundle.js", "javascript", "console.log(1)"),
        ("/docs/assets/main.css", "text/css", "body{}"),
        ("/docs/search_index.json", "application/json", '{"docs": []}'),
    ],
)
def test_a_built_site_is_served(docs: FlaskClient, path: str, kind: str, text: str) -> None:
    r = docs.get(path)
    assert r.status_code == 200, path
    assert kind in r.headers["Content-Type"]
    assert text in r.get_data(as_text=True)
    assert "no-cache" in r.headers["Cache-Control"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "http" not in csp  # nothing from another origin
    again = docs.get(path, headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304


def test_the_bare_prefix_redirects_to_the_site(docs: FlaskClient) -> None:
    r = docs.get("/docs")
    assert r.status_code == 308 and r.headers["Location"].endswith("/docs/")


@pytest.mark.parametrize(
    "path",
    [
        "/docs/../secret.txt",
        "/docs/%2e%2e/secret.txt",
        "/docs/..%2fsecret.txt",
        "/docs/play/../../secret.txt",
        "/docs/%2fetc/passwd",
        "/docs//etc/passwd",
        "/docs/nope.html",
        "/docs/assets/",  # a directory without an index
    ],
)
def test_nothing_outside_the_site_and_no_missing_file(docs: FlaskClient, path: str) -> None:
    r = docs.get(path, follow_redirects=True)  # Werkzeug merges "//" by a redirect first
    assert r.status_code == 404, path
    assert b"not for you" not in r.data and b"root:" not in r.data
    if r.is_json:
        assert r.get_json()["error"]["code"] == "not_found"


def test_without_a_built_site_docs_says_how_to_build_it(tmp_path: Path, redis_url: str) -> None:
    empty = tmp_path / "unbuilt"
    empty.mkdir()
    client = client_for(empty, redis_url)
    for path in ("/docs/", "/docs/play/index.html"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["Content-Type"].startswith("text/html")
        text = r.get_data(as_text=True)
        assert "mkdocs build --strict" in text and "/api/v1/docs/index" in text
    # The one-page-at-a-time documentation does not depend on the site.
    assert client.get("/api/v1/docs/contract").status_code == 200
