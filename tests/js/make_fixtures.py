"""Real views for the web client's node tests (tests/js/*.test.mjs): whole games played in
memory by the engine (``domain.simulate``), written to .cache/js-fixtures/<game>.json.

The node tests read views the engine really makes, not hand-written ones, so a change in a
game's view or events that the client does not follow fails them.  They are made at test time
(scripts/test_web.sh runs this first; it takes a moment), not committed: they are derived data
of a megabyte that every change to a view would have to regenerate, and made afresh they are
never stale.

Each file holds the game's declared event and action types, the views (deduplicated:
``states``, referred to by index), samples of every event type as its owner, another seat and
a spectator see it (with the unredacted data, for the redaction tests), a seat's moves (its
view and every legal action) at two moments each action type is legal, and a few tables:
every seat's view, the spectator's and the full view at three points of one game.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from domain import simulate  # noqa: E402
from domain.engine import Config, Game, Match, Player  # noqa: E402
from domain.games import GAMES  # noqa: E402

OUT = ROOT / ".cache" / "js-fixtures"
MODULES = {
    "artus": ("artus.js", "artus_text.js"),
    "kings-and-castles": ("kings_and_castles.js", "kings_and_castles_text.js"),
    "lancaster": ("lancaster.js", "lancaster_text.js"),
}
SERVICE_EVENTS = ["GameCreated", "GameFinished"]
SEED = "a"  # its games play every event type (events.test.mjs checks it)
PER_EVENT = 2  # events of each type (and as many that others see redacted), for 3 viewers
PER_ACTION = 2  # moments each action type is legal (a seat's whole list of moves)
TABLE_PLAYERS = {"artus": (3,), "kings-and-castles": (3,), "lancaster": (2, 3)}


def event_types(game_id: str) -> list[str]:
    """Every event name a game's ``events`` module declares (CamelCase constants)."""
    module = __import__(f"domain.games.{game_id.replace('-', '_')}.events", fromlist=["x"])
    names = {
        v for v in vars(module).values() if isinstance(v, str) and re.fullmatch(r"[A-Z]\w+", v)
    }
    return sorted(names | set(SERVICE_EVENTS))


def variants(game: Game) -> Iterator[tuple[dict[str, str], int]]:
    """The game's option sets with 2 and 3 players (every event and action occurs in them)."""
    names = sorted(game.options)
    for values in itertools.product(*(game.options[n] for n in names)):
        for n in (2, 3):
            if game.min_players <= n <= game.max_players:
                yield dict(zip(names, values, strict=True)), n


class States:
    """Views stored once, referred to by their index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, state: Any) -> int:
        key = json.dumps(state, sort_keys=True)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(key)
        return self.index[key]


def table(
    game: Game, match: Match, states: States, n: int, options: dict[str, str]
) -> dict[str, Any]:
    """Every seat's view (with its legal actions), the spectator's and the full one; a
    finished game shows everyone the full view, as the service does
    (``projections.views.view_doc``)."""
    status = match.status(game)
    over = status == "finished"
    seats: list[int | None] = [*range(n), None]
    to_act = sorted(match.to_act(game)) if status == "active" else []

    def legal(seat: int | None) -> list[dict[str, Any]]:
        return game.legal_actions(match.state, seat) if seat in to_act else []

    return {
        "options": options,
        "n": n,
        "version": match.version,
        "status": status,
        "to_act": to_act,
        "result": match.result,
        "full": states.add(game.full_view(match.state)),
        "views": [
            {
                "you": seat,
                "actions": legal(seat),
                "state": states.add(
                    game.full_view(match.state) if over else game.view(match.state, seat)
                ),
            }
            for seat in seats
        ],
    }


def fixture(game_id: str) -> dict[str, Any]:
    game = GAMES[game_id]
    states = States()
    events: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    tables: list[dict[str, Any]] = []
    seen: dict[str, int] = {}

    def room(key: str, most: int) -> bool:
        seen[key] = seen.get(key, 0) + 1
        return seen[key] <= most

    for options, n in variants(game):
        cfg = Config(game_id, {**options, "undo": "turn"}, tuple(Player(f"p{i}") for i in range(n)))
        steps = list(simulate.playthrough(game, cfg, SEED))
        for step in steps:
            match = step.match
            version = match.version - len(step.events)
            for e in step.events:
                version += 1
                owner = e.seat if e.seat is not None else 0
                viewers = {"owner": owner, "other": (owner + 1) % n, "spectator": None}
                # samples of an event that others see redacted, and of one they see whole
                secret = game.redact(e, None, match.config) != dict(e.data)
                if not room(f"e:{e.type}:{secret}", PER_EVENT):
                    continue
                for kind, seat in viewers.items():
                    events.append(
                        {
                            "type": e.type,
                            "viewer": kind,
                            "n": n,
                            "you": seat,
                            "event": {
                                "type": e.type,
                                "seat": e.seat,
                                "version": version,
                                "data": game.redact(e, seat, match.config),
                            },
                            "full": dict(e.data),
                            "state": states.add(game.view(match.state, seat)),
                        }
                    )
            if match.status(game) != "active":
                continue
            for seat in sorted(match.to_act(game)):
                legal = game.legal_actions(match.state, seat)
                kinds = {a["type"] for a in legal}
                fresh = [kind for kind in sorted(kinds) if room(f"a:{kind}", PER_ACTION)]
                if fresh:
                    state = states.add(game.view(match.state, seat))
                    moves.append(
                        {
                            "n": n,
                            "you": seat,
                            "version": match.version,
                            "actions": legal,
                            "state": state,
                        }
                    )
        first = options == dict(next(variants(game))[0])
        if first and n in TABLE_PLAYERS[game_id]:
            ats = (len(steps) // 3, 2 * len(steps) // 3, len(steps) - 1)
            tables.extend(table(game, steps[at].match, states, n, options) for at in ats)
    return {
        "game": game_id,
        "module": MODULES[game_id][0],
        "text": MODULES[game_id][1],
        "eventTypes": event_types(game_id),
        "actionTypes": sorted(game.actions),
        "events": events,
        "moves": moves,
        "tables": tables,
        "states": states.items,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"directory (default {OUT})")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for game_id in MODULES:
        doc = fixture(game_id)
        doc["states"] = [json.loads(s) for s in doc["states"]]
        (args.out / f"{game_id}.json").write_text(json.dumps(doc, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
