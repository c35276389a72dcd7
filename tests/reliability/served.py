"""`chronicle serve` as a test runs it: one process tree on loopback with its embedded Redis in
the test's folder, started and stopped by the test, its processes found through ``/proc``.

Every wait is bounded; whatever the test leaves running is ended by the pids it found (the
serve process itself, then any descendant still alive), never by a name.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, TypeVar

import redis
import requests

from service.redis_server import free_port
from tests.conftest import ADMIN_TOKEN, ROOT
from tests.support.server import stop_gracefully

T = TypeVar("T")


def serve_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CHRONICLE_", "REDIS_URL", "QUEUE_REDIS_URL", "ADMIN_TOKEN"))
    }
    env.update(
        ADMIN_TOKEN=ADMIN_TOKEN,
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        CHRONICLE_RATE_LIMIT="off",
        CHRONICLE_RATE_LIMIT_ADDRESS="off",
        CHRONICLE_RECONCILE_SECONDS="0.5",
        CHRONICLE_RECONCILE_QUIET_SECONDS="1",
    )
    env.update(extra)
    return env


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        with suppress(OSError):
            found += [int(x) for x in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    out: list[int] = []
    todo = children(pid)
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Served:
    def __init__(self, tmp: Path, data: Path | None = None, **env: str) -> None:
        self.tmp = tmp
        self.data = data or tmp / "data"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = serve_env(**env)
        self.log = tmp / f"serve-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None
        self.seen: set[int] = set()

    def start(self, api_processes: int = 1, wait: bool = True, extra: Any = ()) -> Served:
        self._out = self.log.open("ab")
        args = [
            sys.executable, "-m", "chronicle", "serve", "--port", str(self.port),
            "--data-dir", str(self.data), "--api-processes", str(api_processes), *extra,
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            args, env=self.env, cwd=self.tmp, stdout=self._out, stderr=subprocess.STDOUT
        )
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 40) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            try:
                if requests.get(self.base + "/readyz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert self.proc.poll() is None, f"serve exited at start: {self.output()[-3000:]}"
            assert time.monotonic() < deadline, f"serve did not come up: {self.output()[-3000:]}"
            time.sleep(0.1)
        self.remember()

    def remember(self) -> list[int]:
        assert self.proc is not None
        found = descendants(self.proc.pid)
        self.seen.update(found)
        return found

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def pids(self, needle: str) -> list[int]:
        """serve's own children (not theirs) whose command line holds ``needle``."""
        assert self.proc is not None
        self.remember()
        return [p for p in children(self.proc.pid) if needle in cmdline(p) and alive(p)]

    def redis(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.data / "redis" / "redis.sock"))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.remember()
            stop_gracefully(self.proc, 30, signal.SIGINT)
        for pid in self.seen:  # anything left behind by a failed test: by pid, never by name
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self._out:
            self._out.close()


@contextmanager
def served(tmp: Path, api_processes: int = 1, **env: str) -> Iterator[Served]:
    s = Served(tmp, None, **env)
    try:
        yield s.start(api_processes)
    finally:
        s.stop()


def wait_until(
    check: Callable[[], T], timeout: float, message: str | Callable[[], str], every: float = 0.05
) -> T:
    """``check()``'s first true answer within ``timeout`` seconds.  A callable ``message`` is
    called only on failure: it may read the server's output, which is still being written."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, message() if callable(message) else message
        time.sleep(every)


def raw_request(port: int, data: bytes, timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as is and read the whole answer (the server closes or sends a length)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
        length = int(headers.get("content-length", "-1"))
        while length < 0 or len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, headers, body
