"""What a caller sees of a game now: its view (or a replay of it), its legal actions, and the
events feed with its long-poll.  The reveal rule is ``projections.views``'s; this module
applies it to a request."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from domain.errors import BadAction
from projections.records import Recorded
from projections.views import ADMIN, Caller, events_for, revealed, view_doc
from service import clocks, metrics
from service.loading import Current, Loader
from service.store import EventStore

POLL_SLICE_MS = 1000  # one blocking read at most this long (under the socket timeout)

# A long-poll's wait: (the game as loaded, after, limit, seconds) -> (records, the version and
# the status they came with), or None if nothing came.  The HTTP server's waits go through the
# process's stream hub (``service.stream``: no thread, no Redis connection held while waiting).
Waiter = Callable[[Current, int, int, float], tuple[list[Recorded], int, str] | None]


class Reads:
    def __init__(self, store: EventStore, loader: Loader) -> None:
        self.store = store
        self.loader = loader

    def view(
        self, cur: Current, caller: Caller, version: int | None, reveal: bool
    ) -> dict[str, Any]:
        """The caller's view; ``version`` replays it as it was then; ``reveal`` shows all of
        it, once the game is finished (or to the operator)."""
        finished_now = revealed(cur.match.status(cur.game))
        if reveal and not finished_now and caller.role != ADMIN:
            raise BadAction("reveal is allowed once the game is finished", {"reveal": ["not yet"]})
        if version is not None and version != cur.match.version:
            cur, _ = self.loader.at(cur.game_id, version)
        doc = view_doc(cur.game, cur.game_id, cur.match, caller, reveal=reveal)
        table = cur.match.table
        if table is not None and version is None:  # the clocks now (a clocked table)
            clocks.add_to(doc, table.rules.data(), clocks.state_of(table))
        return doc

    def actions(self, cur: Current, caller: Caller) -> dict[str, Any]:
        """The caller's legal actions now (empty unless the caller is a seat to act)."""
        actions: list[dict[str, Any]] = []
        if caller.seat is not None and caller.seat in cur.match.to_act(cur.game):
            actions = cur.game.legal_actions(cur.match.state, caller.seat)
        return {"version": cur.match.version, "actions": actions}

    def events(
        self,
        cur: Current,
        caller: Caller,
        after: int,
        limit: int,
        wait: float,
        waiter: Waiter | None = None,
    ) -> dict[str, Any]:
        """The log after ``after`` as the caller may see it; with ``wait`` > 0, long-poll up to
        that many seconds for the first event after ``after`` (through ``waiter``, else by
        blocking reads)."""
        records = self.store.read(cur.game_id, after, limit)
        version, status = cur.match.version, cur.match.status(cur.game)
        if not records and wait > 0:
            with metrics.watching():  # a live watcher while it waits (/metrics)
                got = (waiter or self._wait)(cur, after, limit, wait)
            if got is not None:
                records, version, status = got
        elif records and records[-1].version > version:  # the log moved since it was loaded
            cur = self.loader.current(cur.game_id)
            version, status = cur.match.version, cur.match.status(cur.game)
        return {
            "version": version,
            "events": events_for(
                cur.game, records, caller, reveal=revealed(status), config=cur.match.config
            ),
        }

    def _wait(
        self, cur: Current, after: int, limit: int, wait: float
    ) -> tuple[list[Recorded], int, str] | None:
        """A long-poll without a hub (no HTTP server): blocking reads, one connection held."""
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            self.store.wait(cur.game_id, after, min(POLL_SLICE_MS, int(left * 1000)))
            records = self.store.read(cur.game_id, after, limit)
            if records:
                now = self.loader.current(cur.game_id)
                return records, now.match.version, now.match.status(now.game)
        return None
