"""One real `chronicle serve` for the benchmarks that measure it whole (``bench.edge``,
``bench.moves``): started from a source tree in a temporary folder of its own (its embedded
Redis included), ready once ``/readyz`` answers, stopped with SIGINT as a person would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import requests

from chronicle_client import Client
from service.redis_server import free_port

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, children: bool = True) -> float:
    """CPU seconds a process has used (user and system, with its reaped children's unless
    ``children`` is False), from ``/proc/<pid>/stat``; ``OSError`` once it is gone."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    f = stat[stat.rindex(")") + 2 :].split()  # after the name: the fields from the state on
    return sum(int(x) for x in f[11 : 15 if children else 13]) / TICK  # utime stime cu cs


class ChronicleServe:
    def __init__(
        self,
        root: Path,
        env: Mapping[str, str],
        args: Sequence[str] = (),
        prefix: str = "chronicle-bench-",
        ready_seconds: float = 90,
    ) -> None:
        self.root, self.env, self.args = root, dict(env), list(args)
        self.ready_seconds = ready_seconds
        self.tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.dir = Path(self.tmp.name)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_REDIS_URL")}
        env.update(self.env, PYTHONPATH=str(self.root))
        args = [sys.executable, "-m", "chronicle", "serve", "--port", str(self.port)]
        args += ["--data-dir", str(self.dir / "data"), *self.args]
        with open(self.dir / "serve.log", "wb") as out:
            self.proc = subprocess.Popen(args, env=env, cwd=self.root, stdout=out, stderr=out)
        api = Client(self.base)
        deadline = time.monotonic() + self.ready_seconds
        try:
            while True:
                try:
                    if api.raw("GET", "/readyz").status_code == 200:
                        return
                except requests.ConnectionError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((self.dir / "serve.log").read_text()[-3000:])
                time.sleep(0.1)
        finally:
            api.http.close()

    def pids(self) -> list[int]:
        """The serve and every process under it (Redis, gunicorn's, the worker)."""
        assert self.proc is not None
        return [self.proc.pid, *descendants(self.proc.pid)]

    def cpu(self) -> dict[int, float]:
        """CPU seconds of each process of the serve (user, system, reaped children)."""
        out = {}
        for pid in self.pids():
            try:
                out[pid] = cpu_seconds(pid)
            except OSError:
                continue
        return out

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.tmp.cleanup()


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = [int(x) for x in (task / "children").read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out
