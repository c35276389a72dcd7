"""Games played in memory ahead of time: the same seed and configuration give the service the
same events, so a benchmark can post a recorded game's actions without asking for them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from domain.engine import Game
from domain.games import GAMES
from domain.simulate import Step, playthrough
from service.chronicle import Chronicle
from service.game_config import checked_config


@dataclass(frozen=True)
class Script:
    game: str
    options: dict[str, str]
    players: list[dict[str, Any]]
    seed: str
    steps: list[Step]  # the creation batch first, the scoring batch last

    @property
    def moves(self) -> list[tuple[int, int, dict[str, Any]]]:
        """(seat, expected version, action) of every seat's command."""
        out = []
        for before, step in itertools.pairwise(self.steps):
            if step.seat is not None and step.action is not None:
                out.append((step.seat, before.match.version, step.action))
        return out

    @property
    def events(self) -> int:
        return self.steps[-1].match.version

    def create(self, ch: Chronicle) -> tuple[str, dict[int, str]]:
        """The game created through the service: its id and the seats' tokens."""
        doc = ch.create(None, self.game, self.players, self.options, self.seed)
        return doc["id"], {s["seat"]: s.get("token") for s in doc["seats"]}


def variants(game: Game) -> Iterator[tuple[dict[str, str], int]]:
    names = sorted(game.options)
    for values in itertools.product(*(game.options[n] for n in names)):
        for n in range(game.min_players, game.max_players + 1):
            yield dict(zip(names, values, strict=True)), n


def script(game: Game, options: dict[str, str], n: int, seed: str) -> Script:
    players = [{"name": f"P{i}"} for i in range(n)]
    config = checked_config(game, players, options)
    return Script(game.id, options, players, seed, list(playthrough(game, config, seed)))


def scripts(game: Game, count: int, tag: str = "") -> list[Script]:
    """``count`` random games cycling through the game's variants (options x player counts)."""
    pool = list(variants(game))
    return [script(game, *pool[i % len(pool)], f"bench-{tag}-{game.id}-{i}") for i in range(count)]


def all_games() -> list[Game]:
    return list(GAMES.values())
