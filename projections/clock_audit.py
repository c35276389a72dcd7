"""Every timeout of a log, derived again from the log's own times (``chronicle replay``).

The replay (``projections.replay``) already refuses a ``TurnTimedOut`` recorded before its
deadline: the rules decide it again at its recorded time.  This walk adds the other half:
a deadline that passed with no timeout.  Batch by batch it folds the log as the service did,
and before each batch notes the deadlines that stand (``domain.table``); a batch recorded
after a seat's deadline, while that seat's time had run out and no timeout came, is a missing
timeout.  It can be honest: the service checks a deadline a moment after it passes (a
worker's look every quarter second, then an RQ job), so a move made in that moment is taken,
and listed here with how late it was (``late``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain import engine, seating
from domain import table as tables
from domain.engine import Game, Match
from projections.records import Recorded


@dataclass(frozen=True)
class Timeout:
    """A recorded ``TurnTimedOut``: its version, seat, deadline and how long after it came."""

    version: int
    seat: int
    deadline: int
    late: int


@dataclass(frozen=True)
class Missed:
    """A deadline that passed with no timeout: the first batch after it (its version and
    time) and how long after the deadline that batch came."""

    version: int
    seat: int
    deadline: int
    late: int


@dataclass(frozen=True)
class ClockAudit:
    timeouts: tuple[Timeout, ...] = ()
    missed: tuple[Missed, ...] = ()
    early: tuple[Timeout, ...] = ()  # never in a log that replays (the rules refuse them)


def audit(game: Game, records: Sequence[Recorded]) -> ClockAudit:
    """The timeouts of a replayed log, each with its deadline, and the deadlines missed: a
    deadline that had passed at some batch and then went (the seat acted, the game ended)
    with no timeout for it.  One still standing at the end is a timeout yet to come."""
    match: Match | None = None
    timeouts: list[Timeout] = []
    missed: list[Missed] = []
    early: list[Timeout] = []
    overdue: dict[int, Missed] = {}  # seat -> its deadline passed at this batch, no timeout yet
    i = 0
    while i < len(records):
        j = i + 1
        while j < len(records) and records[j].command is None:
            j += 1
        batch, at = records[i:j], records[i].at
        deadlines = _deadlines(match)
        first = batch[0]
        if seating.is_command(first.command) and first.type == tables.TURN_TIMED_OUT:
            seat = int(first.data["seat"])
            if (deadline := deadlines.get(seat)) is not None:
                found = Timeout(first.version, seat, deadline, at - deadline)
                (timeouts if at >= deadline else early).append(found)
                overdue.pop(seat, None)
                deadlines.pop(seat)
        for seat, deadline in deadlines.items():
            if deadline < at and seat not in overdue:
                overdue[seat] = Missed(first.version, seat, deadline, at - deadline)
        match = engine.fold(game, (r.event for r in batch), match)
        match = engine.settle(game, match, batch[-1].at)
        after = _deadlines(match)
        for seat, m in list(overdue.items()):
            if after.get(seat) != m.deadline:
                missed.append(overdue.pop(seat))
        i = j
    return ClockAudit(tuple(timeouts), tuple(missed), tuple(early))


def _deadlines(match: Match | None) -> dict[int, int]:
    table = match.table if match is not None else None
    return table.deadlines() if table is not None else {}
