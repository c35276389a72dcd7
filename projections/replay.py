"""Re-deciding a recorded log through the rules: the check behind import and `chronicle replay`.

Every batch of a log starts with its command: ``"create"`` (the set-up), a seat's action,
``"finish"`` (the final result), or a table command (``{"table": "join", ...}``, see
``domain.seating``; a timeout is checked against the deadline the log's own times give).
Replaying a batch re-runs that command through the engine with the RNG of its version (derived
from the revealed seed) and must give back exactly the recorded events; the hash chain must
link every event.  The first version where either fails is named.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain import engine, seating
from domain.engine import Event, Game, Match
from domain.errors import Refused
from domain.rng import Rng
from projections import chain
from projections.records import CREATE, FINISH, Recorded


class ReplayError(Exception):
    def __init__(self, version: int, message: str) -> None:
        super().__init__(f"version {version}: {message}")
        self.version = version


def replay(game: Game, seed: str, records: Sequence[Recorded]) -> Match:
    """The match a valid log folds to, or ``ReplayError`` naming the first bad version."""
    if not records:
        raise ReplayError(0, "the log is empty")
    broken = chain.first_break(chain.chain_key(seed), records)
    if broken is not None:
        raise ReplayError(broken, "the hash chain is broken (the log was altered)")
    for i, rec in enumerate(records):
        if rec.version != i + 1:
            raise ReplayError(rec.version, f"expected version {i + 1}")
    match: Match | None = None
    i = 0
    while i < len(records):
        rec = records[i]
        expected = _decide(game, match, rec, seed)
        batch = records[i : i + len(expected)]
        if len(batch) != len(expected) or any(
            not _same(r, e) for r, e in zip(batch, expected, strict=False)
        ):
            raise ReplayError(rec.version, "the recorded events differ from what the rules decide")
        if any(r.actor != rec.actor for r in batch):
            raise ReplayError(rec.version, "events of one command must share its actor")
        tail = records[i + len(expected) : i + len(expected) + 1]
        if tail and tail[0].command is None:
            raise ReplayError(tail[0].version, "an event without a command follows the batch")
        match = engine.settle(
            game, engine.fold(game, (r.event for r in batch), match), batch[-1].at
        )
        i += len(expected)
    assert match is not None
    return match


def _decide(game: Game, match: Match | None, rec: Recorded, seed: str) -> list[Event]:
    command: Any = rec.command
    try:
        if rec.version == 1:
            if command != CREATE or rec.type != engine.GAME_CREATED:
                raise ReplayError(1, "a log starts with the GameCreated batch")
            config = engine.config_from_created(rec.data)
            if config.game != game.id:
                raise ReplayError(1, f"the log is of {config.game}, not {game.id}")
            return engine.create(game, config, Rng.at(seed, 1))
        assert match is not None
        if command == FINISH:
            return engine.finish(game, match)
        if seating.is_command(command):
            return seating.redecide(game, match, command, rec.at)
        if not isinstance(command, dict) or rec.actor is None:
            raise ReplayError(rec.version, "a batch must start with a seat's command")
        return engine.decide(game, match, rec.actor, command, Rng.at(seed, rec.version))
    except Refused as exc:
        raise ReplayError(rec.version, f"illegal command: {exc.message}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(rec.version, f"malformed record: {exc}") from exc


def _same(rec: Recorded, event: Event) -> bool:
    return (
        rec.type == event.type
        and rec.seat == event.seat
        and json.dumps(rec.data, sort_keys=True) == json.dumps(event.data, sort_keys=True)
    )
