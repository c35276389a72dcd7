"""The documentation site builds as CI builds it (``mkdocs build --strict``: a broken link, a
missing anchor or a page left out of the navigation fails), every page of its navigation is in
it, it loads nothing from another host (it is read offline, from the running service), the
service serves it at ``/docs/`` through the real serving stack, and the README stays a short
front door (at most 300 lines, no issue numbers: history lives in git and CHANGELOG.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.conftest import ADMIN_TOKEN, ROOT
from tests.support.server import api_env, served_api

MKDOCS = Path(sys.executable).parent / "mkdocs"
# An asset the browser loads by itself: a script, a stylesheet or icon, an image, a frame.
ASSET = re.compile(
    r"<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc=\"([^\"]*)\""
    r"|<link\b[^>]*\bhref=\"([^\"]*)\""
)
CSS_URL = re.compile(r"(?:url\(\s*['\"]?|@import\s+['\"])((?:https?:)?//[^'\")\s]+)")


def nav_pages() -> list[str]:
    """The Markdown files the navigation of ``mkdocs.yml`` names."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text.split("\nnav:\n", 1)[1]
    return re.findall(r":\s+([\w./-]+\.md)\s*$", nav, re.M)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # its end-of-life notice
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return out


def test_every_page_of_the_navigation_is_built(site: Path) -> None:
    pages = nav_pages()
    sections = re.findall(r"^  - (\w[^:]*):", (ROOT / "mkdocs.yml").read_text(), re.M)
    for section in ("Play", "Host", "Build a client", "Operate", "Architecture"):
        assert section in sections, section
    assert "Benchmarks" in sections and "Decisions" in sections
    assert len(pages) >= 30, pages
    for page in pages:
        assert (ROOT / "docs" / page).is_file(), page
        name = "index.html" if page == "README.md" else page[: -len(".md")] + ".html"
        assert (site / name).is_file(), name
    for adr in (ROOT / "docs" / "adr").glob("*.md"):
        assert f"adr/{adr.name}" in pages, adr.name
    assert (site / "search" / "search_index.json").is_file()  # search works offline


def test_the_site_loads_nothing_from_another_host(site: Path) -> None:
    offenders = []
    for path in sorted(site.rglob("*.html")):
        for m in ASSET.finditer(path.read_text()):
            url = m[1] or m[2]
            if re.match(r"(https?:)?//", url):
                offenders.append(f"{path.relative_to(site)}: {url}")
    for path in sorted(site.rglob("*.css")):
        offenders += [f"{path.relative_to(site)}: {u}" for u in CSS_URL.findall(path.read_text())]
    assert not offenders, "\n".join(offenders[:20])
    index = (site / "index.html").read_text()
    assert "fonts.googleapis" not in index and "fonts.gstatic" not in index


def test_the_readme_is_a_short_front_door() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 300
    assert not re.search(r"\bissues? #?\d+", text, re.I), "issue numbers belong in git"
    for command in ("scripts/serve.sh", "scripts/test.sh", "--port", "--data-dir"):
        assert command in text, command
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"https?:", link):
            assert (ROOT / link).exists(), link
    for shot in re.findall(r'src="([^"]+)"', text):
        assert (ROOT / shot).is_file(), shot
    assert (ROOT / "CHANGELOG.md").is_file()


@pytest.fixture(scope="module")
def served_site(
    site: Path, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("api")
    env = api_env(redis_url, ADMIN_TOKEN, folder, CHRONICLE_DOCS_SITE=str(site))
    with served_api(env, folder, cwd=folder, processes=1) as base:
        yield base


def test_the_service_serves_the_built_site(served_site: str, site: Path) -> None:
    home = requests.get(f"{served_site}/docs/", timeout=10)
    assert home.status_code == 200 and home.headers["Content-Type"].startswith("text/html")
    assert home.text == (site / "index.html").read_text()
    for page in ("client/walkthrough.html", "operate/configuration.html", "benchmarks.html"):
        r = requests.get(f"{served_site}/docs/{page}", timeout=10)
        assert r.status_code == 200, page
        assert r.content == (site / page).read_bytes()
    scripts = re.findall(r'<script src="([^"]+)"', home.text)
    assert scripts
    for src in scripts:
        r = requests.get(f"{served_site}/docs/{src}", timeout=10)
        assert r.status_code == 200 and "javascript" in r.headers["Content-Type"], src
    index = requests.get(f"{served_site}/docs/search/search_index.json", timeout=10)
    assert index.status_code == 200 and index.json()["docs"]
    for bad in ("/docs/..%2f..%2fpyproject.toml", "/docs/nope.html"):
        assert requests.get(served_site + bad, timeout=10).status_code == 404, bad
