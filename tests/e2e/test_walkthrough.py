"""The docs' curl walk-through (``docs/client/walkthrough.md``) runs as written: its shell block
(the one after the ``<!-- walkthrough`` marker) is run with bash against a live server that has
the default rate limits of ``chronicle serve``, and what it prints must be the block's ``#> ``
lines, once what differs on every run (ids, tokens, hashes, times) is replaced by the page's
placeholders.  The Python client's example (``docs/client/python.md``) plays a game as written."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.app import create_app
from service.http import limits
from service.redis_server import RedisServer, free_port
from tests.conftest import ADMIN_TOKEN, ROOT, settings
from tests.support.server import serving

WALKTHROUGH = ROOT / "docs" / "client" / "walkthrough.md"
CLIENT_PAGE = ROOT / "docs" / "client" / "python.md"
MARKER = "<!-- walkthrough"
EXPECTED = "#> "
# What differs on every run, and the placeholder the page shows for it.
PLACEHOLDERS = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])"), "<hash>"),
    (re.compile(r'(?<="id":")[0-9a-f]{16}(?=")'), "<id>"),
    (re.compile(r'(?<="token":")[A-Za-z0-9_-]{43}(?=")'), "<token>"),
]


def walkthrough(page: str) -> str:
    """The shell block right after the marker: the one ```sh fence that follows it."""
    after = page.split(MARKER, 1)[1]
    match = re.match(r"[^\n]*-->\n```sh\n(.*?)\n```\n", after, re.S)
    assert match, "the walk-through marker is not followed by a ```sh block"
    return match.group(1)


def expected_output(block: str) -> list[str]:
    return [line[len(EXPECTED) :] for line in block.splitlines() if line.startswith(EXPECTED)]


def normalised(output: str) -> list[str]:
    for pattern, placeholder in PLACEHOLDERS:
        output = pattern.sub(placeholder, output)
    return output.splitlines()


@pytest.fixture
def limited_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh API with `chronicle serve`'s rate limits, on a Redis of its own (the counters of
    other tests do not count here)."""
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT", limits.DEFAULT_TOKEN_LIMIT)
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", limits.DEFAULT_ADDRESS_LIMIT)
    server = RedisServer(tmp_path / "redis", port=free_port(), persistent=False)
    url = server.start()
    try:
        with serving(create_app(settings(url))) as base:
            yield f"{base}/api/v1"
    finally:
        server.stop()


def run(block: str, api: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "API": api,
        "ADMIN_TOKEN": ADMIN_TOKEN,
        # `chronicle` is the console script next to this interpreter (the page: the venv's)
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", block],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_walkthrough_prints_what_the_page_says(limited_api: str, tmp_path: Path) -> None:
    for tool in ("curl", "jq"):
        if not shutil.which(tool):
            if os.environ.get("CI"):
                pytest.fail(f"{tool} is missing: the walk-through needs it")
            pytest.skip(f"{tool} is missing: the walk-through needs it")
    block = walkthrough(WALKTHROUGH.read_text())
    expected = expected_output(block)
    assert len(expected) >= 20, "the walk-through shows too little of its output"
    work = tmp_path / "reader"
    work.mkdir()
    done = run(block, limited_api, work)
    assert done.returncode == 0 and not done.stderr, (done.stderr + done.stdout)[-3000:]
    assert normalised(done.stdout) == expected


def test_the_client_example_plays_a_game_against_a_bot(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    """The Python block after ``<!-- example``, run as written but for the server's address."""
    after = CLIENT_PAGE.read_text().split("<!-- example", 1)[1]
    match = re.match(r"[^\n]*-->\n```python\n(.*?)\n```\n", after, re.S)
    assert match, "the example marker is not followed by a ```python block"
    code = match.group(1)
    assert code.count('"http://127.0.0.1:8000"') == 1
    code = code.replace('"http://127.0.0.1:8000"', repr(server_url))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = ast.literal_eval(done.stdout.strip())
    assert sorted(result["scores"]) == ["0", "1"] and result["winners"], result
