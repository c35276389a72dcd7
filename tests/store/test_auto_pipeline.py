"""``service.pipelining.AutoPipeline``: under gevent the script calls of all greenlets go out
together, and each caller still gets exactly its own reply or error.  The calls run in a
gevent-patched process of their own (``tests/store/pipeline_probe.py``), as in an API process;
Redis is real, and a proxy loses a reply or the server is frozen (SIGSTOP) where the test says.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.connections import SOCKET_TIMEOUT
from service.redis_server import RedisServer, free_port
from tests.store.test_lean_script import ReplyDropper

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    s = RedisServer(tmp_path, port=free_port(), persistent=False)
    s.start()
    yield s
    if s.proc is not None:
        os.kill(s.proc.pid, signal.SIGCONT)
    s.stop()


class Probe:
    """The probe process: its lines read as JSON, a line written to let it go on."""

    def __init__(self, url: str, scenario: str, n: int = 16) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.store.pipeline_probe", url, scenario, str(n)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the probe ended (rc {self.proc.wait(10)})"
        doc: dict[str, Any] = json.loads(line)
        return doc

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def end(self) -> dict[str, Any]:
        doc = self.read()
        assert self.proc.wait(30) == 0
        return doc


def run(url: str, scenario: str, n: int = 16) -> dict[str, Any]:
    return Probe(url, scenario, n).end()


def check_burst(out: dict[str, Any]) -> None:
    """The "burst" scenario's 48 calls: each caller got its own reply, or its own refusal (one
    in three), each call ran once, and they went out together."""
    counts = []
    for i, result in enumerate(out["results"]):
        if i % 3 == 0:  # the script's own error, raised in its caller only
            assert result[:3] == ["error", "ResponseError", f"refused {i}"]
        else:
            assert result[0] == "ok" and result[1][1] == str(i), "its own reply"
            counts.append(result[1][0])
    assert sorted(counts) == list(range(1, 33)), "each ran once"
    assert out["calls"] == 48
    assert out["batches"] < 48 // 4, "the calls went out together"


def test_a_burst_goes_out_together_and_each_caller_gets_its_own(server: RedisServer) -> None:
    out = run(server.url, "burst", 48)
    assert out["lean"] == "LeanScript"
    check_burst(out)
    assert out["free"] == out["slots"], "the writer gave its connection back when idle"


def test_calls_in_turn_keep_their_order_and_replies(server: RedisServer) -> None:
    out = run(server.url, "rounds", 12)
    assert all(r[0] == "ok" for r in out["results"])
    assert sorted(r[1][0] for r in out["results"]) == list(range(1, 241))
    for i in range(12):  # one greenlet's calls, each answered after the one before
        mine = [r[1][0] for r in out["results"] if r[1][1].startswith(f"{i}.")]
        assert mine == sorted(mine) and len(mine) == 20
    assert out["batches"] < out["calls"]


def test_a_server_that_lost_its_scripts_answers_every_caller(server: RedisServer) -> None:
    out = run(server.url, "flushed", 24)
    assert all(r[0] == "ok" for r in out["results"]), out["results"]
    assert sorted(r[1][0] for r in out["results"]) == list(range(1, 26))
    assert out["free"] == out["slots"]


def test_a_lost_reply_fails_the_calls_it_carried_and_the_next_go_on(
    server: RedisServer,
) -> None:
    dropper = ReplyDropper(server.url)
    try:
        probe = Probe(f"redis://127.0.0.1:{dropper.port}/0", "harmed", 16)
        assert probe.read() == {"ready": "burst"}
        dropper.drop_next.set()
        probe.go()
        assert probe.read() == {"ready": "later"}
        probe.go()
        out = probe.end()
    finally:
        dropper.close()
    assert out["first"][0] == "ok"
    burst, later = out["burst"], out["later"]
    failed = [r for r in burst if r[0] == "error"]
    assert failed and all(r[1] == "ConnectionError" for r in failed), burst
    assert all(r[0] == "ok" for r in later), "a new connection for the calls after it"
    ran = int(redis.Redis.from_url(server.url).get("n") or 0)
    answered = 1 + sum(r[0] == "ok" for r in burst) + len(later)
    assert answered <= ran <= 1 + len(burst) + len(later), "nothing ran twice"
    assert out["free"] == out["slots"]


def test_a_frozen_redis_costs_each_caller_one_socket_timeout(server: RedisServer) -> None:
    assert server.proc is not None
    probe = Probe(server.url, "harmed", 16)
    assert probe.read() == {"ready": "burst"}
    os.kill(server.proc.pid, signal.SIGSTOP)
    probe.go()
    assert probe.read() == {"ready": "later"}
    os.kill(server.proc.pid, signal.SIGCONT)
    time.sleep(0.1)
    probe.go()
    out = probe.end()
    burst = out["burst"]
    assert all(r[:2] == ["error", "TimeoutError"] for r in burst), burst
    waited = [r[3] for r in burst]
    assert max(waited) < SOCKET_TIMEOUT + 0.5, f"one timeout, not one per call ahead: {waited}"
    assert all(r[0] == "ok" for r in out["later"]), "answered again once Redis is"
    assert out["free"] == out["slots"]
