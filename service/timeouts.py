"""The time-out: the check of a deadline (``service.clocks`` keeps the deadlines' index).

A check job (``workers.clocks``) appends ``TurnTimedOut`` (and ``SeatTakenOver`` after the
table's number in a row) through the one write path, if that very deadline still stands and
has passed; then the follow-ups hand the turn to the bot.  It is idempotent: a check of a
deadline that moved (the seat acted, the log was undone) or was already acted on does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain import seating
from service.errors import VersionConflict

if TYPE_CHECKING:
    from service.chronicle import Chronicle


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
