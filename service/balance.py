"""Connections spread over the API processes: a process leaves a new connection to a sibling
that holds fewer (``BalancedServer``).

gunicorn's processes share one listening socket and each takes whatever connection it wakes
to first.  A kept-alive connection stays with the process that took it for its whole life, so
when 32 clients connect at once one process could end up serving most of them while the other
core idled (measured: one process did most of the work, at times all of it).  Here every API
process publishes how many connections it holds in a table shared by all of them (``Slots``: an
anonymous shared mapping made by gunicorn's master before it forks them), and a process whose
count is above the least of its live siblings' (by more than ``SLACK``) does not accept for a
moment (``RECHECK``), so that the sibling does.  A sibling that does not take the connection
within ``MAX_DEFER`` (busy, stuck) gets no more deference: the deferring process accepts it,
so balancing can delay a connection by at most that, never refuse one.  A sibling counts only
while it is alive and its heartbeat (gunicorn's ``notify``, every second) is fresh.

This module imports gevent only: gunicorn's master imports it with ``service.serving``.
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from typing import Any

from gevent.server import StreamServer

SLOTS = 64  # API processes at once, restarts included (a process without a slot: unbalanced)
SLACK = 1  # connections above the least-loaded sibling's that are still accepted here
RECHECK = 0.005  # seconds between looks while leaving a connection to a sibling
MAX_DEFER = 0.05  # seconds a connection is left to siblings before this process takes it
FRESH = 5.0  # seconds of a sibling's heartbeat after which it no longer counts
_SLOT = struct.Struct("qqd")  # pid, connections held, heartbeat (time.monotonic())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Slots:
    """The table of the API processes' connection counts, one slot each.  Made in gunicorn's
    master (so every process it forks shares it); a slot is written only by its process."""

    def __init__(self, size: int = SLOTS) -> None:
        self.size = size
        self.map = mmap.mmap(-1, _SLOT.size * size)  # anonymous, shared with forked children
        self.claimed: dict[int, Any] = {}  # master only: slot -> the Worker object given it

    def assign(self, worker: Any) -> int | None:
        """Master side, before the fork: a slot no live process holds, or None."""
        for i in range(self.size):
            owner = self.claimed.get(i)
            pid = getattr(owner, "pid", None)
            if owner is None or (isinstance(pid, int) and not _alive(pid)):
                self.claimed[i] = worker
                _SLOT.pack_into(self.map, i * _SLOT.size, 0, 0, 0.0)
                return i
        return None

    def write(self, slot: int, connections: int) -> None:
        _SLOT.pack_into(self.map, slot * _SLOT.size, os.getpid(), connections, time.monotonic())

    def least_of_others(self, slot: int) -> int | None:
        """The fewest connections a live sibling holds, None if there is none."""
        now, least = time.monotonic(), None
        for i in range(self.size):
            if i == slot:
                continue
            pid, held, beat = _SLOT.unpack_from(self.map, i * _SLOT.size)
            if pid and now - beat < FRESH and _alive(pid):
                least = held if least is None else min(least, held)
        return least


class Balance:
    """This process's side: its slot, its count of connections, and whether to accept now."""

    def __init__(self, slots: Slots, slot: int | None) -> None:
        self.slots, self.slot = slots, slot
        self.held = 0
        self.deferring_since = 0.0
        self.last_deferral = 0.0

    def beat(self) -> None:
        if self.slot is not None:
            self.slots.write(self.slot, self.held)

    def opened(self) -> None:
        self.held += 1
        self.beat()

    def closed(self) -> None:
        self.held -= 1
        self.beat()

    def may_accept(self) -> bool:
        if self.slot is None:
            return True
        least = self.slots.least_of_others(self.slot)
        if least is None or self.held <= least + SLACK:
            self.deferring_since = 0.0
            return True
        now = time.monotonic()
        if not self.deferring_since or now - self.last_deferral > 2 * RECHECK + 0.01:
            self.deferring_since = now  # a new connection waiting (the last one was taken)
        self.last_deferral = now
        if now - self.deferring_since >= MAX_DEFER:
            self.deferring_since = 0.0
            return True  # no sibling took it: this process does
        return False


class BalancedServer(StreamServer):
    """gevent's server that asks ``balance`` before accepting, and looks again after
    ``RECHECK`` when it leaves a waiting connection to a sibling (the same timer gevent uses
    to back off after a failed accept)."""

    balance: Balance | None = None

    def _do_read(self) -> None:
        balance = type(self).balance
        if balance is not None and not balance.may_accept():
            self.stop_accepting()
            self._timer = self.loop.timer(RECHECK)
            self._timer.start(self._start_accepting_if_started)
            return
        super()._do_read()
