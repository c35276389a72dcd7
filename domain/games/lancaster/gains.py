"""Turning a printed reward into a gains record (see ``state.apply_gains``), drawing extensions.

A reward earned by a 2-player ally keeps only what the ally can use (LA-4): new knights and
upgrades apply to ally knights; gold, squires, vote markers, power and extensions are lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.lancaster.data import SPACE_IDS
from domain.games.lancaster.state import (
    State,
    is_ally,
    seat_of,
    upgrade_target,
    weakest_reserve,
)
from domain.rng import Rng

_GOODS = (("gold", "gold"), ("squires", "squires"), ("vote_markers", "markers"), ("power", "power"))


def draw_extensions(state: State, seat: int, count: int, rng: Rng) -> list[str]:
    """Reveal ``count`` tiles of a seat's face-down extension pile (fewer if it runs out)."""
    pile = sorted(set(SPACE_IDS) - state.players[seat].built)
    out = []
    for _ in range(min(count, len(pile))):
        space = rng.choice(pile)
        pile.remove(space)
        out.append(space)
    return out


def reward_gains(
    state: State,
    colour: str,
    reward: Mapping[str, int],
    rng: Rng,
    knight: str | None = None,
) -> dict[str, Any]:
    """Gains of a printed reward for a colour; ``knight`` is the one to upgrade, if any."""
    gains: dict[str, Any] = {}
    if not is_ally(state, colour):
        for key, name in _GOODS:
            if reward.get(key):
                gains[name] = reward[key]
        if reward.get("pay_squires"):
            gains["squires"] = gains.get("squires", 0) - reward["pay_squires"]
        if reward.get("extension"):
            built = draw_extensions(state, seat_of(state, colour), reward["extension"], rng)
            if built:
                gains["build"] = built
    if reward.get("new_knight"):
        recruits = weakest_reserve(state, colour, reward["new_knight"])
        if recruits:
            gains["recruit"] = recruits
    if reward.get("upgrade") and knight is not None:
        gains["upgrade"] = [knight, upgrade_target(state, knight)]
    return gains


def merge(*records: Mapping[str, Any]) -> dict[str, Any]:
    """Several gains records as one (numbers add, lists concatenate, other keys are kept)."""
    out: dict[str, Any] = {}
    for rec in records:
        for key, value in rec.items():
            if isinstance(value, int) and key in out:
                out[key] += value
            elif isinstance(value, list) and key in out:
                out[key] = out[key] + value
            else:
                out[key] = value
    return {k: v for k, v in out.items() if v != 0}
