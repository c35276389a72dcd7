"""Metrics and logs of real processes: two gunicorn API processes and a worker share one
``PROMETHEUS_MULTIPROC_DIR``, so ``/metrics`` (whichever process answers) adds up every
process's counts, jobs included; a dead process's live watchers stop counting; API and worker
write JSON lines (one per request, one per job) that carry the request id and no secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import requests

from tests.conftest import ROOT
from tests.reliability.stack import stack, wait_until
from tests.support.client import Client
from tests.support.metrics import scrape, value


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_metrics_add_up_over_processes_and_logs_are_json_lines(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    env = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    with stack(tmp_path) as s:
        _, base = s.api(processes=2, **env)
        s.worker(**env)
        api = Client(base)
        created = api.create(
            "artus", [{"name": "a", "bot": "greedy"}, {"name": "b", "bot": "random"}]
        )
        gid = created["id"]
        final = api.wait_status(gid, "finished", timeout=90)

        before = scrape(base)
        for _ in range(40):  # spread over both API processes
            assert api.get("/healthz").status_code == 200
        after = scrape(base)
        healthz = {"route": "/healthz", "status": "200", "method": "GET"}
        got = value(after, "chronicle_http_requests_total", **healthz)
        assert got - value(before, "chronicle_http_requests_total", **healthz) == 40
        pids = {p.name.rsplit("_", 1)[1] for p in metrics_dir.glob("counter_*.db")}
        assert len(pids) >= 3, pids  # two API processes and the worker wrote their values

        # the worker's jobs, counted in its own process, are in the API's /metrics
        played = value(after, "chronicle_job_duration_seconds_count", kind="bot", outcome="played")
        scored = value(
            after, "chronicle_job_duration_seconds_count", kind="score", outcome="scored"
        )
        assert played >= final["version"] // 2 and scored == 1
        assert value(after, "chronicle_job_failures_total") == 0
        assert value(after, "chronicle_appends_total") >= played + 2  # creation, turns, result
        assert value(after, "chronicle_queue_depth", queue="chronicle") == 0

        # one JSON line per job in the worker's output, with the game and the outcome
        worker_lines = json_lines(s.procs[-1].log.read_text())
        jobs = [line for line in worker_lines if line["message"] == "job"]
        assert {j["game_id"] for j in jobs} == {gid}
        assert sum(j["outcome"] == "played" for j in jobs) == played
        assert sum(j["outcome"] == "scored" for j in jobs) == 1
        assert all(j["duration_ms"] >= 0 and j["job_id"] for j in jobs)

        # one JSON line per request in the API's output, with the id the client sent
        r = requests.get(f"{base}/api/v1/games/{gid}", headers={"X-Request-ID": "op-7"}, timeout=5)
        assert r.headers["X-Request-ID"] == "op-7"
        lines = wait_until(
            lambda: [
                line
                for p in s.procs[:1]
                for line in json_lines(p.log.read_text())
                if line.get("request_id") == "op-7"
            ],
            5,
            "no log line with the request id",
        )
        assert lines[0]["message"] == "request" and lines[0]["status"] == 200
        assert lines[0]["route"] == "/api/v1/games/<game_id:game_id>"
        logs = s.logs()
        assert created["host_token"] not in logs


def test_a_dead_process_stops_counting_its_watchers(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    env = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    with stack(tmp_path) as s:
        _, base = s.api(processes=1, **env)
        watcher = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time\n"
                "from service.metrics import watching\n"
                "with watching(), watching():\n"
                "    print('watching', flush=True); time.sleep(60)\n",
            ],
            env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert watcher.stdout is not None and watcher.stdout.readline() == "watching\n"
            assert value(scrape(base), "chronicle_live_watchers") == 2
        finally:
            watcher.kill()
            watcher.wait(10)
        assert value(scrape(base), "chronicle_live_watchers") == 0


def test_a_forked_process_counts_in_files_of_its_own(tmp_path: Path) -> None:
    """The metrics' process id is read from memory (``metrics._Pid``), not asked of
    the system at every count: a child forked after a count must still write its own files,
    or two processes would count into one and ``/metrics`` would add up a mix."""
    metrics_dir = tmp_path / "metrics"
    script = (
        "import os\n"
        "from service import metrics as o\n"
        "o.APPENDS.inc()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    o.APPENDS.inc(); o.APPENDS.inc(); os._exit(0)\n"
        "os.waitpid(child, 0)\n"
        "print(os.getpid(), child)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    parent, child = out
    files = {p.name for p in metrics_dir.glob("counter_*.db")}
    assert files == {f"counter_{parent}.db", f"counter_{child}.db"}
    from prometheus_client import CollectorRegistry, multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(metrics_dir))
    assert registry.get_sample_value("chronicle_appends_total") == 3
