"""The service's Redis clients (``service.connections``), on redis-py's public API only: a
connection taken from the pool is checked (a reply left unread, a connection the server
closed), a script is loaded again after the server lost it, and a connection lost on the way is
closed and raised with no retry (a frozen Redis costs one timeout): a lost reply is an error,
the script ran once, and the conditional append then answers a conflict, never a copy."""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import redis
from redis.commands.core import Script

from projections.records import Recorded
from service import connections
from service.connections import connect
from service.meta import Progress
from service.pipelining import Pipelined
from service.redis_server import free_port
from service.redis_store import RedisEventStore
from service.store import Batch, Conflict

COUNT = "return redis.call('INCR', KEYS[1])"


def test_the_service_pool_is_redis_pys_and_its_scripts_are_redis_pys(redis_url: str) -> None:
    client = connect(redis_url)
    assert type(client.connection_pool) is redis.BlockingConnectionPool
    count = connections.script(client, COUNT)
    assert isinstance(count, Pipelined) and type(count.script) is Script
    key = f"n:{secrets.token_hex(4)}"
    assert count(keys=[key]) == 1 and count.pipe is None, "no gevent here: the Script's call"


def test_an_idle_connection_has_nothing_to_read(redis_url: str) -> None:
    client = connect(redis_url)
    assert client.ping()
    conn = client.connection_pool.get_connection()
    try:
        assert conn.can_read() is False
    finally:
        client.connection_pool.release(conn)


def test_a_reply_left_unread_is_seen_and_the_next_command_gets_its_own(redis_url: str) -> None:
    client = connect(redis_url)
    client.set("quick-check", "mine")
    conn = client.connection_pool.get_connection()
    conn.send_command("ECHO", "left over")  # its reply is never read
    deadline = time.monotonic() + 5  # a loaded machine may take a while to answer
    while not conn.can_read() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert conn.can_read() is True
    client.connection_pool.release(conn)
    # the pool sees the stale reply and reconnects: the GET gets its own answer, not the ECHO's
    assert client.get("quick-check") == b"mine"
    client.delete("quick-check")


def test_a_connection_the_server_closed_is_replaced(redis_url: str) -> None:
    client = connect(redis_url)
    conn = client.connection_pool.get_connection()
    name = f"quick-check-{id(conn)}"
    conn.send_command("CLIENT", "SETNAME", name)
    assert conn.read_response() == b"OK"
    client.connection_pool.release(conn)
    killer = redis.Redis.from_url(redis_url)
    ids = [c["id"] for c in killer.client_list() if c.get("name") == name]
    assert ids, "the named connection is listed"
    killer.client_kill_filter(_id=ids[0])
    assert client.ping() is True  # on a new connection, no error reaches the caller


class ReplyDropper:
    """A TCP proxy to Redis that can lose the next reply: the command reaches Redis and runs,
    then the client's connection is cut before the answer comes back."""

    def __init__(self, target: str) -> None:
        parsed = redis.connection.parse_url(target)
        self.target = (parsed.get("host", "127.0.0.1"), int(parsed.get("port", 6379)))
        self.port = free_port()
        self.drop_next = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        try:
            while data := src.recv(65536):
                if replies and self.drop_next.is_set():
                    self.drop_next.clear()
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):  # shut down first: the other pipe's thread is in recv on one
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def dropper(own_redis_url: str) -> Iterator[ReplyDropper]:
    proxy = ReplyDropper(own_redis_url)
    yield proxy
    proxy.close()


def test_a_server_that_lost_its_scripts_gets_it_again(own_redis_url: str) -> None:
    client = connect(own_redis_url)
    count = connections.script(client, COUNT)
    assert count(keys=["n"]) == 1
    client.script_flush()
    assert client.script_exists(count.sha) == [False]
    assert count(keys=["n"]) == 2, "NOSCRIPT: loaded, then called once"
    assert client.script_exists(count.sha) == [True]


def test_a_lost_reply_is_raised_and_the_script_ran_once(
    own_redis_url: str, dropper: ReplyDropper
) -> None:
    client = connect(f"redis://127.0.0.1:{dropper.port}/0")
    direct = redis.Redis.from_url(own_redis_url)
    count = connections.script(client, COUNT)
    assert count(keys=["n"]) == 1
    assert client.ping(), "connected (the handshake's replies are not the lost one)"
    dropper.drop_next.set()
    with pytest.raises(redis.ConnectionError):
        count(keys=["n"])
    assert int(direct.get("n") or 0) == 2, "it ran once, its reply lost"
    assert count(keys=["n"]) == 3, "the pool's connections work again"


def test_an_append_whose_reply_was_lost_was_appended_once(
    own_redis_url: str, dropper: ReplyDropper
) -> None:
    """The caller sees an error (a 503 for a move); sent again, the conditional append finds
    the version it expected gone: a conflict, never a second copy."""
    client = connect(f"redis://127.0.0.1:{dropper.port}/0")
    store = RedisEventStore(client)
    progress = Progress(status="active", to_act=(0,), follow_ups=(), updated_at=1)
    record = Recorded(version=1, type="T", seat=0, at=1, actor=0, command=None, data={}, hash="")
    # the connection made and the script loaded (neither of their replies is the one lost)
    assert store.append("g-other", Batch([record], progress)) == 1
    dropper.drop_next.set()
    with pytest.raises(redis.ConnectionError):
        store.append("g-lost", Batch([record], progress))
    with pytest.raises(Conflict) as conflict:
        store.append("g-lost", Batch([record], progress))
    assert conflict.value.current == 1
    assert [r.version for r in store.read("g-lost", 0, 10)] == [1], "appended once"
