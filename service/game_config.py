"""A new game's configuration, checked: player count, options (the game's own and ``undo``),
bots.  Creation is the only caller; an imported log's configuration is checked by replaying it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine import Config, Game, Player
from domain.errors import BadAction
from domain.undo import POLICIES

DEFAULT_UNDO = POLICIES[0]  # the policy of a game created without the ``undo`` option


def option_values(game: Game) -> dict[str, tuple[str, ...]]:
    """Every option of ``game`` with its allowed values, the default first (``undo`` included)."""
    return {**{k: tuple(v) for k, v in game.options.items()}, "undo": POLICIES}


def checked_config(
    game: Game,
    players: Sequence[Mapping[str, Any]],
    options: Mapping[str, str],
    table: Mapping[str, Any] | None = None,
) -> Config:
    """A checked configuration, with every option filled in (defaults first); ``table``: the
    table section of ``GameCreated`` (``service.lobby.table_section``), open seats unnamed."""
    n = len(players)
    if not game.min_players <= n <= game.max_players:
        raise BadAction(
            f"{game.id} takes {game.min_players}-{game.max_players} players, not {n}",
            {"players": [f"{game.min_players} to {game.max_players} players"]},
        )
    allowed = option_values(game)
    problems: dict[str, list[str]] = {}
    for name, value in options.items():
        if name not in allowed:
            problems[f"options.{name}"] = [f"unknown option; {game.id} has: {', '.join(allowed)}"]
        elif value not in allowed[name]:
            problems[f"options.{name}"] = [f"must be one of: {', '.join(allowed[name])}"]
    for i, p in enumerate(players):
        bot = p.get("bot")
        if bot is not None and bot not in game.bots:
            problems[f"players.{i}.bot"] = [f"must be one of: {', '.join(game.bots)}"]
    if table is not None and table.get("resign_bot") not in game.bots:
        problems["resign_bot"] = [f"must be one of: {', '.join(game.bots)}"]
    if problems:
        raise BadAction("invalid game options or players", problems)
    chosen = {k: options.get(k, v[0]) for k, v in allowed.items()}
    seats = tuple(Player(p.get("name"), p.get("bot")) for p in players)
    return Config(game.id, chosen, seats, table=None if table is None else dict(table))
