"""What the benchmark runs against: its own Redis (free port, not persistent), the API under
gunicorn as in production, one worker process, and an in-process ``Chronicle`` on the same Redis
(for creating games quickly and for the rows that measure the service object itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from rq import Worker

from service.chronicle import Chronicle
from service.connections import connect
from service.jobs import RQJobQueue
from service.redis_server import RedisServer, free_port
from service.redis_store import INDEX, LIVE, LIVE_FILLED, RedisEventStore

ROOT = Path(__file__).resolve().parent.parent
ADMIN_TOKEN = "bench-admin-token"
# The benchmark drives hundreds of games a second from one address: rate limits off (they
# cost a Redis round trip per limit and request; see docs/benchmarks.md).
NO_LIMITS = {
    "CHRONICLE_RATE_LIMIT": "off",
    "CHRONICLE_RATE_LIMIT_ADDRESS": "off",
    "CHRONICLE_CREATE_QUOTA": "off",
    "CHRONICLE_IMPORT_QUOTA": "off",
}


class Servers:
    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="chronicle-bench-")
        self.dir = Path(self.tmp.name)
        self.redis = RedisServer(self.dir / "redis", port=free_port(), persistent=False)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.names: dict[int, str] = {}  # pid -> the module it runs, for the error at start
        self.url = ""
        self.api = ""
        self.api_processes = os.cpu_count() or 2  # as `chronicle serve`: one per core
        self.api_threads = 8

    def __enter__(self) -> Servers:
        try:
            self.start()
        except BaseException:
            for log in ("gunicorn.log", "worker.log"):
                path = self.dir / log
                if path.exists():
                    tail = path.read_text(errors="replace").splitlines()[-20:]
                    print(f"--- {log} (last lines)", *tail, sep="\n", file=sys.stderr)
            self.stop()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        self.url = self.redis.start()
        self.r = redis.Redis.from_url(self.url)
        env = {**os.environ, "REDIS_URL": self.url, "ADMIN_TOKEN": ADMIN_TOKEN, **NO_LIMITS}
        # every turn's notice looked at at once, not a minute on: ``bench.notices`` measures
        # the worst case, where no notice is settled by the grace alone
        env.setdefault("CHRONICLE_NOTICE_GRACE", "0")
        port = free_port()
        gunicorn = [
            sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}",
            "--workers", str(self.api_processes), "--worker-class", "gthread",
            "--threads", str(self.api_threads), "--no-control-socket",
            "service.app:create_app()",
        ]  # fmt: skip
        self._spawn(gunicorn, env, "gunicorn.log")
        self._spawn([sys.executable, "-m", "chronicle", "worker"], env, "worker.log")
        self.api = f"http://127.0.0.1:{port}"
        self._wait_ready()
        self.events = connect(self.url)  # the service's client (its timeouts)
        store = RedisEventStore(self.events)
        self.chronicle = Chronicle(store, RQJobQueue(connect(self.url)), ADMIN_TOKEN)

    def _spawn(self, args: list[str], env: dict[str, str], log: str) -> None:
        with open(self.dir / log, "wb") as out:
            proc = subprocess.Popen(args, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        self.names[proc.pid] = args[2]

    def _wait_ready(self, timeout: float = 30.0) -> None:
        from bench.client import Http

        http = Http(self.api)
        deadline = time.monotonic() + timeout
        api_up = workers_up = False
        while not (api_up and workers_up):
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{self.names[proc.pid]} exited at start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"API or worker not ready after {timeout}s")
            if not api_up:
                try:
                    api_up = http.request("GET", "/readyz")[0] == 200
                except OSError:
                    http.close()
            workers_up = workers_up or bool(Worker.all(connection=self.r))
            time.sleep(0.05)
        http.close()

    def clear_games(self) -> None:
        """Delete every game (not the queue nor the worker's keys)."""
        batch = []
        for key in self.r.scan_iter(match="{g:*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                self.r.unlink(*batch)
                batch.clear()
        if batch:
            self.r.unlink(*batch)
        self.r.unlink(INDEX, LIVE, LIVE_FILLED)
        self.chronicle.loader.forget_all()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()
        self.names.clear()
        self.redis.stop()
        self.tmp.cleanup()
