"""Play a game in memory with chosen or random legal actions: for tests, bots and benchmarks.

``playthrough`` drives any registered game through the engine exactly as the service does
(decide with the RNG of the next version, then evolve), so one generic test and one benchmark
serve every game.  A chooser gets the RNG a bot worker would use for that seat and version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from domain import bots, engine
from domain.engine import Config, Event, Game, Match
from domain.rng import Rng

Chooser = Callable[[Game, Match, int, list[dict[str, Any]], Rng], dict[str, Any]]


def random_chooser(
    game: Game, match: Match, seat: int, actions: list[dict[str, Any]], rng: Rng
) -> dict[str, Any]:
    return rng.choice(actions)


def bot_chooser(
    game: Game, match: Match, seat: int, actions: list[dict[str, Any]], rng: Rng
) -> dict[str, Any]:
    """The seat's configured bot (``random`` if none), deciding from the seat's own view."""
    return bots.decide(game, match, seat, rng)


@dataclass(frozen=True)
class Step:
    """One accepted command: who acted, what, and the events it produced."""

    seat: int | None
    action: dict[str, Any] | None
    events: list[Event]
    match: Match  # after the events


def playthrough(
    game: Game,
    config: Config,
    seed: str,
    choose: Chooser = random_chooser,
    max_steps: int = 100_000,
) -> Iterator[Step]:
    """Create the game, then act for seats until the rules reach the end; yields every step.

    The seat that acts is the lowest in ``to_act`` when several may act (any order is legal).
    Finishes with the scoring step (``GameFinished``).
    """
    events = engine.create(game, config, Rng.at(seed, 1))
    match = engine.fold(game, events)
    yield Step(None, None, events, match)
    for _ in range(max_steps):
        if match.status(game) != engine.ACTIVE:
            break
        seat = min(match.to_act(game))
        actions = game.legal_actions(match.state, seat)
        action = choose(game, match, seat, actions, bots.bot_rng(seed, match.version + 1, seat))
        events = engine.decide(game, match, seat, action, Rng.at(seed, match.version + 1))
        match = engine.fold(game, events, match)
        yield Step(seat, action, events, match)
    else:
        raise RuntimeError(f"{game.id}: no end after {max_steps} steps")
    events = engine.finish(game, match)
    match = engine.fold(game, events, match)
    yield Step(None, None, events, match)
