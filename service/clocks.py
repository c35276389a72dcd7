"""Turn clocks: the deadlines' index (the check of a deadline: ``service.timeouts``).

A game created with ``turn_time`` gives every seat to act that a person plays a deadline: the
time its turn began (the recorded time of the batch after which it was to act) plus the turn
time (``domain.table``).  When a turn begins, the deadline's check goes into the deadlines'
index (``DEADLINES``, a sorted set on the queue's Redis: the check's job id, scored by the
deadline): written by the append itself, in the same call, where the queue's Redis is the
game's (``began``, ``service.redis_store``), else by the ``Clocks`` hook in one ``ZADD``
after it.  The workers take the checks that are due from it (``Due``: taken once, whichever
worker asks) every ``CHECK_EVERY`` seconds and queue them as RQ jobs (``workers.clocks``).  The
check (``service.timeouts``) appends ``TurnTimedOut`` through the one write path if that very
deadline still stands and has passed (then the follow-ups hand the turn to the bot); it is
idempotent: a check of a deadline that moved (the seat acted, the log was undone) or was
already acted on does nothing.  The job id names the game, the deadline and the seat, so
scheduling it twice schedules it once.  The worker's reconciler enqueues the check of any
deadline that is overdue and not queued (a lost schedule: the index unreachable at the move,
a worker that took a check and died before queueing it).

Why an index of our own and not RQ's ``enqueue_at``: RQ builds a job (its object, its
serialized call, its hash of some twenty fields) for every turn of every clocked game, which
cost an API process about as much CPU as the rest of the move; almost every deadline is met and
its job was never needed.  Here a turn costs one entry of the index, and only a deadline that
passes becomes a job.

``CHRONICLE_MIN_TURN_TIME``: an operator's minimum ``turn_time`` (ISO 8601; default ``PT1S``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from domain import clock
from domain import table as tables
from domain.engine import Job, Match
from projections.records import Recorded, iso
from service import connections
from service.loading import Current
from service.meta import GameMeta

DEADLINES = "chronicle:deadlines"  # check job id -> deadline (ms), on the queue's Redis
# (``service.redis_store`` writes it in the append when the queue's Redis is the game's)
CHECK_EVERY = 0.25  # seconds between two looks of a worker for due checks
_ADD = "return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])"
# The due checks (score <= ARGV[1]), at most ARGV[2], taken out of the index in the same call.
_TAKE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
"""
MIN_TURN_TIME = "PT1S"
# The longest turn: a deadline stays a date (a turn of millions of weeks made none, a 500).
MAX_TURN_TIME = "P365D"


def min_turn_time(env: Mapping[str, str] = os.environ) -> str:
    return env.get("CHRONICLE_MIN_TURN_TIME") or MIN_TURN_TIME


def clocks_doc(
    section: Mapping[str, Any] | None, state: Mapping[str, Mapping[str, int]], now: int
) -> dict[str, dict[str, str]]:
    """The contract's ``clocks`` (summary, view, stream): ``{"<seat>": {"remaining": "<ISO
    duration>", "deadline"?: "<ISO time>", "vacation_until"?: "<ISO time>"}}`` at ``now``,
    from the clocks the meta or the table keep (``state_of``)."""
    rules = tables.rules_from(section)
    out: dict[str, dict[str, str]] = {}
    for seat, fig in sorted(clock.figures(rules, state, now).items()):
        doc = {"remaining": iso_duration(fig["remaining"])}
        doc.update({k: iso(v) for k, v in fig.items() if k != "remaining"})
        out[seat] = doc
    return out


def state_of(table: tables.Table | None) -> dict[str, dict[str, int]] | None:
    """Each person's clock as the meta keeps it (``domain.clock.clock_state``); None for a
    table without a clock."""
    return clock.clock_state(table) if table is not None and table.rules.clocked else None


def add_to(
    doc: dict[str, Any],
    section: Mapping[str, Any],
    state: Mapping[str, Mapping[str, int]] | None,
    now: int | None = None,
) -> None:
    """A summary's or a view's ``time_control`` (``timezone``) and ``clocks`` at ``now``
    (the wall clock by default: remaining time is read, never stored)."""
    if section.get("time_control"):
        doc["time_control"] = dict(section["time_control"])
        doc["timezone"] = section.get("timezone") or "UTC"
    if state is not None:
        at = time.time_ns() // 10**6 if now is None else now
        doc["clocks"] = clocks_doc(section, state, at)


def iso_duration(ms: int) -> str:
    """``ms`` as an ISO 8601 duration of days to whole seconds (``P1DT2H3M4S``, ``PT0S``),
    rounded down: a clock never shows more time than it has."""
    seconds = max(0, ms) // 1000
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    time_part = "".join(f"{v}{u}" for v, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if v)
    if not days and not time_part:
        return "PT0S"
    return (f"P{days}D" if days else "P") + (f"T{time_part}" if time_part else "")


def check_job(game_id: str, deadline_ms: int, seat: int) -> Job:
    return Job("clock", game_id, deadline_ms, seat)


def began(game_id: str, match: Match, at: int) -> list[Job]:
    """The checks of the turns that began with the batch recorded at ``at`` (``match``: the
    game after it)."""
    table = match.table
    if table is None or not table.rules.clocked:
        return []
    return [
        check_job(game_id, deadline, seat)
        for seat, deadline in table.deadlines().items()
        if table.mark_of(seat) == at  # its turn began, or its vacation started or ended
    ]


class Clocks:
    """The hook that puts each deadline's check in the index (``service.hooks``).  With
    ``folded``, the append already did it, in the same call (``service.redis_store``: the
    queue's Redis is the game's); the hook then only schedules again after an undo."""

    def __init__(self, connection: Any, folded: bool = False) -> None:
        self.add = connections.script(connection, _ADD)  # the queue's Redis
        self.folded = folded

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        if not self.folded:
            for job in began(cur.game_id, match, records[-1].at):
                self.schedule(job)

    def undone(self, cur: Current, target: int) -> None:
        table = cur.match.table
        if table is not None:
            for seat, deadline in table.deadlines().items():
                self.schedule(check_job(cur.game_id, deadline, seat))

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None  # chat does not touch the clock

    def schedule(self, check: Job) -> None:
        """``check`` (``check_job``) in the index, scored by its deadline."""
        self.add(keys=(DEADLINES,), args=(check.version, check.id))


class Due:
    """The checks whose deadline has passed, taken out of the index (by one worker only)."""

    def __init__(self, connection: Any) -> None:
        self.take = connections.script(connection, _TAKE)

    def __call__(self, now_ms: int, limit: int = 100) -> list[Job]:
        taken = self.take(keys=(DEADLINES,), args=(now_ms, limit))
        return [job for member in taken if (job := check_of(member)) is not None]


def check_of(member: bytes | str) -> Job | None:
    """The check a member of the index names (``clock-<game>-<deadline>-<seat>``), or None."""
    text = member.decode(errors="replace") if isinstance(member, bytes) else member
    if not (text.isascii() and text.isprintable()):
        return None
    kind, _, rest = text.partition("-")
    game_id, _, tail = rest.rpartition("-")
    game_id, _, deadline = game_id.rpartition("-")
    if kind != "clock" or not deadline.isdigit() or not tail.isdigit():
        return None
    if not 0 < len(game_id) <= 64:
        return None
    return check_job(game_id, int(deadline), int(tail))


def overdue(game_id: str, meta: GameMeta, now_ms: int) -> list[Job]:
    """Checks of the deadlines in a game's meta that have passed (for the reconciler)."""
    deadlines = meta.progress.deadlines or {}
    return [check_job(game_id, ms, int(s)) for s, ms in deadlines.items() if ms <= now_ms]
