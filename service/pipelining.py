"""Script calls of one API process's greenlets, sent to Redis together (``AutoPipeline``),
through redis-py's public pipeline.

Under gevent every request is a greenlet, and each of a move's script calls through redis-py
alone takes a connection from the pool, checks it, sends, waits for its socket and reads:
several times the CPU of the move's own Redis work once requests overlap.  Here the calls
made while a batch is on its way wait in a queue, and one writer greenlet sends them as one
``client.pipeline(transaction=False)`` (one write, one connection, the replies read in order),
as ioredis's auto-pipelining does between callbacks.  Redis runs each script whole and alone,
as before.

What a caller sees is what the script's own call would give it:

- the reply, or the script's own error (``ResponseError``) raised in the caller; the other
  calls of the batch go on.  A ``NOSCRIPT`` (a Redis that restarted) is called again through
  redis-py's ``Script``, which loads it;
- a failure of the connection (``ConnectionError``, ``TimeoutError``) is raised in every call
  of the batch: none is retried (a frozen Redis costs a caller one socket timeout, never two).
  A call whose reply was lost may have run, as with any connection (the conditional append
  then answers a conflict).

Only processes where gevent patched the sockets use it, and only on a single Redis
(``service.connections.script`` decides): elsewhere each call is redis-py's ``Script``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import gevent
from gevent.event import AsyncResult, Event
from redis.commands.core import Script
from redis.exceptions import NoScriptError

TURN = 1e-6  # the writer, woken, lets one turn of the event loop go first (see _run)
BATCH = 64  # calls in one write at most


class AutoPipeline:
    """The calls of this process on one client: ``call(script, keys, args)`` -> the reply."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.pid = os.getpid()  # a forked process makes its own (its writer is not here)
        self.queue: list[tuple[Script, Any, Any, AsyncResult[Any]]] = []
        self.wake = Event()
        self.writer: gevent.Greenlet[Any, Any] | None = None

    def call(self, script: Script, keys: Any, args: Any) -> Any:
        result: AsyncResult[Any] = AsyncResult()
        self.queue.append((script, keys, args, result))
        if self.writer is None or self.writer.dead:
            self.writer = gevent.spawn(self._run)
        elif len(self.queue) == 1:
            self.wake.set()
        try:
            return result.get()
        except NoScriptError:
            return script(keys=keys, args=args)  # redis-py loads it, then calls it

    def _run(self) -> None:
        """The writer.  Woken by a call, it first lets one turn of the event loop go
        (``TURN``: a timer, so the sockets are polled in it): the requests that arrived
        meanwhile run up to their own calls and go in the same write.  That turn also keeps
        a loaded process fair: the requests whose next one arrives first are not served
        again and again.  Calls made while a batch is on its way go as soon as it is back."""
        gevent.sleep(TURN)
        while True:
            if not self.queue:
                self.wake.clear()
                self.wake.wait()
                gevent.sleep(TURN)
                continue
            batch, self.queue = self.queue[:BATCH], self.queue[BATCH:]
            self._send(batch)

    def _send(self, batch: list[tuple[Script, Any, Any, AsyncResult[Any]]]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for script, keys, args, _ in batch:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        try:
            replies = pipe.execute(raise_on_error=False)
        except Exception as error:  # the connection failed: every call of the batch
            for *_, result in batch:
                result.set_exception(error)
            return
        for (*_, result), reply in zip(batch, replies, strict=True):
            if isinstance(reply, Exception):
                result.set_exception(reply)
            else:
                result.set(reply)


class Pipelined:
    """A Lua script called as redis-py's ``Script`` is (``(keys=..., args=...)``): through the
    ``AutoPipeline`` of the client in a process where gevent patched the sockets, else by
    the ``Script`` itself.  Decided at the first call in each process: a gunicorn worker
    patches its sockets before it loads the app, but a client may be made before either."""

    def __init__(self, client: Any, text: str) -> None:
        self.client = client
        self.script: Script = client.register_script(text)
        self.sha = self.script.sha
        self.pid = 0
        self.pipe: AutoPipeline | None = None

    def __call__(self, keys: Any = (), args: Any = ()) -> Any:
        if self.pid != os.getpid():
            self.pid, self.pipe = os.getpid(), _pipeline(self.client)
        if self.pipe is None:
            return self.script(keys=keys, args=args)
        return self.pipe.call(self.script, list(keys), list(args))


_pipelines: dict[int, AutoPipeline] = {}


def _pipeline(client: Any) -> AutoPipeline | None:
    """This process's ``AutoPipeline`` on ``client``; None where gevent did not patch the
    sockets (one request at a time: nothing to send together)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("socket"):
        return None
    pipe = _pipelines.get(id(client))
    if pipe is None or pipe.client is not client or pipe.pid != os.getpid():
        pipe = _pipelines[id(client)] = AutoPipeline(client)
    return pipe
