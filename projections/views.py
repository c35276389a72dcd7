"""What a caller may see: views, redacted events, summaries.

The secrecy policy of each game lives in its own ``view`` module (``view``, ``full_view``,
``redact``); this module only decides *which* of them applies to a caller:

- a seat sees its own view; spectators and the host see the public view (the host has powers,
  not sight); the operator (admin) sees everything;
- once a game is finished everything is revealed, to everyone, for replay.  A replay at an
  earlier version shows what the caller saw then, unless the caller asks to ``reveal`` it
  (allowed once the game is finished).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain import table as tables
from domain.engine import FINISHED, Config, Game, Match
from projections.records import Recorded, iso, public

SEAT, SPECTATOR, HOST, ADMIN = "seat", "spectator", "host", "admin"
OVER = frozenset({FINISHED, tables.ABANDONED})  # statuses in which everything is revealed


def revealed(status: str) -> bool:
    """A finished or abandoned game shows everything to everyone."""
    return status in OVER


@dataclass(frozen=True)
class Caller:
    role: str
    seat: int | None = None

    @property
    def sight(self) -> int | None:
        """The seat whose information this caller may see (None: public only)."""
        return self.seat if self.role == SEAT else None


def view_doc(
    game: Game, game_id: str, match: Match, caller: Caller, reveal: bool
) -> dict[str, Any]:
    """The contract's view document of ``match`` for ``caller``."""
    status = match.status(game)
    full = reveal or caller.role == ADMIN or revealed(status)
    doc: dict[str, Any] = {
        "id": game_id,
        "game": game.id,
        "version": match.version,
        "status": status,
        "you": caller.sight,
        "to_act": list(match.to_act(game)),
        "state": game.full_view(match.state) if full else game.view(match.state, caller.sight),
    }
    if match.result is not None:
        doc["result"] = match.result
    if match.table is not None and match.table.rules.clocked:
        doc["deadlines"] = deadlines_doc(match)
    return doc


def deadlines_doc(match: Match) -> dict[str, str]:
    """``{"<seat>": "<ISO time>"}`` for every seat to act that a person plays (clocked games)."""
    if match.table is None:
        return {}
    return {str(s): iso(ms) for s, ms in sorted(match.table.deadlines().items())}


def events_for(
    game: Game, records: Iterable[Recorded], caller: Caller, reveal: bool, *, config: Config
) -> list[dict[str, Any]]:
    """Events in the contract's shape, each redacted for ``caller`` unless revealed."""
    full = reveal or caller.role == ADMIN
    sight = caller.sight
    return [
        public(
            r,
            r.data
            if full or tables.is_event(r.type, r.data)  # the table's events are public
            else game.redact(r.event, sight, config),
        )
        for r in records
    ]


def seats_doc(match: Match) -> list[dict[str, Any]]:
    if match.table is not None:
        return match.table.seats()
    return [{"seat": i, **p.doc()} for i, p in enumerate(match.config.players)]
