"""Driving games in tests: one action in memory (``act``, ``refused``), the variants of every
registered game, and random play through HTTP."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from domain.engine import Event, Game
from domain.errors import IllegalAction
from domain.games import GAMES
from domain.rng import Rng
from tests.support.client import Client

SEED = "t"


def game_of(state: Any) -> Game:
    """The registered game a state belongs to (by its state type)."""
    return next(g for g in GAMES.values() if isinstance(state, g.state_type))


def act(
    state: Any, seat: int, action: dict[str, Any], seed: str = SEED, n: int = 1
) -> tuple[Any, list[Event]]:
    """Decide one action of ``seat`` with the RNG ``(seed, n)`` and fold its events: the new
    state and the events.  The game's own rules only: the engine's checks are tested apart."""
    game = game_of(state)
    events = game.decide(state, seat, dict(action), Rng.at(seed, n))
    for event in events:
        state = game.evolve(state, event)
    return state, events


def refused(
    state: Any, seat: int, action: dict[str, Any], rule: str | None = None, text: str = ""
) -> IllegalAction:
    """The rules refuse the action (naming ``rule`` and saying ``text``, if given)."""
    with pytest.raises(IllegalAction) as info:
        game_of(state).decide(state, seat, dict(action), Rng.at(SEED, 1))
    if rule is not None:
        assert info.value.rule == rule, info.value.message
        assert info.value.message.startswith(f"{rule}:")
    assert text in info.value.message
    return info.value


def variants() -> Iterator[tuple[str, dict[str, str], int]]:
    """Every (game, options, player count) the registered games offer."""
    for game in GAMES.values():
        names = sorted(game.options)
        for values in itertools.product(*(game.options[n] for n in names)):
            for n in range(game.min_players, game.max_players + 1):
                yield game.id, dict(zip(names, values, strict=True)), n


def variant_id(v: tuple[str, dict[str, str], int]) -> str:
    game, options, n = v
    return "-".join([game, *options.values(), f"{n}p"])


def new_game(
    api: Client, game: str, options: dict[str, str], n: int, **extra: Any
) -> tuple[str, dict[int, str]]:
    created = api.create(game, [{"name": f"P{i}"} for i in range(n)], options=options, **extra)
    return created["id"], {s["seat"]: s["token"] for s in created["seats"]}


def play_random(
    api: Client,
    gid: str,
    tokens: dict[int, str],
    rng: random.Random,
    on_version: Callable[[int], None] | None = None,
    max_steps: int = 20_000,
) -> int:
    """Random legal actions by whichever seat may act until the rules end; returns the steps."""
    for step in range(max_steps):
        summary = api.summary(gid)
        if on_version:
            on_version(summary["version"])
        if summary["status"] != "active":
            return step
        seat = rng.choice(summary["to_act"])
        listed = api.actions(gid, tokens[seat])
        assert listed["actions"], f"seat {seat} is to act but has no legal action"
        r = api.act(gid, tokens[seat], rng.choice(listed["actions"]), listed["version"])
        assert r.status_code == 201, r.text
    raise AssertionError("the game did not end")
