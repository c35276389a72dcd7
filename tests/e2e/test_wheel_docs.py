"""The documentation ships with the package: a wheel built by a plain ``pip wheel .`` holds the
players' rules, the digests and the other pages of ``docs/`` (``setup.py`` copies them into
``service/docs/``) and the catalog's words, and an install of that wheel, away from the
checkout, serves ``/api/v1/docs/rules/<game>`` and the browser's ``/rules/<game>`` page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("domain", "projections", "service", "workers", "chronicle", "chronicle_client")
BUILD_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
GAMES = ("artus", "kings-and-castles", "lancaster")

# Run by the installed package's Python, from a folder outside the checkout.
SERVE = """
import json, sys
from flask import Flask
from service.http import docs
from service.web import pages
from service import catalog

app = Flask("installed")
app.register_blueprint(docs.blueprint())
app.register_blueprint(pages)
client = app.test_client()
out = {"docs_dir": str(docs.docs_dir()), "service": __import__("service").__file__}
for game in sys.argv[1:]:
    api = client.get(f"/api/v1/docs/rules/{game}?lang=en")
    page = client.get(f"/rules/{game}")
    out[game] = [api.status_code, api.get_data(as_text=True), page.status_code,
                 page.get_data(as_text=True)]
out["described"] = all(g["description"] for g in catalog.catalog()["games"])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the sources (the build writes ``build/`` where it runs)."""
    src = tmp_path_factory.mktemp("src")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in (*PACKAGES, "docs"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in BUILD_FILES:
        shutil.copy(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps"]  # as the Dockerfile builds it
    done = subprocess.run(
        [*command, "-q", "-w", str(out), str(src)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = out.glob("chronicle-*.whl")
    return found


def test_the_wheel_holds_the_rules_and_every_served_page(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"service/docs/{p.relative_to(ROOT / 'docs').as_posix()}"
               for p in (ROOT / "docs").rglob("*.md")}  # fmt: skip
    for game in GAMES:
        assert f"service/docs/rules/{game}.en.md" in names
        assert f"service/docs/digests/{game}.md" in names
    assert shipped <= names, shipped - names
    assert "service/catalog.en.json" in names


def test_an_install_away_from_the_checkout_serves_the_rules(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
         str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CHRONICLE_DOCS_DIR"}
    env["PYTHONPATH"] = str(target)  # before the venv's editable finder for this checkout
    run = subprocess.run(
        [sys.executable, "-c", SERVE, *GAMES],
        cwd=away, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    assert out["service"].startswith(str(target)), out["service"]
    assert out["docs_dir"] == str(target / "service" / "docs")
    for game in GAMES:
        api_status, api_text, page_status, page_text = out[game]
        assert api_status == 200 and page_status == 200, (game, api_status, page_status)
        assert "(AR-3)" in api_text or "(KC-3)" in api_text or "(LA-2.1)" in api_text
        assert 'id="' in page_text and "Contents" in page_text
    assert out["described"]
