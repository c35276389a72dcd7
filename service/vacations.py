"""A seat's vacation (contract: Time controls): started and ended early through the one
write path, as a table command (``{"table": "vacation", ...}``), decided by the domain
(``domain.vacation``) at the command's recorded time, so a replay decides it again."""

from __future__ import annotations

from typing import Any

from domain import seating, vacation
from projections.records import iso
from projections.views import Caller
from service.chronicle import Chronicle
from service.loading import Current
from service.lobby import _as_seat, _retrying


def start(ch: Chronicle, game_id: str, caller: Caller, days: int) -> dict[str, Any]:
    """``caller``'s seat goes on vacation for ``days``: ``{version, seat, until}``."""
    seat = _as_seat(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        at = ch.clock()
        events = vacation.start(cur.match, cur.game, seat, days, at)
        cmd = seating.command("vacation", seat=seat, days=days)
        ch.append_table(cur, events, seat, cmd, at=at)
        until = int(events[0].data["until"])
        return {"version": cur.match.version + len(events), "seat": seat, "until": iso(until)}

    return _retrying(ch, game_id, command)


def end(ch: Chronicle, game_id: str, caller: Caller) -> dict[str, Any]:
    """``caller``'s seat is back early: ``{version, seat}``."""
    seat = _as_seat(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        at = ch.clock()
        events = vacation.end(cur.match, cur.game, seat, at)
        cmd = seating.command("vacation_end", seat=seat)
        ch.append_table(cur, events, seat, cmd, at=at)
        return {"version": cur.match.version + len(events), "seat": seat}

    return _retrying(ch, game_id, command)
