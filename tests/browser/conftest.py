"""Real-browser fixtures: Debian's chromium driven by Playwright (never a downloaded browser),
pages that record every console error, and a directory for screenshots (test artifacts)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

if not Path(CHROMIUM).exists():  # scripts/setup.sh installs it (as root)
    pytest.skip(f"no browser at {CHROMIUM}", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield b
        b.close()


class Console:
    """Every console error and uncaught exception of the pages it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.expected: list[tuple[str, int]] = []  # (path end, status) the test provoked

    def expect(self, path_end: str, status: int) -> None:
        """The next failed load of ``path_end`` with ``status`` is the test's doing (e.g. an
        undo the rules refuse); Chromium logs every failed request to the console."""
        self.expected.append((path_end, status))

    def _console(self, name: str, m: Any) -> None:
        if m.type != "error":
            return
        url = (m.location or {}).get("url", "")
        for i, (end, status) in enumerate(self.expected):
            if url.endswith(end) and f"status of {status}" in m.text:
                del self.expected[i]
                return
        self.errors.append(f"{name}: {m.text} {url}")

    def watch(self, page: Any, name: str) -> Any:
        page.on("console", lambda m: self._console(name, m))
        page.on("pageerror", lambda e: self.errors.append(f"{name}: {e}"))
        return page


@pytest.fixture
def console() -> Console:
    return Console()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
