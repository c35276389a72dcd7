"""What every game's bots share: the random bot, and the one place a bot decides.

A bot decides from its seat's view and the legal actions only, never the full state
(``decide``).  Its randomness is the RNG of the version it plays at under one label per seat
(``bot_rng``): a retried bot job decides the same action, and the action is recorded as the
command of its batch, so replay never asks a bot again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine import Game, Match
from domain.rng import Rng

DEFAULT_BOT = "random"


def random_bot(
    view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng
) -> dict[str, Any]:
    """Uniform over the legal actions: a bot every game offers."""
    return dict(rng.choice(actions))


def bot_rng(seed: str, version: int, seat: int) -> Rng:
    """The RNG of a bot at ``seat`` deciding the action that will make ``version``."""
    return Rng.at(seed, version, f"bot:{seat}")


def decide(game: Game, match: Match, seat: int, rng: Rng) -> dict[str, Any]:
    """The action of the bot that plays the seat now (its own, a resign or takeover bot, or a
    timed-out turn's; ``random`` if none), from the seat's view."""
    name = match.bot(seat) or DEFAULT_BOT
    actions = game.legal_actions(match.state, seat)
    return game.bots[name](game.view(match.state, seat), actions, rng)
