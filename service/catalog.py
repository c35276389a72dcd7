"""The catalog: the games offered, from the registry, in the contract's shape, with the words a
person reads about them (a description per game, a label and a description per option, option
value and bot) from ``catalog.<lang>.json`` beside this module: words are data, so that other
clients share them.  English is ``catalog.en.json``; ``catalog.ja.json`` and
``catalog.zh-TW.json`` have the same keys (``tests/service/test_languages.py``), their terms
from the games' glossaries (``docs/rules/glossary.<game>.json``).  A word a translation lacks
is the English one; a name the English file does not describe is shown as itself
(``tests/e2e/test_docs.py`` checks that every one is described)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from domain import games
from domain.engine import Game
from service.game_config import option_values
from service.i18n import DEFAULT, LANGUAGES

WORDS = Path(__file__).with_name("catalog.en.json")
RULES_PATH = "/api/v1/docs/rules"  # service.http.docs: the players' rules of each game


def words_file(lang: str) -> Path:
    return WORDS.with_name(f"catalog.{lang}.json")


@cache
def words(lang: str = DEFAULT) -> dict[str, Any]:
    """The catalog's words in ``lang`` (one of ``service.i18n.LANGUAGES``), English beneath."""
    english = dict(json.loads(WORDS.read_text(encoding="utf-8")))
    if lang == DEFAULT or lang not in LANGUAGES:
        return english
    return _over(english, json.loads(words_file(lang).read_text(encoding="utf-8")))


def _over(base: Any, top: Any) -> Any:
    """``top`` laid over ``base``, key by key (a key ``top`` lacks keeps ``base``'s word)."""
    if isinstance(base, dict) and isinstance(top, dict):
        return {k: _over(v, top.get(k)) for k, v in base.items()}
    return base if top is None else top


def _words(found: Any, name: str) -> dict[str, str]:
    found = found or {}
    return {"label": found.get("label", name), "description": found.get("description", "")}


def catalog_option(
    g: Game, name: str, values: tuple[str, ...], lang: str = DEFAULT
) -> dict[str, Any]:
    """An option's values (the first is the default) and the words about it and each value."""
    said = words(lang)
    game_options = said["games"].get(g.id, {}).get("options", {})
    found = game_options.get(name) or said["options"].get(name) or {}
    return {
        "values": list(values),
        "default": values[0],
        **_words(found, name),
        "choices": {v: _words(found.get("values", {}).get(v), v) for v in values},
    }


def catalog_game(g: Game, lang: str = DEFAULT) -> dict[str, Any]:
    """Players, options (the first value is the default), bots and action shapes of a game,
    its words in ``lang``."""
    said = words(lang)
    return {
        "id": g.id,
        "name": g.name,
        "description": said["games"].get(g.id, {}).get("description", ""),
        "rules": f"{RULES_PATH}/{g.id}",
        "players": {"min": g.min_players, "max": g.max_players},
        "options": {k: catalog_option(g, k, v, lang) for k, v in option_values(g).items()},
        "bots": list(g.bots),
        "bot_levels": {b: _words(said["bots"].get(b), b) for b in g.bots},
        "actions": {
            t: {
                n: {"kind": f.kind, "required": f.required, "choices": f.choices, "doc": f.doc}
                for n, f in fields.items()
            }
            for t, fields in g.actions.items()
        },
    }


def catalog(lang: str = DEFAULT) -> dict[str, Any]:
    return {"games": [catalog_game(g, lang) for g in games.GAMES.values()]}
