"""What every game's bots share: the random bot, and the one place a bot decides.

A bot decides from its seat's view and the legal actions only, never the full state
(``decide``).  Its randomness is the RNG of the version it plays at under one label per seat
(``bot_rng``): a retried bot job decides the same action, and the action is recorded as the
command of its batch, so replay never asks a bot again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

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


class SearchingBot(Protocol):
    """A bot that searches (``budgeted = True``): it stops when ``stop()`` turns true."""

    budgeted: bool

    def __call__(
        self,
        view: Mapping[str, Any],
        actions: Sequence[Mapping[str, Any]],
        rng: Rng,
        stop: Callable[[], bool] | None = None,
    ) -> dict[str, Any]: ...


def decide(
    game: Game, match: Match, seat: int, rng: Rng, stop: Callable[[], bool] | None = None
) -> dict[str, Any]:
    """The action of the bot that plays the seat now (its own, a resign or takeover bot, or a
    timed-out turn's; ``random`` if none), from the seat's view and legal actions only, never
    the state.  A searching bot (``budgeted``) also gets ``stop``, the caller's time cap: the
    domain has no clock."""
    name = match.bot(seat) or DEFAULT_BOT
    actions = game.legal_actions(match.state, seat)
    bot = game.bots[name]
    view = game.view(match.state, seat)
    if stop is not None and getattr(bot, "budgeted", False):
        return dict(cast(SearchingBot, bot)(view, actions, rng, stop=stop))
    return dict(bot(view, actions, rng))
