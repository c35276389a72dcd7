"""The table's commands: join, leave, start, resign, abandon, and the clock's timeout.

Each takes the folded ``Match`` and returns the events to append (or refuses); the service
appends them through the same conditional write as a move, and a replay re-decides them from
the command recorded with them (``{"table": <command>, ...}``, see ``redecide``).  The table's
state and its events are described in ``domain.table``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import engine, vacation
from domain import table as tables
from domain.engine import Event, Match
from domain.errors import BadAction, Forbidden, StateConflict

COMMAND = "table"  # the key that marks a recorded command as a table command


def _table(match: Match) -> tables.Table:
    assert match.table is not None, "every match folded from GameCreated has a table"
    return match.table


def _waiting(match: Match) -> tables.Table:
    table = _table(match)
    if table.status() != tables.WAITING:
        raise StateConflict(
            "game_not_waiting", "the game has started; no seat can be joined or left"
        )
    return table


def join(match: Match, seat: int, name: str, player: str | None = None) -> list[Event]:
    """Take an open seat (``player``: the account joining, which then holds it); the last one
    to be taken starts the game."""
    table = _waiting(match)
    if not table.is_open(seat):
        raise StateConflict("seat_taken", f"seat {seat} is taken", {"seat": seat})
    events = [Event(tables.SEAT_JOINED, seat, {"seat": seat, "name": name})]
    if player is not None:
        events.append(Event(tables.SEAT_CLAIMED, seat, {"seat": seat, "player": player}))
    if table.open_seats() == [seat]:
        events.append(Event(tables.GAME_STARTED, None, {"filled": {}}))
    return engine.normalized(events)


def leave(match: Match, seat: int) -> list[Event]:
    table = _waiting(match)
    if seat not in table.rules.open:
        raise Forbidden("not_an_open_seat", f"seat {seat} was named at creation; it cannot be left")
    if table.is_open(seat):
        raise Forbidden("seat_open", f"seat {seat} is open")
    return engine.normalized([Event(tables.SEAT_LEFT, seat, {"seat": seat})])


def start(match: Match, fill: str, bots: Mapping[str, Any]) -> list[Event]:
    """Fill every open seat with ``fill`` and start."""
    table = _waiting(match)
    if fill not in bots:
        raise BadAction(f"unknown bot {fill!r}", {"fill": [f"one of: {', '.join(bots)}"]})
    filled = {str(s): fill for s in table.open_seats()}
    return engine.normalized([Event(tables.GAME_STARTED, None, {"filled": filled})])


def _playing(match: Match, game: engine.Game) -> tables.Table:
    status = match.status(game)
    if status == tables.WAITING:
        raise Forbidden("not_started", "the game has not started (a waiting seat may leave)")
    if status != engine.ACTIVE:
        raise Forbidden("game_over", f"the game is {status}")
    return _table(match)


def resign(match: Match, game: engine.Game, seat: int) -> list[Event]:
    table = _playing(match, game)
    if table.bots[seat]:
        raise Forbidden("played_by_bot", f"seat {seat} is already played by a bot")
    bot = table.rules.resign_bot
    return engine.normalized([Event(tables.SEAT_RESIGNED, seat, {"seat": seat, "bot": bot})])


def abandon(match: Match, game: engine.Game) -> list[Event]:
    status = match.status(game)
    if status in (engine.FINISHED, tables.ABANDONED):
        raise Forbidden("game_over", f"the game is already {status}")
    return engine.normalized([Event(tables.GAME_ABANDONED, None, {})])


def time_out(match: Match, game: engine.Game, seat: int, now: int) -> list[Event]:
    """The seat's clock ran out at ``now``: the bot plays the rest of its turn, and takes the
    seat for good after the set number of timeouts in a row."""
    table = _playing(match, game)
    deadline = table.deadlines().get(seat)
    if deadline is None:
        raise Forbidden("no_deadline", f"seat {seat} has no running clock")
    if now < deadline:
        raise Forbidden("not_due", f"seat {seat} has time until {deadline}")
    events = [Event(tables.TURN_TIMED_OUT, seat, {"seat": seat})]
    if table.timeouts[seat] + 1 >= table.rules.takeover_after:
        bot = table.rules.resign_bot
        events.append(Event(tables.SEAT_TAKEN_OVER, seat, {"seat": seat, "bot": bot}))
    return engine.normalized(events)


def claim(match: Match, seat: int, player: str) -> list[Event]:
    """An account takes ``seat`` as its own (``SeatClaimed``); none when it already holds it.
    An open seat has nobody to claim it; one another account holds stays theirs."""
    table = _table(match)
    if not 0 <= seat < len(table.names):
        raise BadAction(f"no seat {seat}", {"seat": ["a seat of this game"]})
    if table.is_open(seat):
        raise Forbidden("seat_open", f"seat {seat} is open: join it instead")
    held = table.players[seat] if table.players else None
    if held == player:
        return []
    if held is not None:
        raise StateConflict("seat_claimed", f"seat {seat} is held by another account")
    return engine.normalized([Event(tables.SEAT_CLAIMED, seat, {"seat": seat, "player": player})])


def check_person(match: Match, seat: int) -> None:
    """A person may act for ``seat`` only while no bot plays it."""
    table = _table(match)
    if seat in table.timed_out:
        raise StateConflict(
            "turn_timed_out", f"seat {seat}'s time ran out; a bot plays this turn", {"seat": seat}
        )
    if table.bots[seat]:
        raise Forbidden("played_by_bot", f"seat {seat} is played by a bot")


def command(kind: str, **fields: Any) -> dict[str, Any]:
    """The recorded command of a table batch."""
    return {COMMAND: kind, **fields}


def is_command(value: Any) -> bool:
    return isinstance(value, Mapping) and COMMAND in value


def redecide(game: engine.Game, match: Match, cmd: Mapping[str, Any], at: int) -> list[Event]:
    """The events a recorded table command decides (for replays); ``at`` is its time."""
    kind = cmd[COMMAND]
    if kind == "join":
        player = cmd.get("player")
        return join(match, int(cmd["seat"]), str(cmd["name"]), str(player) if player else None)
    if kind == "claim":
        return claim(match, int(cmd["seat"]), str(cmd["player"]))
    if kind == "leave":
        return leave(match, int(cmd["seat"]))
    if kind == "start":
        return start(match, str(cmd["fill"]), game.bots)
    if kind == "resign":
        return resign(match, game, int(cmd["seat"]))
    if kind == "abandon":
        return abandon(match, game)
    if kind == "timeout":
        return time_out(match, game, int(cmd["seat"]), at)
    if kind == "vacation":
        return vacation.start(match, game, int(cmd["seat"]), int(cmd["days"]), at)
    if kind == "vacation_end":
        return vacation.end(match, game, int(cmd["seat"]), at)
    raise BadAction(f"unknown table command {kind!r}", {"command": ["unknown"]})
