"""Driving games through HTTP in tests: variants of every registered game, random play."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

from domain.games import GAMES
from tests.support.client import Client


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
