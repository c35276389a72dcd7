"""The job functions RQ runs.  Plain functions with primitive arguments, idempotent: a job that
finds the game moved on (another version, seat no longer to act, result already recorded) does
nothing.  They use the same write path as HTTP requests (``Chronicle.act`` / ``finish``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from domain.engine import Game
from domain.rng import Rng
from projections.views import SEAT, Caller
from service import faults
from service.app import build_chronicle
from service.config import Settings
from service.games import Chronicle, VersionConflict

log = logging.getLogger(__name__)
_chronicle: Chronicle | None = None


def chronicle() -> Chronicle:
    """The worker process's service, built on first use (never at import)."""
    global _chronicle
    if _chronicle is None:
        _chronicle = build_chronicle(Settings.from_env())
    return _chronicle


def bot_turn(game_id: str, version: int, seat: int) -> str:
    """Play one turn for a bot seat, deciding from that seat's view only."""
    ch = chronicle()
    cur = ch.current(game_id)
    match, game = cur.match, cur.game
    if match.version != version or seat not in match.to_act(game):
        return "stale"
    name = match.config.players[seat].bot
    if not name:
        return "not a bot"
    rng = Rng.at(cur.seed, version + 1, f"bot:{seat}")
    action = choose(game, match.state, seat, name, rng, _max_seconds())
    faults.point("bot_turn")  # tests only: die after deciding, before the append
    try:
        ch.act(game_id, Caller(SEAT, seat), action, version)
    except VersionConflict:
        return "stale"
    return "played"


def choose(
    game: Game, state: Any, seat: int, name: str, rng: Rng, max_seconds: float
) -> dict[str, Any]:
    """The move of bot ``name`` for ``seat``: it is given the seat's view and legal actions
    only, never ``state``; a searching bot also gets the operator's time cap as ``stop``."""
    view = game.view(state, seat)
    actions = game.legal_actions(state, seat)
    bot = game.bots[name]
    if getattr(bot, "budgeted", False):
        return bot(view, actions, rng, stop=deadline(max_seconds))
    return bot(view, actions, rng)


def _max_seconds() -> float:
    return Settings.from_env().bot_max_seconds


def deadline(seconds: float) -> Callable[[], bool]:
    """A ``stop`` check for a search: true once ``seconds`` have passed (the domain has no
    clock, so the time budget lives here)."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def score(game_id: str, version: int) -> str:
    """Append the final result once the rules reached the end."""
    return "scored" if chronicle().finish(game_id, version) else "stale"
