"""The registry of games offered by the service.  Registering a game is one line here.

Each game is one ``GameRules`` value built in its own package (``domain/games/<game>``, laid out
alike: ``data``, ``state``, ``events``, ``rules``, ``view``, ``bots``); the packages never import
each other (an import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from domain.engine import Game
from domain.games.artus import GAME as ARTUS
from domain.games.kings_and_castles import GAME as KINGS_AND_CASTLES
from domain.games.lancaster import GAME as LANCASTER

GAMES: dict[str, Game] = {g.id: g for g in (ARTUS, KINGS_AND_CASTLES, LANCASTER)}


def get(game_id: str) -> Game | None:
    return GAMES.get(game_id)
