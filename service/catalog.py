"""The catalog: the games offered, from the registry, in the contract's shape."""

from __future__ import annotations

from typing import Any

from domain import games
from domain.engine import Game
from service.game_config import option_values


def catalog_game(g: Game) -> dict[str, Any]:
    """Players, options (the first value is the default), bots and action shapes of a game."""
    return {
        "id": g.id,
        "name": g.name,
        "players": {"min": g.min_players, "max": g.max_players},
        "options": {k: {"values": list(v), "default": v[0]} for k, v in option_values(g).items()},
        "bots": list(g.bots),
        "actions": {
            t: {
                n: {"kind": f.kind, "required": f.required, "choices": f.choices, "doc": f.doc}
                for n, f in fields.items()
            }
            for t, fields in g.actions.items()
        },
    }


def catalog() -> dict[str, Any]:
    return {"games": [catalog_game(g) for g in games.GAMES.values()]}
