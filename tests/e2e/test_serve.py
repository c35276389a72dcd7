"""`chronicle serve` as a new user runs it: embedded Redis, API (gunicorn) and a worker, all
from one command; Ctrl-C stops every process cleanly.  And `chronicle replay FILE`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from service.redis_server import free_port
from tests.conftest import ROOT
from tests.support.client import Client


def test_serve_runs_everything_on_the_embedded_redis(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_REDIS_URL")}
    env["PYTHONPATH"] = str(ROOT)
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chronicle",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(data),
            "--api-processes",
            "1",
        ],
        env=env,
        cwd=tmp_path,
    )
    try:
        api = Client(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        while True:
            try:
                if api.get("/readyz").status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "serve did not come up"
            time.sleep(0.2)
        created = api.create(
            "artus", [{"name": "a", "bot": "greedy"}, {"name": "b", "bot": "random"}]
        )
        final = api.wait_status(created["id"], "finished", timeout=90)
        assert final["result"]["winners"]
        export = api.get(f"/api/v1/games/{created['id']}/export").json()
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
    assert code == 0
    assert (data / "redis" / "appendonly.aof").exists() or any((data / "redis").glob("appendonly*"))

    # the export replays through the rules from the command line
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    out = subprocess.run(
        [sys.executable, "-m", "chronicle", "replay", str(path)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) <= 8 and lines[-1].startswith("verdict: OK"), out.stdout
    assert f"winners {final['result']['winners']}" in out.stdout
    export["events"][5]["data"]["seat"] = (export["events"][5]["data"]["seat"] + 1) % 29
    path.write_text(json.dumps(export))
    bad = subprocess.run(
        [sys.executable, "-m", "chronicle", "replay", str(path)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 1 and bad.stderr.splitlines()[-1].startswith("verdict: REFUSED")
    assert "version 6" in bad.stderr
