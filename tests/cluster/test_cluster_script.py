"""``connections.ClusterScript``: on a Redis Cluster, an API process's script calls go to the
auto-pipeline of the master serving their slot, and what only redis-py's cluster client can
handle (a slot that moved, a node that lost its scripts) is handed to it.  The calls run in a
gevent-patched process of their own (``tests/store/pipeline_probe.py``) against a 2-master
cluster of this module's own (a test moves a slot)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.store.test_auto_pipeline import Probe, check_burst, run
from tests.support.redis_cluster import RedisClusterServer


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisClusterServer]:
    server = RedisClusterServer(tmp_path, masters=2)
    server.start()
    yield server
    server.stop()


def masters(server: RedisClusterServer) -> list[redis.Redis]:
    return [redis.Redis(port=port) for port in server.ports[: server.masters]]


def test_a_burst_goes_to_the_slot_s_master_together(cluster: RedisClusterServer) -> None:
    out = run(cluster.url, "burst", 48)
    assert out["lean"] == "ClusterScript"
    check_burst(out)  # every call through a node's pipeline, together
    busy = [name for name, (_, calls) in out["nodes"].items() if calls]
    assert len(busy) == 1, "all on the master of the key's slot"


def test_masters_that_lost_their_scripts_answer_every_caller(cluster: RedisClusterServer) -> None:
    out = run(cluster.url, "flushed", 24)
    assert all(r[0] == "ok" for r in out["results"]), out["results"]
    assert sorted(r[1][0] for r in out["results"]) == list(range(1, 26))


def test_a_slot_that_moved_is_followed_and_its_new_master_takes_the_calls(
    cluster: RedisClusterServer,
) -> None:
    probe = Probe(cluster.url, "moved", 16)
    assert probe.read() == {"ready": "move"}
    nodes = masters(cluster)
    slot = nodes[0].execute_command("CLUSTER", "KEYSLOT", "n")
    owner = next(r for r in nodes if _owns_n(r))
    other = next(r for r in nodes if r is not owner)
    other_id = other.execute_command("CLUSTER", "MYID")
    owner.delete("n")  # a slot with keys cannot be given away without them
    for r in (other, owner):
        r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", other_id)
    probe.go()
    out: dict[str, Any] = probe.end()
    assert out["first"][0] == "ok"
    assert all(r[0] == "ok" for r in out["burst"] + out["later"]), out
    counts = sorted(r[1][0] for r in out["burst"] + out["later"])
    assert counts == list(range(1, 33)), "each ran once, on the new master"
    assert out["before"] != out["after"], "redis-py followed MOVED and updated its map"
    new = out["nodes"][out["after"]]
    assert new[1] >= 16, "the calls after the move went through the new master's pipeline"


def _owns_n(r: redis.Redis) -> bool:
    """Whether ``r`` serves the key ``n`` (another master answers MOVED)."""
    try:
        r.exists("n")
    except redis.exceptions.MovedError:
        return False
    return True
