"""Real processes for the fault tests, each bounded in time and on loopback only.

``Stack`` owns what one test starts: a Redis server of its own (never the session's, never the
machine's), API processes (gunicorn) and worker processes (``python -m chronicle worker``), each
writing its output to a file of the test's temporary folder (the log-secrecy test reads them).
Everything is stopped at the end of the test, by the process ids it started.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import redis
import requests

from domain import engine
from domain.rng import Rng
from projections.views import SEAT, Caller
from service.chronicle import Chronicle
from service.connections import connect
from service.jobs import NoJobs
from service.redis_server import RedisServer, free_port
from service.redis_store import RedisEventStore
from service.serving import gunicorn_command
from tests.conftest import ADMIN_TOKEN, ROOT
from tests.support.server import stop_gracefully


def base_env(redis_url: str, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CHRONICLE_", "REDIS_URL", "QUEUE_REDIS_URL", "ADMIN_TOKEN"))
    }
    env.update(
        REDIS_URL=redis_url,
        ADMIN_TOKEN=ADMIN_TOKEN,
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        CHRONICLE_RECONCILE_SECONDS="0.5",
        CHRONICLE_RECONCILE_QUIET_SECONDS="1",
        CHRONICLE_RATE_LIMIT="off",  # the rate-limit tests turn them on
        CHRONICLE_RATE_LIMIT_ADDRESS="off",
        CHRONICLE_CREATE_QUOTA="off",  # the quota tests turn them on
        CHRONICLE_IMPORT_QUOTA="off",
    )
    env.update(extra)
    return env


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    _out: IO[bytes] = field(repr=False)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 10) -> None:
        stop_gracefully(self.popen, timeout)
        self._out.close()

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)


class Stack:
    """One test's Redis, APIs and workers."""

    def __init__(self, tmp: Path, persistent: bool = False, appendfsync: str = "always") -> None:
        self.tmp = tmp
        self.redis = RedisServer(tmp / "redis", persistent=persistent, appendfsync=appendfsync)
        self.url = self.redis.start()
        self.procs: list[Proc] = []

    # ---- processes ------------------------------------------------------------------------
    def _spawn(self, name: str, args: list[str], env: Mapping[str, str]) -> Proc:
        log = self.tmp / f"{name}-{len(self.procs)}.log"
        out = log.open("wb")
        popen = subprocess.Popen(args, env=dict(env), cwd=ROOT, stdout=out, stderr=out)
        proc = Proc(name, popen, log, out)
        self.procs.append(proc)
        return proc

    def api(self, processes: int = 1, **env: str) -> tuple[Proc, str]:
        """gunicorn serving ``create_app()`` as `chronicle serve` does; the process, its URL."""
        port = free_port()
        args = gunicorn_command(f"127.0.0.1:{port}", processes)  # as `serve` does
        proc = self._spawn("api", args, base_env(self.url, **env))
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: _answers(base), 20, f"the API at {base} did not come up ({proc.log})")
        return proc, base

    def worker(self, **env: str) -> Proc:
        proc = self._spawn(
            "worker", [sys.executable, "-m", "chronicle", "worker"], base_env(self.url, **env)
        )
        time.sleep(0.3)
        assert proc.alive(), f"the worker died at start ({proc.log.read_text()[-2000:]})"
        return proc

    def close(self) -> None:
        for p in self.procs:
            p.stop()
        self.redis.stop()

    # ---- direct access --------------------------------------------------------------------
    def client(self) -> redis.Redis:
        return connect(self.url)

    def chronicle(self) -> Chronicle:
        """The write path in this process, enqueueing nothing (a test drives it directly)."""
        return Chronicle(RedisEventStore(self.client()), NoJobs(), ADMIN_TOKEN)

    def logs(self) -> str:
        return "\n".join(p.log.read_text(errors="replace") for p in self.procs if p.log.exists())


def _answers(base: str) -> bool:
    try:
        return requests.get(base + "/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def wait_until(check: Any, timeout: float, message: str, every: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, message
        time.sleep(every)


@contextmanager
def stack(tmp: Path, **kwargs: Any) -> Iterator[Stack]:
    s = Stack(tmp, **kwargs)
    try:
        yield s
    finally:
        s.close()


def play_until(
    ch: Chronicle,
    gid: str,
    stop: Any,
    rng: random.Random,
    max_steps: int = 5000,
) -> None:
    """Random legal actions of human seats through ``ch`` until ``stop(game, match, seat,
    action)`` is true for the action about to be taken (that action is not taken)."""
    for _ in range(max_steps):
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        assert to_act, "the game ended before the stop condition"
        seat = rng.choice(to_act)
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        if stop(cur.game, cur.match, seat, action):
            return
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
    raise AssertionError("the stop condition never held")


def ends_the_game(game: Any, match: Any, seat: int, action: dict[str, Any], seed: str) -> bool:
    """Would this action bring the rules to their end (status ``scoring``)?"""
    events = engine.decide(game, match, seat, action, Rng.at(seed, match.version + 1))
    return engine.fold(game, events, match).status(game) == engine.SCORING
