"""The job functions RQ runs.  Plain functions with primitive arguments, idempotent: a job that
finds the game moved on (another version, seat no longer to act, result already recorded) does
nothing.  They use the same write path as HTTP requests (``Chronicle.act`` / ``finish``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from domain import bots
from projections.views import SEAT, Caller
from service import faults, ratings
from service.app import build_chronicle
from service.chronicle import Chronicle
from service.config import Settings
from service.errors import VersionConflict
from service.metrics import observed_job

log = logging.getLogger(__name__)
_chronicle: Chronicle | None = None


def chronicle() -> Chronicle:
    """The worker process's service, built on first use (never at import)."""
    global _chronicle
    if _chronicle is None:
        _chronicle = build_chronicle(Settings.from_env())
    return _chronicle


@observed_job("bot")
def bot_turn(game_id: str, version: int, seat: int) -> str:
    """Play one turn for a bot seat, deciding from that seat's view only."""
    ch = chronicle()
    cur = ch.current(game_id)
    match, game = cur.match, cur.game
    if match.version != version or seat not in match.to_act(game):
        return "stale"
    if not match.bot(seat):  # its own bot, a resign or takeover bot, or a timed-out turn's
        return "not a bot"
    rng = bots.bot_rng(cur.seed, version + 1, seat)
    action = bots.decide(game, match, seat, rng, stop=deadline(_max_seconds()))
    faults.point("bot_turn")  # tests only: die after deciding, before the append
    try:
        ch.act(game_id, Caller(SEAT, seat), action, version, by_bot=True)
    except VersionConflict:
        return "stale"
    return "played"


def _max_seconds() -> float:
    return Settings.from_env().bot_max_seconds


def deadline(seconds: float) -> Callable[[], bool]:
    """A ``stop`` check for a search: true once ``seconds`` have passed (the domain has no
    clock, so the time budget lives here)."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


@observed_job("score")
def score(game_id: str, version: int) -> str:
    """Append the final result once the rules reached the end, then count a rated game for
    the ratings (after the append, never inside it).  The count runs even when this job finds
    the result already there: a retry of a job that appended the result but failed before
    counting still counts it, and counting is once per game (``service.ratings``)."""
    ch = chronicle()
    scored = ch.finish(game_id, version)
    ratings.settle(ch, game_id)
    return "scored" if scored else "stale"
