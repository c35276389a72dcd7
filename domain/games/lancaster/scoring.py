"""End of the game (LA-3): knight strength, extensions and nobles at the table, then the result.

A player's knights are all their own knights outside the reserve (court, board, conflicts);
knights never recruited or lost as prisoners sit in the reserve and do not count.  Allies
(2 players) take no part.
"""

from __future__ import annotations

from typing import Any

from domain.games.lancaster.data import (
    EXTENSION_AWARDS,
    FIRST_SPLIT,
    NOBLE_POINTS,
    SECOND_SPLIT,
    STRENGTH_AWARDS,
    knights_of,
    strength,
)
from domain.games.lancaster.state import State


def awards(keys: dict[int, tuple[int, int]], prizes: tuple[int, ...]) -> dict[int, int]:
    """Most / second by ``(value, tie-break)``; still tied for first: split 12, no second;
    several tied for second: split 4; splits are rounded down."""
    levels = sorted(set(keys.values()), reverse=True)
    first = [s for s, k in keys.items() if k == levels[0]]
    if len(first) > 1:
        return {s: FIRST_SPLIT // len(first) for s in first}
    out = {first[0]: prizes[0]}
    if len(levels) > 1:
        second = [s for s, k in keys.items() if k == levels[1]]
        share = prizes[1] if len(second) == 1 else SECOND_SPLIT // len(second)
        out.update(dict.fromkeys(second, share))
    return out


def knight_strength(state: State, seat: int) -> int:
    colour = state.players[seat].colour
    return sum(strength(k) for k in knights_of(colour) if k not in state.reserve)


def noble_points(count: int) -> int:
    return NOBLE_POINTS[min(count, max(NOBLE_POINTS))]


def _awarded(state: State) -> tuple[list[int], dict[int, int], dict[int, int]]:
    """Knight strength per seat, then the strength and extension awards per seat."""
    seats = range(state.n)
    players = state.players
    ks = [knight_strength(state, s) for s in seats]
    by_strength = awards({s: (ks[s], players[s].squires) for s in seats}, STRENGTH_AWARDS)
    by_ext = awards({s: (len(players[s].built), players[s].gold) for s in seats}, EXTENSION_AWARDS)
    return ks, by_strength, by_ext


def totals(state: State) -> list[int]:
    """Each seat's ``total`` of ``details``, without the rows (the search's evaluation)."""
    _, by_strength, by_ext = _awarded(state)
    return [
        p.power + by_strength.get(s, 0) + by_ext.get(s, 0) + noble_points(len(p.nobles))
        for s, p in enumerate(state.players)
    ]


def details(state: State) -> dict[str, dict[str, int]]:
    ks, by_strength, by_ext = _awarded(state)
    out = {}
    for s, p in enumerate(state.players):
        row = {
            "power_in_play": p.power,
            "knight_strength": ks[s],
            "knight_strength_points": by_strength.get(s, 0),
            "extensions": len(p.built),
            "extension_points": by_ext.get(s, 0),
            "nobles": len(p.nobles),
            "noble_points": noble_points(len(p.nobles)),
            "squires": p.squires,
            "gold": p.gold,
        }
        row["total"] = (
            p.power + row["knight_strength_points"] + row["extension_points"] + row["noble_points"]
        )
        out[str(s)] = row
    return out


def result(state: State) -> dict[str, Any]:
    rows = details(state)
    totals = {s: rows[str(s)]["total"] for s in range(state.n)}
    best = max(totals.values())
    return {
        "scores": {str(s): t for s, t in totals.items()},
        "winners": [s for s, t in totals.items() if t == best],
        "ranking": sorted(totals, key=lambda s: (-totals[s], s)),
        "details": rows,
    }
