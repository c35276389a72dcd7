"""Fixtures that start real things: a Redis server on a free port (never a mock, never the
machine's shared Redis), the API served over real HTTP, and real RQ worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from service.app import create_app
from service.config import Settings
from service.redis_server import RedisServer, free_port
from tests.support.client import Client
from tests.support.server import serving

ADMIN_TOKEN = "test-admin-token"
ROOT = Path(__file__).resolve().parent.parent

# The tests' webhook receivers listen on loopback, and a receiver that is down is retried
# within seconds rather than minutes (the in-process API and the worker processes read these).
os.environ.setdefault("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "1")
os.environ.setdefault("CHRONICLE_WEBHOOK_BACKOFF", "1,1,2,2,3,3")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("redis"), port=free_port(), persistent=False)
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def own_redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own, for a test that empties or scans what the session
    worker's reconciler (every second) also reads on the session's server."""
    server = RedisServer(tmp_path, port=free_port(), persistent=False)
    yield server.start()
    server.stop()


@pytest.fixture
def redis_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


def settings(url: str) -> Settings:
    return Settings(
        redis_url=url, queue_redis_url=None, admin_token=ADMIN_TOKEN, data_dir=Path("var"), port=0
    )


@pytest.fixture(scope="session")
def server_url(redis_url: str) -> Iterator[str]:
    """The API on a real HTTP server (threaded werkzeug) on a free port."""
    with serving(create_app(settings(redis_url))) as url:
        yield url


@pytest.fixture
def api(server_url: str) -> Client:
    return Client(server_url)


@contextmanager
def running_worker(url: str, queue_url: str | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A real `chronicle worker` process (reconciling every second) until the block ends."""
    env = {
        **os.environ,
        "REDIS_URL": url,
        "QUEUE_REDIS_URL": queue_url or "",
        "PYTHONPATH": str(ROOT),
        "CHRONICLE_RECONCILE_SECONDS": "1",
    }
    proc = subprocess.Popen([sys.executable, "-m", "chronicle", "worker"], env=env, cwd=ROOT)
    time.sleep(0.5)
    assert proc.poll() is None, "the worker process died at start"
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def worker(redis_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """One real RQ worker process for the session (bot turns and final scoring)."""
    with running_worker(redis_url) as proc:
        yield proc
