"""The API and a worker on the local Redis Cluster: events on the cluster, RQ on a plain Redis
of its own (``QUEUE_REDIS_URL``), as a deployment on a cluster must run."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.app import create_app
from service.config import Settings
from service.redis_server import RedisServer, free_port
from tests.cluster.fixtures import cluster_url
from tests.conftest import ADMIN_TOKEN, running_worker
from tests.support.client import Client
from tests.support.server import serving

__all__ = ["cluster_url"]


@pytest.fixture(scope="session")
def queue_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A plain Redis for RQ only (not the session's: its worker must not take these jobs)."""
    server = RedisServer(tmp_path_factory.mktemp("queue"), port=free_port(), persistent=False)
    yield server.start()
    server.stop()


@pytest.fixture(scope="session")
def cluster_settings(cluster_url: str, queue_url: str) -> Settings:
    return Settings(
        redis_url=cluster_url,
        queue_redis_url=queue_url,
        admin_token=ADMIN_TOKEN,
        data_dir=Path("var"),
        port=0,
    )


@pytest.fixture(scope="session")
def cluster_api_url(cluster_settings: Settings) -> Iterator[str]:
    with serving(create_app(cluster_settings)) as url:
        yield url


@pytest.fixture
def cluster_api(cluster_api_url: str) -> Client:
    return Client(cluster_api_url)


@pytest.fixture(scope="session")
def cluster_worker(cluster_settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    with running_worker(cluster_settings.redis_url or "", cluster_settings.queue_redis_url) as proc:
        yield proc
