"""Script calls of one API process's greenlets, sent to Redis together (``AutoPipeline``).

Under gevent each move's Lua call used to take a connection from the pool, check it for
unread data (a ``poll``), ``send`` the command, wait for its socket and read the reply: two
system calls and a wake-up of Redis for every call, a good part of a move's CPU in the API
process (a ``py-spy`` profile).  Here the calls made while a batch is on its way
wait in a queue, and one writer greenlet sends them as one write on one connection and reads
their replies in order, as a Redis pipeline does (what ioredis calls auto-pipelining),
between greenlets.  Redis runs each script whole and alone, as before; one connection keeps
the order in which the calls were made.

What a caller sees is what ``LeanScript`` gave it before:

- the reply, or the script's own error (``ResponseError``, ``NoScriptError``), raised in the
  caller; the other calls of the batch go on;
- a failure of the connection (``ConnectionError``, ``TimeoutError``, or a reply that cannot
  be parsed) closes it and is raised in every call of the batch, sent or not, and in every
  call waiting at that moment: those would have waited for a Redis that is not answering, and
  none of them was sent (a frozen Redis costs a caller one socket timeout, never two).  The
  calls made after it go on a new connection from the pool.  A call sent whose reply was lost
  may have run, as with any connection (the conditional append then answers a conflict).

The writer keeps its connection while calls come; after ``IDLE`` seconds without one it gives
it back to the pool, so a connection taken again after a pause goes through the pool's check
(a connection Redis closed meanwhile is replaced).  Only processes where gevent patched the
sockets use it (``LeanScript`` decides; on a Redis Cluster ``ClusterScript``, with one
pipeline per master, on that master's pool); elsewhere each call takes its own connection.
"""

from __future__ import annotations

import os
from typing import Any

import gevent
from gevent.event import Event
from gevent.hub import Waiter, get_hub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

IDLE = 1.0  # seconds without a call before the writer gives its connection back
TURN = 1e-6  # the writer, woken, lets one turn of the event loop go first (see _run)
BATCH = 64  # calls in one write at most


class AutoPipeline:
    """The calls of this process on one pool: ``call(packed)`` -> the reply, as described in
    the module's docstring.  One per pool and process (``for_pool``)."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.pid = os.getpid()
        self.queue: list[tuple[bytes, Waiter[Any]]] = []
        self.wake = Event()
        self.batch: list[tuple[bytes, Waiter[Any]]] = []  # sent, replies being read
        self.writer: gevent.Greenlet[Any, Any] | None = None
        self.batches = 0  # for tests and benchmarks: writes sent
        self.calls = 0

    def call(self, packed: bytes) -> Any:
        """Send ``packed`` (one command, packed) with the others waiting; its reply, or its
        error raised here."""
        waiter: Waiter[Any] = Waiter()
        self.queue.append((packed, waiter))
        if self.writer is None or self.writer.dead:
            self.writer = gevent.spawn(self._run)
        elif len(self.queue) == 1:
            self.wake.set()
        return waiter.get()

    def _run(self) -> None:
        """The writer.  Woken by a call, it first lets one turn of the event loop go
        (``TURN``: a timer, so the sockets are polled in it): the requests that arrived
        meanwhile run up to their own calls and go in the same write.  That turn is also
        what keeps a loaded process fair, as ``QuickCheckParser``'s yield did for each call
        (a connection held by the writer skips the pool's check).  Calls made while a batch
        is on its way have waited already: they go as soon as its replies are read."""
        connection = None
        try:
            gevent.sleep(TURN)
            while True:
                if not self.queue:
                    self.wake.clear()
                    # with a connection held, give it back after IDLE seconds of quiet
                    if not self.wake.wait(IDLE if connection is not None else None):
                        if connection is not None:
                            self.pool.release(connection)
                        connection = None
                    else:
                        gevent.sleep(TURN)
                    continue
                self.batch, self.queue = self.queue[:BATCH], self.queue[BATCH:]
                connection = self._send(connection)
        finally:  # the writer stopped (its process is ending): nobody is left waiting
            if connection is not None:
                connection.disconnect()
                self.pool.release(connection)
            left, self.batch, self.queue = self.batch + self.queue, [], []
            for _, waiter in left:
                _deliver(waiter.throw, RedisConnectionError("the Redis writer stopped"))

    def _send(self, connection: Any) -> Any:
        """The batch sent and its replies delivered: the connection, to go on with, or None
        when it failed (see the module's docstring)."""
        batch = self.batch
        done = 0
        try:
            if connection is None:
                connection = self.pool.get_connection()
            connection.send_packed_command((b"".join([packed for packed, _ in batch]),))
            self.batches += 1
            self.calls += len(batch)
            for _, waiter in batch:
                try:
                    reply = connection.read_response()
                except ResponseError as error:  # the script's own: the connection is fine
                    _deliver(waiter.throw, error)
                else:
                    _deliver(waiter.switch, reply)
                done += 1
        except Exception as error:
            if connection is not None:
                connection.disconnect()  # as redis-py's _close_connection, before the release
                self.pool.release(connection)
            failed, self.batch, self.queue = batch[done:] + self.queue, [], []
            for _, waiter in failed:
                _deliver(waiter.throw, error)
            return None
        self.batch = []
        return connection


def for_pool(pool: Any) -> AutoPipeline:
    """This process's ``AutoPipeline`` on ``pool``."""
    pipe: AutoPipeline | None = getattr(pool, "_chronicle_pipeline", None)
    if pipe is None or pipe.pid != os.getpid():
        pipe = pool._chronicle_pipeline = AutoPipeline(pool)
    return pipe


def _deliver(to: Any, value: Any) -> None:
    """A reply or an error to its waiting caller, from the hub (where a ``Waiter`` is
    switched to)."""
    get_hub().loop.run_callback(to, value)
