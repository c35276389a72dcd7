"""`chronicle serve` supervises its children (issue 10), on loopback, bounded in time:

- SIGKILL of the worker alone: the API and Redis stay up, the worker is restarted (logged), and
  a bot game finishes;
- SIGKILL of `chronicle serve` itself: none of its processes is left behind, a restart on the
  same data folder works and still has the games, and a second serve on that folder is refused
  with a clear message while the first runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import requests

from tests.reliability.served import Served, alive, descendants, served, wait_until
from tests.support.client import Client

BOTS = [{"name": "a", "bot": "greedy"}, {"name": "b", "bot": "random"}]


def test_a_killed_worker_is_restarted_and_nothing_else_stops(tmp_path: Path) -> None:
    with served(tmp_path) as s:
        api = Client(s.base)
        [worker] = wait_until(lambda: s.pids("chronicle worker"), 10, "no worker")
        [redis_pid] = s.pids("redis-server")
        api_pids = s.pids("gunicorn")
        os.kill(worker, signal.SIGKILL)
        restarted = wait_until(
            lambda: [p for p in s.pids("chronicle worker") if p != worker], 20, s.output
        )
        assert s.proc is not None and s.proc.poll() is None, "serve stopped"
        assert alive(redis_pid) and all(alive(p) for p in api_pids), "another child stopped"
        assert api.get("/readyz").status_code == 200
        game = api.create("artus", BOTS, options={"rules": "basic"})
        final = api.wait_status(game["id"], "finished", timeout=90)
        assert final["result"]["winners"]
        assert "restart" in s.output().lower(), s.output()[-2000:]
        assert restarted


def test_serve_killed_leaves_no_orphans_and_its_data_folder_is_locked(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Served(tmp_path, data).start()
    try:
        api = Client(first.base)
        game = api.create("artus", BOTS, options={"rules": "basic"})
        api.wait_status(game["id"], "finished", timeout=90)
        # a second serve on the same folder is refused, clearly, and the first is untouched
        second = subprocess.run(
            [sys.executable, "-m", "chronicle", "serve", "--port", "0", "--data-dir", str(data)],
            env=first.env, cwd=tmp_path, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert second.returncode != 0
        said = second.stdout + second.stderr
        assert "in use" in said and str(data.resolve()) in said, said
        assert requests.get(first.base + "/readyz", timeout=2).status_code == 200
        family = first.remember()
        assert len(family) >= 3, family  # Redis, gunicorn (and its worker), the RQ worker
        assert first.proc is not None
        first.proc.kill()  # SIGKILL: no handler runs in serve
        first.proc.wait(5)
        wait_until(
            lambda: not [p for p in family if alive(p)],
            20,
            lambda: f"left behind: {[p for p in family if alive(p)]}",
        )
    finally:
        first.stop()
    again = Served(tmp_path, data).start()
    try:
        assert Client(again.base).summary(game["id"])["status"] == "finished"
    finally:
        again.stop()
    mine = [p for p in descendants(os.getpid()) if str(data.resolve()) in _cmd(p)]
    assert not mine, "a process of this data folder outlived its serve"


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def test_serve_stops_everything_on_sigterm(tmp_path: Path) -> None:
    s = Served(tmp_path).start()
    try:
        family = s.remember()
        assert s.proc is not None
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(30) == 0
        wait_until(lambda: not [p for p in family if alive(p)], 15, "children left")
    finally:
        s.stop()
