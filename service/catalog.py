"""The catalog: the games offered, from the registry, in the contract's shape, with the words a
person reads about them (a description per game, a label and a description per option, option
value and bot) from ``catalog.<lang>.json`` beside this module: words are data, so that other
clients and the translations to come share them.  A name the file does not describe is shown
as itself (``tests/e2e/test_docs.py`` checks that every one is described)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from domain import games
from domain.engine import Game
from service.game_config import option_values

WORDS = Path(__file__).with_name("catalog.en.json")
RULES_PATH = "/api/v1/docs/rules"  # service.http.docs: the players' rules of each game


@cache
def words() -> dict[str, Any]:
    return dict(json.loads(WORDS.read_text(encoding="utf-8")))


def _words(found: Any, name: str) -> dict[str, str]:
    found = found or {}
    return {"label": found.get("label", name), "description": found.get("description", "")}


def catalog_option(g: Game, name: str, values: tuple[str, ...]) -> dict[str, Any]:
    """An option's values (the first is the default) and the words about it and each value."""
    game_options = words()["games"].get(g.id, {}).get("options", {})
    found = game_options.get(name) or words()["options"].get(name) or {}
    return {
        "values": list(values),
        "default": values[0],
        **_words(found, name),
        "choices": {v: _words(found.get("values", {}).get(v), v) for v in values},
    }


def catalog_game(g: Game) -> dict[str, Any]:
    """Players, options (the first value is the default), bots and action shapes of a game."""
    return {
        "id": g.id,
        "name": g.name,
        "description": words()["games"].get(g.id, {}).get("description", ""),
        "rules": f"{RULES_PATH}/{g.id}",
        "players": {"min": g.min_players, "max": g.max_players},
        "options": {k: catalog_option(g, k, v) for k, v in option_values(g).items()},
        "bots": list(g.bots),
        "bot_levels": {b: _words(words()["bots"].get(b), b) for b in g.bots},
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
