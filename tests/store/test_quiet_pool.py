"""``service.connections.QuietPool`` takes and returns connections as redis-py's blocking pool
does: one connection reused while it is free, a bounded wait then an error when all are taken,
fresh connections after a fork, a connection that should reconnect closed on its return.
(A reply left unread and a connection the server closed: ``test_quick_check``, which runs on
this pool through ``connect``.)"""

from __future__ import annotations

import os
import time

import pytest
import redis
from redis.maint_notifications import MaintNotificationsConfig

from service.connections import QuietPool, connect


def _pool(redis_url: str, size: int, timeout: float = 0.2) -> QuietPool:
    """A pool as ``connect`` makes one (maintenance notifications off), smaller."""
    off = MaintNotificationsConfig(enabled=False)
    pool = QuietPool.from_url(
        redis_url, max_connections=size, timeout=timeout, maint_notifications_config=off
    )
    assert not pool._is_special(), "the quiet path, not redis-py's"
    return pool


def test_the_service_clients_use_it_and_a_free_connection_is_reused(redis_url: str) -> None:
    client = connect(redis_url)
    assert isinstance(client.connection_pool, QuietPool)
    assert not client.connection_pool._is_special(), "the quiet path, not redis-py's"
    first = client.client_id()
    assert [client.client_id() for _ in range(5)] == [first] * 5, "one connection, reused"


def test_when_every_connection_is_taken_a_caller_waits_then_gets_an_error(
    redis_url: str,
) -> None:
    pool = _pool(redis_url, size=2)
    held = [pool.get_connection(), pool.get_connection()]
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError, match="No connection available"):
        pool.get_connection()
    assert 0.15 <= time.monotonic() - started < 2, "waited for the pool's timeout"
    pool.release(held.pop())
    again = pool.get_connection()  # the one returned, without a wait
    assert again.can_read() is False
    for conn in (again, *held):
        pool.release(conn)
    pool.disconnect()


def test_a_connection_that_should_reconnect_is_closed_on_its_return(redis_url: str) -> None:
    pool = _pool(redis_url, size=1)
    conn = pool.get_connection()
    conn.send_command("PING")
    assert conn.read_response() in (b"PONG", "PONG", True)
    conn.mark_for_reconnect()
    pool.release(conn)
    assert conn._sock is None, "disconnected, not handed to the next caller as it was"
    client = redis.Redis(connection_pool=pool)
    assert client.ping() is True  # the same slot connects again
    pool.disconnect()


def test_a_forked_child_opens_its_own_connections(redis_url: str) -> None:
    client = connect(redis_url)
    parent = client.client_id()
    pid = os.fork()
    if pid == 0:  # the child: never the parent's socket
        code = 1
        try:
            code = 0 if client.client_id() != parent else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert client.client_id() == parent, "the parent's connection is untouched"


def test_a_call_with_arguments_is_redis_pys(redis_url: str) -> None:
    pool = _pool(redis_url, size=1)
    with pytest.warns(DeprecationWarning):
        conn = pool.get_connection("PING")
    pool.release(conn)
    pool.disconnect()
