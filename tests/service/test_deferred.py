"""``service.deferred``: items pushed in a request reach the Redis sorted set soon after,
scored by when they are due (an item pushed again keeps its first moment); while Redis is away
they wait in the process and are sent once it answers."""

from __future__ import annotations

import time
from pathlib import Path

import redis

from service.deferred import Deferred
from service.redis_server import RedisServer, free_port


def wait_for(r: redis.Redis, key: str, count: int) -> list[bytes]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found = [item for item in r.zrange(key, 0, -1) if isinstance(item, bytes)]
        if len(found) >= count:
            return found
        time.sleep(0.01)
    raise AssertionError(f"{count} items did not arrive")


def test_pushed_items_arrive_scored_by_when_they_are_due(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    deferred = Deferred(r, "pending")
    deferred.push(["a", "b"], 30)
    deferred.push(["c"], 10)
    assert wait_for(r, "pending", 3) == [b"c", b"a", b"b"]  # by when each is due
    deferred.push(["d", "a"], 40)
    assert wait_for(r, "pending", 4)[-1] == b"d"
    assert r.zscore("pending", "a") == 30  # pushed again, later: it keeps its first moment


def test_items_wait_while_redis_is_away(tmp_path: Path) -> None:
    port = free_port()
    server = RedisServer(tmp_path / "one", port=port, persistent=False)
    url = server.start()
    r = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    deferred = Deferred(r, "pending")
    deferred.push(["first"], 1)
    assert wait_for(r, "pending", 1) == [b"first"]
    server.stop()
    deferred.push(["kept"], 2)
    time.sleep(0.3)  # tried and failed: kept in the process
    assert list(deferred.kept) == [("kept", 2)]
    again = RedisServer(tmp_path / "two", port=port, persistent=False)
    again.start()
    try:
        assert wait_for(r, "pending", 1) == [b"kept"]  # a new, empty server: only what waited
    finally:
        again.stop()
