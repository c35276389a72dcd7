"""The storage budget: refuse writes that grow the store before Redis runs out of memory.

The embedded Redis runs with ``maxmemory`` and ``maxmemory-policy noeviction``
(``service/redis_server.py``): nothing acknowledged is ever evicted; a write past the budget is
refused by Redis itself (its OOM error is answered 507 ``storage_full``, never 500).  This
module answers 507 earlier and more cleanly, from a cached ``INFO memory`` (read at most once a
second per process, so the check costs nothing per request):

- a new game (creation or import) is refused once ``used_memory`` reaches
  ``CHRONICLE_STORAGE_HIGH_WATER`` (a fraction of ``maxmemory``, default 0.85);
- every other write that grows the log (an action) once it reaches
  ``CHRONICLE_STORAGE_WRITE_MARK`` (default 0.95): games under way can still be finished for a
  while after new ones are refused.

A Redis without ``maxmemory`` (0) has no budget here unless ``CHRONICLE_STORAGE_MAX_BYTES`` names
one.  A Redis Cluster reports per node: the fullest node counts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from service.errors import StorageFull
from service.store import EventStore

NEW_GAME, WRITE = "new_game", "write"
DEFAULT_HIGH_WATER = 0.85
DEFAULT_WRITE_MARK = 0.95
REFRESH_SECONDS = 1.0


@dataclass(frozen=True)
class Marks:
    high_water: float = DEFAULT_HIGH_WATER
    write_mark: float = DEFAULT_WRITE_MARK
    max_bytes: int = 0  # 0: Redis's own maxmemory

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Marks:
        def fraction(name: str, default: float) -> float:
            value = float(env.get(name) or default)
            if not 0 < value <= 1:
                raise RuntimeError(f"{name}={value} must be a fraction in (0, 1]")
            return value

        return cls(
            high_water=fraction("CHRONICLE_STORAGE_HIGH_WATER", DEFAULT_HIGH_WATER),
            write_mark=fraction("CHRONICLE_STORAGE_WRITE_MARK", DEFAULT_WRITE_MARK),
            max_bytes=int(env.get("CHRONICLE_STORAGE_MAX_BYTES") or 0),
        )


class Budget:
    def __init__(
        self,
        store: EventStore,
        marks: Marks | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.marks = marks or Marks.from_env()
        self.clock = clock
        self._lock = threading.Lock()
        self._read_at = float("-inf")
        self._fill = 0.0

    def fill(self) -> float:
        """The fraction of the budget in use (0 without a budget), at most a second old."""
        with self._lock:
            if self.clock() - self._read_at >= REFRESH_SECONDS:
                used, limit = self.store.memory()
                limit = self.marks.max_bytes or limit
                self._fill = used / limit if limit > 0 else 0.0
                self._read_at = self.clock()
            return self._fill

    def check(self, kind: str) -> None:
        """Raise ``StorageFull`` if a write of ``kind`` would grow a store past its mark."""
        mark = self.marks.high_water if kind == NEW_GAME else self.marks.write_mark
        fill = self.fill()
        if fill >= mark:
            raise StorageFull(
                "the event store is near its memory budget; "
                + ("no new games for now" if kind == NEW_GAME else "writes are paused"),
                {"used_fraction": round(fill, 3), "mark": mark},
            )
