"""Redis clients with bounded timeouts: an unreachable Redis answers in about two seconds
(HTTP 503), never hangs a request and never becomes a 500.

``REDIS_URL`` may name a Redis Cluster: ``redis+cluster://host:port`` (or ``rediss+cluster://``
for TLS), with any number of comma-separated seed nodes (``redis+cluster://h1:7000,h2:7000``);
the rest of the topology is discovered from them.  The event store runs on it unchanged: every
key of a game carries the hash tag ``{g:<id>}``, so a game lives in one slot, and every Lua
script declares its keys.  RQ cannot run on a cluster, so ``QUEUE_REDIS_URL`` must then name a
plain Redis (see ``service.config``).
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable
from queue import Empty, Full
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import hiredis
import redis
from redis._parsers import _HiredisParser
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.core import Script
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterCrossSlotError,
    ClusterDownError,
    DataError,
    MasterDownError,
    NoScriptError,
    ReadOnlyError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig

if TYPE_CHECKING:
    from service.pipelining import AutoPipeline

SOCKET_TIMEOUT = 1.5  # a frozen Redis is answered 503 within 2 s
CONNECT_TIMEOUT = 1.0
# Connections one client (one process) may open: under gevent a burst of requests would
# otherwise open one each and keep them all; beyond it a request waits up to POOL_TIMEOUT for
# a free one (then 503).  Waiting requests (long-polls, streams) hold none.
POOL_SIZE = 16
POOL_TIMEOUT = 2.0
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
# connection options under which redis-py retries a command (none: one attempt, as here)
RETRY_OPTIONS = ("retry", "retry_on_error", "retry_on_timeout")


class QuickCheckParser(_HiredisParser):
    """redis-py's hiredis parser with a cheaper check of a connection taken from the pool.

    Before every command redis-py asks whether the connection it takes has unread data (a
    reply left over from an interrupted command, or a closed socket) with ``select.poll`` and a
    timeout of 0.  Under gevent that poll is gevent's: watchers on the hub, a timeout, a
    switch, a visible share of a move's CPU in the API process (a ``py-spy`` profile).  A
    zero-timeout poll never blocks, so the system's own answers the same question in one
    system call.  Only "nothing to read" is decided here; anything else (data buffered, a
    readable socket: a reply or a closed connection, a TLS socket's own buffer, a real
    timeout) goes to redis-py as before.

    gevent's poll also gave the other greenlets a turn before each command, and that turn
    is what kept a loaded process fair: without it, the connections whose next request
    arrives first are served again and again (the move p99 at many clients grew several
    times over).  So under gevent the check still yields for one turn of the event loop, the
    socket polling of that turn included (``gevent.sleep`` of a microsecond: a timer, not
    three watchers and a timeout).  ``sleep(0)`` would only let the greenlets already
    runnable go first, not the requests that have arrived since, and the p99 grew again
    where this turn keeps it (``python -m bench.moves``; the figures: ``docs/benchmarks``)."""

    _poll: Callable[[], Any] | None = None
    _yield: Callable[[], Any] | None = None

    def can_read(self, timeout: float = 0) -> bool:
        sock, reader = getattr(self, "_sock", None), getattr(self, "_reader", None)
        if timeout or sock is None or reader is None or reader.has_data():
            return bool(super().can_read(timeout))
        if hasattr(sock, "pending"):  # TLS: bytes may wait in its own buffer
            return bool(super().can_read(timeout))
        poller = (QuickCheckParser._poll or _system_poll())()
        if QuickCheckParser._yield is not None:
            QuickCheckParser._yield()
        poller.register(sock.fileno(), select.POLLIN)
        if not poller.poll(0):
            return False
        return bool(super().can_read(timeout))


def _system_poll() -> Callable[[], Any]:
    """``select.poll`` as the system has it, also where gevent patched ``select``."""
    monkey = sys.modules.get("gevent.monkey")
    poll = select.poll
    if monkey is not None and monkey.is_module_patched("select"):
        poll = monkey.get_original("select", "poll")
        import gevent

        QuickCheckParser._yield = lambda: gevent.sleep(1e-6)
    QuickCheckParser._poll = poll
    return poll


class QuietPool(redis.BlockingConnectionPool):
    """redis-py's blocking pool without its OpenTelemetry bookkeeping on every command.

    redis-py 8 reports each take and return of a connection to its observability recorder
    (four counter calls, a wait time, a pool name built each time) and wraps ``get_connection``
    in a deprecation check of its arguments.  With observability off, which it is here, each
    report still asks for the recorder again: together a good part of the pool's cost, on
    every Redis command (counted by ``bench.instructions``).  This pool takes and
    returns a connection as redis-py's does, in the same order of steps (the fork check, the
    LIFO queue with its timeout, a new connection for a free slot, ``connect``, the unread-data
    check that ``QuickCheckParser`` answers, the reconnect once, the release on failure;
    disconnect if it should reconnect, put it back), and hands every other case to redis-py:
    arguments to ``get_connection``, a pool in maintenance, client-side caching or maintenance
    notifications on, a connection from another process."""

    def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> Any:
        if command_name is not None or keys or options:
            return super().get_connection(command_name, *keys, **options)
        if self._is_special():
            return super().get_connection()
        self._checkpid()
        try:
            connection = self.pool.get(block=True, timeout=self.timeout)
        except Empty:
            raise RedisConnectionError("No connection available.") from None
        if connection is None:
            connection = self.make_connection()
        try:
            connection.connect()
            try:
                if connection.can_read():
                    raise RedisConnectionError("Connection has data")
            except (RedisConnectionError, RedisTimeoutError, OSError):
                connection.disconnect()
                connection.connect()
                if connection.can_read():
                    raise RedisConnectionError("Connection not ready") from None
        except BaseException:
            self.release(connection)
            raise
        return connection

    def release(self, connection: Any) -> None:
        self._checkpid()
        if self._is_special() or not self.owns_connection(connection):
            super().release(connection)
            return
        if connection.should_reconnect():
            connection.disconnect()
        try:
            self.pool.put_nowait(connection)
        except Full:  # not one of this pool's slots (redis-py drops it open): close it
            connection.disconnect()

    def _is_special(self) -> bool:
        return bool(
            self._in_maintenance or self.cache is not None or self.maint_notifications_enabled()
        )


def evalsha(sha: str, keys: Any, args: Any) -> bytes:
    """An ``EVALSHA`` of the script ``sha``, packed by hiredis as redis-py's packer packs it
    (and refusing what it refuses, with its ``DataError``)."""
    try:
        packed: bytes = hiredis.pack_command((b"EVALSHA", sha, len(keys), *keys, *args))
    except TypeError as error:  # what redis-py's hiredis packer raises for it
        raise DataError(error) from error
    return packed


def pipelines() -> Callable[[Any], AutoPipeline] | None:
    """``service.pipelining.for_pool`` in a process where gevent patched the sockets (an API
    process: the calls of all its greenlets share a writer per pool), else None.  Asked at a
    script's first call in each process: a gunicorn worker patches its sockets before it
    loads the app, but a client may be made before either."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("socket"):
        return None
    from service.pipelining import for_pool

    return for_pool


class LeanScript:
    """A Lua script called on one Redis as redis-py's ``Script`` calls it, in fewer steps.

    redis-py's call of a script goes through seven layers (``Script.__call__``, ``evalsha``,
    ``execute_command``, a retry object with two closures, the observability recorder that is
    off, the packer's argument copy, the response callbacks): several times the CPU that the
    same ``EVALSHA`` costs on a raw socket, and a move makes one such call
    (two with rate limits on).  This one packs the command with hiredis (as redis-py's packer
    does), takes a connection from the ``QuietPool``, sends it, reads the reply with redis-py's
    own connection (its health check, its parser, its errors) and gives the connection back.

    Two cases go to the ``Script`` it wraps, which redis-py runs as usual: the first call
    after the server lost its scripts (``NOSCRIPT``: redis-py loads the script and calls it
    again), and a client whose connections retry (``script()`` makes a ``LeanScript`` only for
    connections that do not, as ``connect`` makes them).  So a failure of the connection
    (``ConnectionError``, ``TimeoutError``) closes it and is raised, as redis-py does when it
    may not retry: a frozen Redis costs one socket timeout, not two.  An error of the script
    itself (``ResponseError``) is raised as redis-py raises it.

    In a process where gevent patched the sockets (an API process) the packed call goes to
    the process's ``AutoPipeline`` instead, which sends the calls of all greenlets together
    on one connection, with the same replies and errors (``service.pipelining``)."""

    def __init__(self, client: redis.Redis, text: str) -> None:
        self.script: Script = client.register_script(text)
        pool = client.connection_pool
        if not isinstance(pool, QuietPool):
            raise TypeError("LeanScript takes a client of a QuietPool (see script())")
        self.pool = pool
        self.pid = 0  # the process that decided ``pipe``
        self.pipe: AutoPipeline | None = None

    def _pipe(self) -> AutoPipeline | None:
        """Decided once in each process, at its first call (``pipelines``)."""
        self.pid = os.getpid()
        for_pool = pipelines()
        self.pipe = for_pool(self.pool) if for_pool is not None else None
        return self.pipe

    def __call__(self, keys: Any = (), args: Any = ()) -> Any:
        script = self.script
        packed = evalsha(script.sha, keys, args)
        pipe = self.pipe if self.pid == os.getpid() else self._pipe()
        if pipe is not None:
            try:
                return pipe.call(packed)
            except NoScriptError:
                return script(keys=keys, args=args)
        pool = self.pool
        connection = pool.get_connection()
        try:
            connection.send_packed_command((packed,))
            return connection.read_response()
        except NoScriptError:
            pass
        except (RedisConnectionError, RedisTimeoutError):
            connection.disconnect()  # as redis-py's _close_connection, before the release
            raise
        finally:
            pool.release(connection)
        return script(keys=keys, args=args)


class ClusterScript:
    """A Lua script on a Redis Cluster, called in an API process through the auto-pipeline of
    the master that serves its keys' slot, as ``LeanScript`` calls one on a single Redis.

    redis-py's cluster client sends each script call on a connection of its own, taken from
    the node's pool and given back, through its retry and redirection machinery: under the
    move bench a move cost the API processes much more CPU on a cluster than on a single
    Redis.  Here the slot's master is looked up in the
    client's own slot map (the one redis-py keeps up to date) and the packed ``EVALSHA`` goes
    to that node's ``AutoPipeline`` (``service.pipelining``), with every other greenlet's
    call to the same node.

    Whatever a cluster client must handle itself goes to redis-py's cluster ``Script``, which
    runs it as it did before: a redirection (``MOVED``, ``ASK``: a slot moving; redis-py
    follows it and refreshes its slot map, so the calls after it go to the new master), a
    cluster that is down, resharding or failing over (``TRYAGAIN``, ``CLUSTERDOWN``,
    ``MASTERDOWN``, ``READONLY``, ``LOADING``), keys in several slots (``CROSSSLOT``), a node
    that lost its scripts (``NOSCRIPT``: redis-py loads the script on every master), a slot
    the map does not cover, and a failed or timed-out connection (redis-py's cluster client
    reconnects and, where a master failed over, learns the new one).  A call whose reply was
    lost may then run twice, as redis-py's own retry of it would: the conditional append
    answers the second a conflict.  A frozen master costs a caller one socket timeout here
    before redis-py's own attempts (handing the call on is what lets redis-py refresh its
    map after a failover, which this path reads).  An error of the script itself is raised
    as it is.

    Outside gevent (the worker, tools, tests' in-process servers) every call is redis-py's."""

    HANDED_ON = (
        AskError,  # and MovedError
        TryAgainError,
        ClusterDownError,
        ClusterCrossSlotError,
        MasterDownError,
        ReadOnlyError,
        BusyLoadingError,
        NoScriptError,
        RedisConnectionError,
        RedisTimeoutError,
    )

    def __init__(self, client: RedisCluster, text: str) -> None:
        self.client = client
        self.script: Script = client.register_script(text)
        self.pid = 0  # the process that decided ``pipe``
        self.pipe: Callable[[Any], AutoPipeline] | None = None  # a node's pool -> its pipeline

    def __call__(self, keys: Any = (), args: Any = ()) -> Any:
        if self.pid != os.getpid():  # decided once in each process, at its first call
            self.pid, self.pipe = os.getpid(), pipelines()
        node = self._node(keys[0]) if self.pipe is not None and keys else None
        if node is None or self.pipe is None:
            return self.script(keys=keys, args=args)
        packed = evalsha(self.script.sha, keys, args)
        try:
            return self.pipe(node.connection_pool).call(packed)
        except self.HANDED_ON:
            return self.script(keys=keys, args=args)

    def _node(self, key: Any) -> redis.Redis | None:
        """The client of the master serving ``key``'s slot, None if the map has none."""
        try:
            node = self.client.nodes_manager.get_node_from_slot(self.client.keyslot(key))
        except (SlotNotCoveredError, IndexError, KeyError):
            return None
        found: redis.Redis | None = getattr(node, "redis_connection", None)
        return found


def script(client: Any, text: str) -> Any:
    """The way the service calls a Lua script: ``LeanScript`` on a single Redis served by the
    ``QuietPool`` whose connections do not retry, ``ClusterScript`` on a Redis Cluster,
    redis-py's ``Script`` on anything else (a single-connection client, a pool of another
    kind, connections that retry).  All are called ``(keys=..., args=...)``."""
    if isinstance(client, RedisCluster):
        return ClusterScript(client, text)
    pool = getattr(client, "connection_pool", None)
    if (
        isinstance(client, redis.Redis)
        and type(pool) is QuietPool
        and client.connection is None
        and not any(pool.connection_kwargs.get(k) for k in RETRY_OPTIONS)
    ):
        return LeanScript(client, text)
    return client.register_script(text)


def is_cluster_url(url: str | None) -> bool:
    return url is not None and url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def connect(url: str) -> Any:
    """A client for ``url``: ``redis.Redis`` (redis://, rediss://, unix://) or, for the
    ``redis+cluster://`` schemes, ``RedisCluster``; both with the same timeouts."""
    options: dict[str, Any] = {
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
        "parser_class": QuickCheckParser,
        # Maintenance notifications (a Redis Enterprise feature) off: while they are on, which
        # redis-py 8 makes the default, its pool stops discarding a connection that holds an
        # unread reply (a command interrupted between sending and reading), and the next
        # command on it would read that reply as its own (tests/store/test_quick_check.py).
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
    }
    if not is_cluster_url(url):
        size = int(os.environ.get("CHRONICLE_REDIS_CONNECTIONS") or POOL_SIZE)
        pool = QuietPool.from_url(url, max_connections=size, timeout=POOL_TIMEOUT, **options)
        client = redis.Redis(connection_pool=pool)
        client.auto_close_connection_pool = True
        return client
    return cluster(url, **options)


def cluster(url: str, **options: Any) -> RedisCluster:
    scheme, rest = url.split("://", 1)
    plain = scheme.lower().replace("+cluster", "")
    netloc = urlsplit(f"{plain}://{rest}").netloc
    auth, _, hosts = netloc.rpartition("@")
    nodes = []
    for hostport in hosts.split(","):
        parsed = urlsplit(f"{plain}://{hostport}")
        nodes.append(ClusterNode(parsed.hostname or "127.0.0.1", parsed.port or 6379))
    first = f"{plain}://{auth + '@' if auth else ''}{nodes[0].host}:{nodes[0].port}"
    return RedisCluster.from_url(first, startup_nodes=nodes, **options)
