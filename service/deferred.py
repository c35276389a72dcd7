"""Items for a Redis sorted set, pushed after the answer instead of inside it (``Deferred``).

A hook that only has to hand something on to the workers (``service.notices``: the notices an
append owes) need not make the request wait for Redis: ``push`` keeps the items in this
process and wakes a daemon thread (under the API's gevent worker, a greenlet: it runs once the
answer is written) that sends, ``GATHER`` seconds later, everything kept by then in one
``ZADD``, each item scored with the moment it is due (an item already in the set keeps its
earlier moment).  The round trip was a tenth of a millisecond of a move's, and a thread woken to
send each push alone still cost half of that (``bench.notices``).

What it gives up: items kept when the process dies (some milliseconds' worth, or whatever is
kept while Redis is away) are lost.  It is for what may be lost that way: a notice is a
courtesy, never the game's record; whatever must not be lost goes in the append itself.  At
most ``MAX_KEPT`` items wait while Redis is away (the oldest go first); the process flushes
what it keeps when it exits normally.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections import deque
from typing import Any

import redis

log = logging.getLogger(__name__)
MAX_KEPT = 100_000
RETRY_AFTER = 0.5  # seconds before sending again when Redis did not answer
GATHER = 0.02  # seconds the thread waits after a push for more: one ZADD for them all


class Deferred:
    """Items for the sorted set ``key`` on ``connection``, sent by a thread of this process."""

    def __init__(self, connection: Any, key: str) -> None:
        self.connection, self.key = connection, key
        self.kept: deque[tuple[str, int]] = deque(maxlen=MAX_KEPT)  # (item, due ms)
        self.wake = threading.Event()
        self.lock = threading.Lock()
        self.pid = 0  # the process whose thread sends (a fork has none until it pushes)

    def push(self, items: list[str], due: int) -> None:
        """Keep ``items``, due at ``due`` (ms since the epoch), to send soon."""
        self.kept.extend((item, due) for item in items)
        if self.pid != os.getpid():
            self._start()
        self.wake.set()

    def _start(self) -> None:
        with self.lock:
            if self.pid == os.getpid():
                return
            self.pid = os.getpid()
            threading.Thread(target=self._send_forever, name="deferred", daemon=True).start()
            atexit.register(self.flush)

    def _send_forever(self) -> None:
        while True:
            self.wake.wait()
            time.sleep(GATHER)
            self.wake.clear()
            if not self.flush():
                time.sleep(RETRY_AFTER)
                self.wake.set()

    def flush(self) -> bool:
        """Send what is kept now; False (kept for the next try) if Redis did not answer."""
        batch: list[tuple[str, int]] = []
        while self.kept:
            batch.append(self.kept.popleft())
        if not batch:
            return True
        scored: dict[str, int] = {}
        for item, due in batch:
            scored[item] = min(due, scored.get(item, due))
        try:
            self.connection.zadd(self.key, scored, nx=True)
        except redis.RedisError:
            self.kept.extendleft(reversed(batch))
            log.warning("deferred: %d items for %s wait for Redis", len(batch), self.key)
            return False
        return True
