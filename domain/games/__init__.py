"""The registry of games offered by the service.  Registering a game is one line here."""

from __future__ import annotations

from domain.engine import Game
from domain.games.artus import GAME as ARTUS

GAMES: dict[str, Game] = {g.id: g for g in (ARTUS,)}


def get(game_id: str) -> Game | None:
    return GAMES.get(game_id)
