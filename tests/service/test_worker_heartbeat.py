"""The worker's heartbeat outside RQ's pipelines is one round trip (``workers.main.Worker``),
with what RQ's own heartbeat writes: the beat's time, the worker's and its executions' TTLs."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from redis.connection import Connection
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from workers.main import Worker


def beat(cls: type[SimpleWorker], conn: redis.Redis, timeout: int) -> tuple[int, Any, int, int]:
    """(connections taken, last_heartbeat, worker TTL, executions TTL) of one beat."""
    worker = cls([Queue("beat", connection=conn)], connection=conn, serializer=JSONSerializer)
    worker.register_birth()
    conn.sadd(worker.executions_key, "e")  # a key for the executions' expiry to reach
    taken: list[int] = []
    pool = conn.connection_pool
    real = pool.get_connection

    def counted(*a: Any, **k: Any) -> Connection:
        taken.append(1)
        return real(*a, **k)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool, "get_connection", counted)
        worker.heartbeat(timeout)
    stamp = conn.hget(worker.key, "last_heartbeat")
    return len(taken), stamp, conn.ttl(worker.key), conn.ttl(worker.executions_key)


@pytest.mark.parametrize("timeout", [77, 500])
def test_a_beat_is_one_round_trip_writing_what_rq_writes(own_redis_url: str, timeout: int) -> None:
    conn = redis.Redis.from_url(own_redis_url)
    ours = beat(Worker, conn, timeout)
    theirs = beat(SimpleWorker, conn, timeout)
    assert ours[0] == 1 and theirs[0] == 3
    assert ours[1] and theirs[1]
    assert timeout - 2 <= ours[2] <= timeout and timeout - 2 <= ours[3] <= timeout
    assert abs(ours[2] - theirs[2]) <= 1 and abs(ours[3] - theirs[3]) <= 1
