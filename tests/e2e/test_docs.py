"""The documentation works offline: the Swagger UI page rendered by Debian's Chromium with every
host but loopback unresolvable lists the API's operations, and the shipped docs/ pages (the
contract, the players' rules, the rules digests) are served as HTML and Markdown and linked from
the OpenAPI text.  The players' rules anchor every rule id a refusal can name, and the catalog
carries the words a person reads about each game, option and bot."""

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
GAMES = {"artus": "AR", "kings-and-castles": "KC", "lancaster": "LA"}  # id -> rule id prefix
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
        ("digests/artus", "digests/artus.md", "Artus"),
        ("digests/kings-and-castles", "digests/kings-and-castles.md", "Kings and Castles"),
        ("digests/lancaster", "digests/lancaster.md", "Lancaster"),
        ("rules/artus", "rules/artus.en.md", "Artus: the rules"),
        ("rules/kings-and-castles", "rules/kings-and-castles.en.md", "Kings and Castles: the"),
        ("rules/lancaster", "rules/lancaster.en.md", "Lancaster: the rules"),
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
    for href in ("contract", *(f"{kind}/{g}" for kind in ("rules", "digests") for g in GAMES)):
        assert f'href="{href}"' in index
        assert requests.get(f"{server_url}/api/v1/docs/{href}", timeout=10).status_code == 200
    spec = requests.get(f"{server_url}/api/v1/openapi.json", timeout=10).json()
    description = spec["info"]["description"]
    for link in re.findall(r"\]\((/api/v1/docs/[^)]+)\)", description):
        assert requests.get(server_url + link, timeout=10).status_code == 200, link
    assert "/api/v1/docs/contract" in description and "shared/" not in description
    for game in GAMES:  # the players' rules and the digests, both linked
        assert f"/api/v1/docs/rules/{game})" in description
        assert f"/api/v1/docs/digests/{game})" in description
    missing = requests.get(f"{server_url}/api/v1/docs/rules/chess", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def raised_rule_ids(game: str) -> set[str]:
    """Every rule id the game's code can name in a refusal (``IllegalAction("AR-3", ...)`` and
    the ids its tables of checks hold), read from its package's source."""
    package = ROOT / "domain" / "games" / game.replace("-", "_")
    prefix = GAMES[game]
    found = set()
    for path in package.glob("*.py"):
        found |= set(re.findall(rf'"({prefix}-\d+(?:\.\d+)*)"', path.read_text()))
    return found


def digest_rule_ids(game: str) -> set[str]:
    """The ids the developers' digest defines: its headings and its ``- AR-4.1 ...`` items."""
    text = (ROOT / "docs" / "digests" / f"{game}.md").read_text()
    prefix = GAMES[game]
    return set(re.findall(rf"^(?:#+ |- )({prefix}-\d+(?:\.\d+)*)\b", text, re.M))


@pytest.mark.parametrize("game", GAMES)
def test_the_players_rules_anchor_every_rule_a_refusal_names(server_url: str, game: str) -> None:
    raised = raised_rule_ids(game)
    assert len(raised) >= 8, raised  # the grep found the game's refusals
    wanted = raised | digest_rule_ids(game)
    for url in (
        f"/api/v1/docs/rules/{game}",
        f"/api/v1/docs/rules/{game}?lang=en",
        f"/rules/{game}",
    ):
        page = requests.get(server_url + url, timeout=10)
        assert page.status_code == 200, url
        assert page.headers["Content-Language"] == "en"
        anchors = set(re.findall(r'<h[23] id="([^"]+)"', page.text))
        assert wanted <= anchors, (url, sorted(wanted - anchors))
    # The Markdown marks each section with its id; no developer's words reach a player.
    md = requests.get(f"{server_url}/api/v1/docs/rules/{game}.md", timeout=10)
    assert md.status_code == 200 and md.headers["Content-Language"] == "en"
    for rule in wanted:
        assert f"({rule})" in md.text, rule
    for developer_word in ("seed", ".json", "action id", "`", "place_knight", "end_attacks"):
        assert developer_word not in md.text, developer_word
    # Each language marks the same rules (tests/e2e/test_languages.py: the same ids in order).
    ja = requests.get(f"{server_url}/api/v1/docs/rules/{game}.md?lang=ja", timeout=10)
    assert ja.text != md.text and ja.headers["Content-Language"] == "ja"
    for rule in wanted:
        assert f"({rule})" in ja.text, rule


def test_the_rules_page_is_a_page_of_the_site(server_url: str) -> None:
    page = requests.get(f"{server_url}/rules/artus", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "<style" not in page.text and "<script" not in page.text and "style=" not in page.text
    assert '<a href="#AR-4.1">' in page.text  # the table of contents
    assert 'href="/api/v1/docs/digests/artus"' in page.text
    for game in GAMES:
        assert f'href="/rules/{game}"' in page.text
    missing = requests.get(f"{server_url}/rules/chess", timeout=10)
    assert missing.status_code == 404


def test_the_catalog_describes_each_game_option_and_bot_in_words(server_url: str) -> None:
    got = requests.get(f"{server_url}/api/v1/catalog", timeout=10)
    assert got.status_code == 200
    for g in got.json()["games"]:
        assert len(g["description"]) > 100, g["id"]
        assert g["rules"] == f"/api/v1/docs/rules/{g['id']}"
        assert requests.get(server_url + g["rules"], timeout=10).status_code == 200
        for name, option in g["options"].items():
            assert option["label"] and option["label"] != name, (g["id"], name)
            assert len(option["description"]) > 20, (g["id"], name)
            assert set(option["choices"]) == set(option["values"]), (g["id"], name)
            for value, words in option["choices"].items():
                assert words["label"] != value and len(words["description"]) > 10, value
        assert set(g["bot_levels"]) == set(g["bots"])
        for bot, words in g["bot_levels"].items():
            assert words["label"] != bot and len(words["description"]) > 20, bot


def test_no_pointer_to_files_a_clone_does_not_have() -> None:
    """README, the docs pages, docstrings and the OpenAPI text point at docs/, shipped in the
    repository."""
    offenders = []
    code = ("domain", "projections", "service", "workers", "chronicle", "tests", "bench")
    sources = sorted(p for d in code for p in (ROOT / d).rglob("*.py"))
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in [*pages, *ROOT.glob("docker/*.md"), *sources]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"(\.\./|``|`|\()shared/(contract|rules|seeds|design)", line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
