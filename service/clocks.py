"""Turn clocks: scheduling the deadline checks, and the check itself.

A game created with ``turn_time`` gives every seat to act that a person plays a deadline: the
time its turn began (the recorded time of the batch after which it was to act) plus the turn
time (``domain.table``).  When a turn begins, a check is scheduled on RQ's scheduler for the
deadline (``Queue.enqueue_at``; the worker runs the scheduler).  The check appends
``TurnTimedOut`` through the one write path if that very deadline still stands and has passed
(then the follow-ups hand the turn to the bot); it is idempotent: a check of a deadline that
moved (the seat acted, the log was undone) or was already acted on does nothing.  The job id
names the game, the deadline and the seat, so scheduling it twice schedules it once.  The
worker's reconciler enqueues the check of any deadline that is overdue (a lost schedule).

``CHRONICLE_MIN_TURN_TIME``: an operator's minimum ``turn_time`` (ISO 8601; default ``PT1S``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from rq import Queue, Retry

from domain import seating
from domain.engine import Job, Match
from projections.records import Recorded
from service.chronicle import Chronicle
from service.errors import VersionConflict
from service.jobs import FUNCTIONS
from service.loading import Current
from service.meta import GameMeta

MIN_TURN_TIME = "PT1S"
# The longest turn: a deadline stays a date (a turn of millions of weeks made none, a 500).
MAX_TURN_TIME = "P365D"


def min_turn_time(env: Mapping[str, str] = os.environ) -> str:
    return env.get("CHRONICLE_MIN_TURN_TIME") or MIN_TURN_TIME


def check_job(game_id: str, deadline_ms: int, seat: int) -> Job:
    return Job("clock", game_id, deadline_ms, seat)


class Clocks:
    """The hook that schedules deadline checks (``service.hooks``)."""

    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        table = match.table
        if table is None or table.rules.turn_ms is None:
            return
        at = records[-1].at
        for seat, deadline in table.deadlines().items():
            if table.since[seat] == at:  # its turn began with this batch
                self.schedule(cur.game_id, seat, deadline)

    def undone(self, cur: Current, target: int) -> None:
        table = cur.match.table
        if table is not None:
            for seat, deadline in table.deadlines().items():
                self.schedule(cur.game_id, seat, deadline)

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None  # chat does not touch the clock

    def schedule(self, game_id: str, seat: int, deadline_ms: int) -> None:
        job = check_job(game_id, deadline_ms, seat)
        self.queue.enqueue_at(
            datetime.fromtimestamp(deadline_ms / 1000, UTC),
            FUNCTIONS["clock"],
            game_id,
            deadline_ms,
            seat,
            job_id=job.id,
            retry=Retry(max=3, interval=[1, 2, 4]),
            result_ttl=600,
            failure_ttl=86400,
        )


def overdue(game_id: str, meta: GameMeta, now_ms: int) -> list[Job]:
    """Checks of the deadlines in a game's meta that have passed (for the reconciler)."""
    deadlines = meta.progress.deadlines or {}
    return [check_job(game_id, ms, int(s)) for s, ms in deadlines.items() if ms <= now_ms]


def check_deadline(ch: Chronicle, game_id: str, deadline_ms: int, seat: int) -> str:
    """Append ``TurnTimedOut`` (and ``SeatTakenOver`` after the set number in a row) if the
    seat's deadline is still ``deadline_ms`` and has passed; else nothing."""
    for _ in range(5):
        cur = ch.current(game_id)
        table = cur.match.table
        if table is None or table.deadlines().get(seat) != deadline_ms:
            return "stale"
        now = ch.clock()
        if now < deadline_ms:
            return "early"
        events = seating.time_out(cur.match, cur.game, seat, now)
        try:
            ch.append_table(cur, events, None, seating.command("timeout", seat=seat), at=now)
        except VersionConflict:
            continue  # a move or another check came first: look again
        return "timed out"
    return "busy"
