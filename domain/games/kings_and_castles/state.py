"""The game state: one frozen dataclass, encodable by ``domain.codec``, and what derives from it.

Every counter lies in exactly one place: a household, an army, the bag, the destroyed pile, a
territory (its holder) or a castle on the map.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.games.kings_and_castles.data import (
    COUNTERS,
    ENEMY,
    TERRITORIES,
    TRACK,
    UNIT_KINDS,
)
from domain.games.kings_and_castles.events import (
    ATTACKS,
    BONUS,
    CASTLES,
    CROWNS,
    FORMING,
    OCCUPY,
    REFILL,
    TAX,
)

# The current edition of the rules; 1 is the reading before issue 13 (kept to replay old logs).
RULES_VERSION = 2


@dataclass(frozen=True)
class State:
    players: int
    length: str  # "full" or "short"
    colours: tuple[str, ...]  # colours in play, in play order (army forming, crown placing)
    owners: dict[str, int]  # colour -> seat
    last_square: int  # 24, or 12 in the short game
    phase: str
    step: int  # forming: colours done; crowns: crowns placed
    square: int  # the current square (0 before the first turn)
    crowns: dict[int, str]  # square -> colour of its crown
    turned: frozenset[int]  # squares whose crown is turned over (turn played)
    territories: dict[str, str | None]  # territory -> id of the unit holding it
    castles: dict[str, str]  # territory -> castle id
    armies: dict[str, frozenset[str]]
    households: dict[str, frozenset[str]]
    bag: frozenset[str]
    destroyed: frozenset[str]
    tax_markers: dict[str, int]
    money: dict[str, int]
    countries_attacked: tuple[str, ...]  # this turn, in order of first attack
    other_country: str | None  # KC-5.4: the one other country of this turn, once fixed
    # The edition of the rules the game was created under (``RULES_VERSION``; see the package
    # docstring).  Last, with a default, so snapshots taken before versions still decode as 1.
    rules_version: int = 1


def since(state: State, version: int) -> bool:
    """Does the game play under the rules of ``version`` or later?"""
    return state.rules_version >= version


def colour_of(counter_id: str | None) -> str | None:
    return None if counter_id is None else COUNTERS[counter_id].colour


def king(state: State) -> str | None:
    """The King's colour: the crown on the current square."""
    return state.crowns.get(state.square) if state.square else None


def mandated_country(state: State) -> str | None:
    return TRACK[state.square].country if state.square else None


def seat_colours(state: State, seat: int | None) -> tuple[str, ...]:
    return tuple(c for c in state.colours if state.owners[c] == seat)


def acting_colour(state: State) -> str | None:
    """The colour whose owner must decide now (None when nobody acts)."""
    if state.phase == FORMING:
        return state.colours[state.step]
    if state.phase == CROWNS:
        return state.colours[state.step % len(state.colours)]
    if state.phase in (BONUS, OCCUPY, ATTACKS, CASTLES, TAX, REFILL):
        return king(state)
    return None


def defence(state: State, territory: str) -> int:
    holder = state.territories[territory]
    castle = state.castles.get(territory)
    return (COUNTERS[holder].value if holder else 0) + (COUNTERS[castle].value if castle else 0)


def town_values(state: State) -> dict[str, int]:
    """The sum of town values each player colour holds (KC-8)."""
    out = dict.fromkeys(state.colours, 0)
    for name, holder in state.territories.items():
        colour = colour_of(holder)
        if colour in out:
            out[colour] += TERRITORIES[name].town_value
    return out


def household_counts(household: frozenset[str]) -> dict[str, int]:
    out = dict.fromkeys(UNIT_KINDS, 0)
    for cid in household:
        out[COUNTERS[cid].kind] += 1
    return out


def is_player_unit(counter_id: str | None) -> bool:
    if counter_id is None:
        return False
    c = COUNTERS[counter_id]
    return c.is_unit and c.colour != ENEMY
