"""``service.connections.LeanScript`` answers as redis-py's ``Script`` does: the same replies and
errors, the script loaded again after the server lost it, and a connection lost on the way
closed and raised, as redis-py does with no retries (``connect``'s clients): a lost reply is an
error, the script ran once, and the next call works on a new connection."""

from __future__ import annotations

import contextlib
import socket
import threading
import uuid
from collections.abc import Iterator

import pytest
import redis
from redis.commands.core import Script

from projections.records import Recorded
from service import connections
from service.connections import LeanScript, QuietPool, connect
from service.meta import Progress
from service.redis_server import free_port
from service.redis_store import RedisEventStore
from service.store import Conflict

SHAPES = """
if ARGV[1] == 'fail' then return redis.error_reply('ERR refused: ' .. KEYS[1]) end
if ARGV[1] == 'crash' then return redis.call('NO_SUCH_COMMAND') end
redis.call('SET', KEYS[1], ARGV[2])
return {1, ARGV[2], redis.call('GET', KEYS[1]), false, {KEYS[1], -7}, tonumber(ARGV[3])}
"""
COUNT = "return redis.call('INCR', KEYS[1])"


def test_the_service_calls_scripts_this_way_on_a_single_redis(redis_url: str) -> None:
    client = connect(redis_url)
    assert isinstance(connections.script(client, COUNT), LeanScript)
    store = RedisEventStore(client)
    assert isinstance(store._append, LeanScript)
    # a client of another pool, or one that holds one connection: redis-py's own Script
    assert isinstance(connections.script(redis.Redis.from_url(redis_url), COUNT), Script)
    single = redis.Redis.from_url(redis_url, single_connection_client=True)
    assert isinstance(connections.script(single, COUNT), Script)
    single.close()
    retrying = redis.Redis(connection_pool=QuietPool.from_url(redis_url, retry_on_timeout=True))
    assert isinstance(connections.script(retrying, COUNT), Script)


def test_replies_and_errors_are_redis_pys(redis_url: str) -> None:
    client = connect(redis_url)
    lean, plain = connections.script(client, SHAPES), client.register_script(SHAPES)
    key = f"lean:{uuid.uuid4().hex}"
    for args in (["ok", b"\x00\xffbytes", 42], ["ok", "text é", "-3"], ["ok", 12, 2**40]):
        assert lean(keys=[key], args=args) == plain(keys=[key], args=args)
    for bad in ("fail", "crash"):
        with pytest.raises(redis.ResponseError) as lean_error:
            lean(keys=[key], args=[bad, "", 0])
        with pytest.raises(redis.ResponseError) as plain_error:
            plain(keys=[key], args=[bad, "", 0])
        assert type(lean_error.value) is type(plain_error.value)
        assert str(lean_error.value) == str(plain_error.value)
    with pytest.raises(redis.DataError):
        lean(keys=[key], args=["ok", None, 0])
    # every connection went back to the pool, reusable
    assert lean(keys=[key], args=["ok", "again", 1])[1] == b"again"
    assert client.connection_pool.pool.qsize() == client.connection_pool.max_connections


def test_a_server_that_lost_its_scripts_gets_it_again(own_redis_url: str) -> None:
    client = connect(own_redis_url)
    lean = connections.script(client, COUNT)
    assert lean(keys=["n"]) == 1
    client.script_flush()
    assert client.script_exists(lean.script.sha) == [False]
    assert lean(keys=["n"]) == 2, "NOSCRIPT: loaded, then called once"
    assert client.script_exists(lean.script.sha) == [True]


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


def test_a_lost_reply_is_raised_as_redis_py_raises_it(
    own_redis_url: str, dropper: ReplyDropper
) -> None:
    client = connect(f"redis://127.0.0.1:{dropper.port}/0")
    direct = redis.Redis.from_url(own_redis_url)
    lean, plain = connections.script(client, COUNT), client.register_script(COUNT)
    assert lean(keys=["n"]) == 1
    for call, count in ((lean, 2), (plain, 3)):
        assert client.ping(), "connected again (the handshake's replies are not the lost one)"
        dropper.drop_next.set()
        with pytest.raises(redis.ConnectionError):
            call(keys=["n"])
        assert int(direct.get("n") or 0) == count, "it ran once, its reply lost"
    assert lean(keys=["n"]) == 4, "the pool's connections work again"
    assert client.connection_pool.pool.qsize() == client.connection_pool.max_connections


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
    assert store.append("g-other", 0, "", [record], progress) == 1
    dropper.drop_next.set()
    with pytest.raises(redis.ConnectionError):
        store.append("g-lost", 0, "", [record], progress)
    with pytest.raises(Conflict) as conflict:
        store.append("g-lost", 0, "", [record], progress)
    assert conflict.value.current == 1
    assert [r.version for r in store.read("g-lost", 0, 10)] == [1], "appended once"
