"""The documentation works offline: the Swagger UI page rendered by Debian's Chromium with every
host but loopback unresolvable lists the API's operations, and the shipped docs/ pages (the
contract, the rules digests) are served as HTML and Markdown and linked from the OpenAPI text."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from service.http import docs
from tests.conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
# Offline: any name but loopback fails to resolve, so an asset from a CDN could not load.
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is missing (run scripts/setup.sh as root to install it)")
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        OFFLINE, "--virtual-time-budget=20000", "--window-size=1280,1600", *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=90)


def test_the_docs_page_lists_every_operation_offline(server_url: str, tmp_path: Path) -> None:
    page = requests.get(f"{server_url}/api/v1/docs", timeout=10)
    assert page.status_code == 200
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text), "an asset is loaded from afar"

    spec = requests.get(f"{server_url}/api/v1/openapi.json", timeout=10).json()
    operation_ids = {
        op["operationId"]
        for path in spec["paths"].values()
        for method, op in path.items()
        if method in ("get", "post", "put", "patch", "delete")
    }
    assert len(operation_ids) >= 12

    dom = chromium("--dump-dom", f"{server_url}/api/v1/docs")
    assert dom.returncode == 0, dom.stderr[-2000:]
    shown = set(re.findall(r'id="operations-(?!tag-)[^"-]+-([A-Za-z]+)"', dom.stdout))
    assert shown == operation_ids, f"missing from the rendered page: {operation_ids - shown}"
    assert "SwaggerUIBundle is not defined" not in dom.stdout

    # The screenshot is not blank: a rendered page compresses far worse than an empty one.
    shot, blank = tmp_path / "docs.png", tmp_path / "blank.png"
    assert chromium(f"--screenshot={shot}", f"{server_url}/api/v1/docs").returncode == 0
    assert chromium(f"--screenshot={blank}", "about:blank").returncode == 0
    assert shot.stat().st_size > 10 * blank.stat().st_size, (shot.stat(), blank.stat())
    if out := os.environ.get("CHRONICLE_SCREENSHOTS"):  # to look at it: a folder to copy it to
        shutil.copy(shot, Path(out) / "docs.png")


def test_the_swagger_ui_assets_come_from_the_package(server_url: str) -> None:
    for name, kind in (("swagger-ui-bundle.js", "javascript"), ("swagger-ui.css", "css")):
        r = requests.get(f"{server_url}{docs.ASSETS_URL}{name}", timeout=10)
        assert r.status_code == 200 and kind in r.headers["Content-Type"]
        assert len(r.content) > 1000
    for name in ("index.html", "..%2Fpyproject.toml", "swagger-initializer.js"):
        r = requests.get(f"{server_url}{docs.ASSETS_URL}{name}", timeout=10)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("page", "source", "heading"),
    [
        ("contract", "contract.md", "Chronicle HTTP contract (v1)"),
        ("rules/artus", "rules/artus.md", "Artus"),
        ("rules/kings-and-castles", "rules/kings-and-castles.md", "Kings and Castles"),
        ("rules/lancaster", "rules/lancaster.md", "Lancaster"),
        ("index", "README.md", "Chronicle documentation"),
    ],
)
def test_the_shipped_docs_are_served(server_url: str, page: str, source: str, heading: str) -> None:
    text = (ROOT / "docs" / source).read_text()
    raw = requests.get(f"{server_url}/api/v1/docs/{page}.md", timeout=10)
    assert raw.status_code == 200 and raw.headers["Content-Type"].startswith("text/markdown")
    assert raw.text == text
    rendered = requests.get(f"{server_url}/api/v1/docs/{page}", timeout=10)
    assert rendered.status_code == 200 and rendered.headers["Content-Type"].startswith("text/html")
    assert f"<h1>{heading}" in rendered.text


def test_the_index_links_every_page_and_the_openapi_text_links_the_docs(server_url: str) -> None:
    index = requests.get(f"{server_url}/api/v1/docs/index", timeout=10).text
    for href in ("contract", "rules/artus", "rules/kings-and-castles", "rules/lancaster"):
        assert f'href="{href}"' in index
        assert requests.get(f"{server_url}/api/v1/docs/{href}", timeout=10).status_code == 200
    spec = requests.get(f"{server_url}/api/v1/openapi.json", timeout=10).json()
    description = spec["info"]["description"]
    for link in re.findall(r"\]\((/api/v1/docs/[^)]+)\)", description):
        assert requests.get(server_url + link, timeout=10).status_code == 200, link
    assert "/api/v1/docs/contract" in description and "shared/" not in description
    missing = requests.get(f"{server_url}/api/v1/docs/rules/chess", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_no_pointer_to_files_a_clone_does_not_have() -> None:
    """README, docstrings and the OpenAPI text point at docs/, shipped in the repository."""
    offenders = []
    code = ("domain", "projections", "service", "workers", "chronicle", "tests", "bench")
    sources = sorted(p for d in code for p in (ROOT / d).rglob("*.py"))
    for path in [ROOT / "README.md", *ROOT.glob("docker/*.md"), *sources]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"(\.\./|``|`|\()shared/(contract|rules|seeds|design)", line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
