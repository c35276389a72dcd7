"""Drawing counters into an army (KC-4): household part first, then random bag draws.

A draw names a count per unit kind from the household and a number from the bag; the total is
exactly what the draw needs (10 when forming an army, the bonus, or up to 10 when refilling).
Household counters of one kind are interchangeable, so the lowest ids are taken.  Each bag draw
picks with the rng from the bag's sorted contents; when the bag is empty and a counter is still
owed, every destroyed counter goes back into the bag first.  If both are empty the draw stops short.

Rules version 2 (KC-4, seed: 「袋が空になったら…袋に戻します」, "when the bag is empty, put [the
destroyed counters] back into the bag"): the destroyed counters go back as soon as the bag is
empty, also when a draw empties it exactly or a counter is destroyed while it is empty: the flow
then appends ``BagRefilled`` (``returned`` [ids]) by itself.  Version 1 returned them only when a
later draw still owed a counter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.games.kings_and_castles.data import (
    ARMY_SIZE,
    COUNTERS,
    TRACK,
    UNIT_KINDS,
    ordered,
)
from domain.games.kings_and_castles.events import BONUS, COUNTERS_DRAWN, FORMING, REFILL
from domain.games.kings_and_castles.state import State, acting_colour, household_counts
from domain.rng import Rng

PURPOSE = {FORMING: "army", BONUS: "bonus", REFILL: "refill"}


def needed(state: State) -> int:
    """How many counters the pending draw of the acting colour takes."""
    colour = acting_colour(state)
    assert colour is not None
    if state.phase == BONUS:
        return TRACK[state.square].bonus
    return max(0, ARMY_SIZE - len(state.armies[colour]))


def options(household: frozenset[str], count: int) -> list[dict[str, Any]]:
    """Every distinct household/bag split of a draw of ``count`` counters."""
    have = household_counts(household)
    return [
        {"household": {"knight": k, "men_at_arms": m, "archers": a}, "bag": count - k - m - a}
        for k in range(min(have["knight"], count) + 1)
        for m in range(min(have["men_at_arms"], count - k) + 1)
        for a in range(min(have["archers"], count - k - m) + 1)
    ]


def check(household: frozenset[str], count: int, action: Mapping[str, Any]) -> dict[str, int]:
    """The household counts of a draw action, or ``IllegalAction`` (KC-4)."""
    asked = dict(action.get("household") or {})
    unknown = sorted(set(asked) - set(UNIT_KINDS))
    if unknown:
        raise IllegalAction("KC-4", f"the household holds only units, not {', '.join(unknown)}")
    counts = {k: asked.get(k, 0) for k in UNIT_KINDS}
    bag = action.get("bag", 0)
    if any(v < 0 for v in counts.values()) or bag < 0:
        raise IllegalAction("KC-4", "counts cannot be negative")
    have = household_counts(household)
    for kind in UNIT_KINDS:
        if counts[kind] > have[kind]:
            raise IllegalAction(
                "KC-4", f"the household has {have[kind]} {kind}, not {counts[kind]}"
            )
    if sum(counts.values()) + bag != count:
        raise IllegalAction(
            "KC-4",
            f"this draw takes exactly {count} counters (household + bag), not "
            f"{sum(counts.values()) + bag}",
        )
    return counts


def draw_event(
    state: State, colour: str, counts: Mapping[str, int], bag_count: int, rng: Rng
) -> Event:
    """The draw as a fact: household ids, bag ids in draw order, and any bag refill."""
    by_kind: dict[str, list[str]] = {k: [] for k in UNIT_KINDS}
    for cid in ordered(state.households[colour]):
        by_kind[COUNTERS[cid].kind].append(cid)
    home = [cid for k in UNIT_KINDS for cid in by_kind[k][: counts[k]]]
    bag = ordered(state.bag)
    destroyed = state.destroyed
    drawn: list[str] = []
    refill_at: int | None = None
    returned: list[str] = []
    while len(drawn) < bag_count:
        if not bag:
            if not destroyed or refill_at is not None:
                break  # KC-4: both empty, the draw stops short
            refill_at, returned = len(drawn), ordered(destroyed)
            bag, destroyed = list(returned), frozenset()
        drawn.append(bag.pop(rng.below(len(bag))))
    return Event(
        COUNTERS_DRAWN,
        state.owners[colour],
        {
            "colour": colour,
            "purpose": PURPOSE[state.phase],
            "household": home,
            "bag": drawn,
            "refill_at": refill_at,
            "returned": returned,
        },
    )
