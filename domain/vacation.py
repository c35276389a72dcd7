"""Vacations (contract: Time controls): a seat stops its clock for some days.

``VacationStarted {seat, until}`` (``until``: ms since the epoch, the command's recorded time
plus the days asked) and ``VacationEnded {seat}`` (ended early) are table events
(``domain.table``); the table notes them at the end of their batch, with its time.  The end of
a vacation needs no event: the seat's clock runs again from ``until``, which the log holds.
The days count against the seat's allowance (``time_control.vacation``); a vacation ended
early gives the unused time back.
"""

from __future__ import annotations

from domain import engine
from domain import table as tables
from domain.engine import Event, Match
from domain.errors import BadAction, Forbidden, StateConflict

DAY_MS = 86_400_000


def _seat_clock(match: Match, game: engine.Game, seat: int) -> tables.Table:
    table = match.table
    if table is None or not table.rules.clocked or table.rules.vacation_ms <= 0:
        raise StateConflict("vacations_off", "the host did not allow vacations at this table")
    status = match.status(game)
    if status != engine.ACTIVE:
        raise Forbidden("game_over", f"the game is {status}: no vacation")
    if table.bots[seat]:
        raise Forbidden("played_by_bot", f"seat {seat} is played by a bot")
    return table


def start(match: Match, game: engine.Game, seat: int, days: int, at: int) -> list[Event]:
    """Seat ``seat`` goes on vacation for ``days`` from ``at`` (the command's time)."""
    table = _seat_clock(match, game, seat)
    away = table.away_of(seat)
    if away is not None and away > at:
        raise StateConflict("on_vacation", f"seat {seat} is on vacation already", {"seat": seat})
    left = table.vacation_left(seat)
    if days < 1 or days * DAY_MS > left:
        raise BadAction(
            f"seat {seat} has {left // DAY_MS} vacation days left",
            {"days": [f"1 to {left // DAY_MS}"]},
        )
    until = at + days * DAY_MS
    return engine.normalized([Event(tables.VACATION_STARTED, seat, {"seat": seat, "until": until})])


def end(match: Match, game: engine.Game, seat: int, at: int) -> list[Event]:
    """Seat ``seat`` is back before its vacation's end."""
    table = _seat_clock(match, game, seat)
    away = table.away_of(seat)
    if away is None or away <= at:
        raise StateConflict("not_on_vacation", f"seat {seat} is not on vacation", {"seat": seat})
    return engine.normalized([Event(tables.VACATION_ENDED, seat, {"seat": seat})])
