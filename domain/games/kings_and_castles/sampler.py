"""Deal Kings and Castles's hidden information at random, consistent with one seat's view (for
the ``mcts`` bot).

Almost everything is on the table: the map, every army and household, the destroyed pile and
the bag's size; the bag holds exactly the counters that are nowhere else, so its contents
follow from the view (its order does not exist: draws pick at random).  The one secret is the
exact money of other seats' colours, of which the view shows the last digit (KC-8).  Money
only comes from taxes, so while no tax marker has been spent every colour has 0; after that a
hidden colour's money is drawn near the seat's own money per colour (the one figure it knows
of the same taxes), among the amounts with the shown last digit, one step of 10 either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.kings_and_castles.data import ENEMY_POOL, TERRITORIES, colour_counters
from domain.games.kings_and_castles.events import CROWNS, FORMING
from domain.games.kings_and_castles.setup import seating
from domain.games.kings_and_castles.state import State
from domain.search.ismcts import FastRng


def _universe(colours: tuple[str, ...], length: str) -> set[str]:
    out = set(ENEMY_POOL)
    for colour in colours:
        home, rest = colour_counters(colour, length)
        out.update(home, rest)
    return out


def _money(view: Mapping[str, Any], colours: tuple[str, ...], rng: FastRng) -> dict[str, int]:
    known: dict[str, int] = dict(view["money"])
    if len(known) == len(colours):
        return {c: known[c] for c in colours}
    markers = 2 if view["length"] == "short" else 3
    spent = markers * len(colours) - sum(view["tax_markers"].values())
    anchor = sum(known.values()) / len(known) if known else 0.0
    out = {}
    for c in colours:
        if c in known:
            out[c] = known[c]
        elif spent == 0:
            out[c] = 0
        else:
            digit = view["money_digit"][c]
            near = digit + 10 * max(0, round((anchor - digit) / 10))
            out[c] = max(digit, near + 10 * (rng.below(3) - 1))
    return out


def sample(view: Mapping[str, Any], rng: FastRng) -> State:
    """A full state whose ``view(state, seat)`` is ``view``; hidden money drawn by ``rng``."""
    colours, owners = seating(view["players"])
    length = view["length"]
    territories = {name: view["territories"][name]["holder"] for name in TERRITORIES}
    castles = {
        name: t["castle"] for name, t in view["territories"].items() if t["castle"] is not None
    }
    armies = {c: frozenset(ids) for c, ids in view["armies"].items()}
    households = {c: frozenset(ids) for c, ids in view["households"].items()}
    destroyed = frozenset(view["destroyed"])
    placed = set(destroyed) | {h for h in territories.values() if h} | set(castles.values())
    for ids in (*armies.values(), *households.values()):
        placed |= ids
    bag = frozenset(_universe(colours, length) - placed)
    assert len(bag) == view["bag_size"], "the view's counters do not add up"
    crowns = {t["square"]: t["crown"] for t in view["track"] if t["crown"] is not None}
    phase = view["phase"]
    if phase == FORMING:
        step = colours.index(view["acting_colour"])
    elif phase == CROWNS:
        step = len(crowns)
    else:
        step = 0
    return State(
        players=view["players"],
        length=length,
        colours=colours,
        owners=owners,
        last_square=view["last_square"],
        phase=phase,
        step=step,
        square=view["square"],
        crowns=crowns,
        turned=frozenset(t["square"] for t in view["track"] if t["turned"]),
        territories=territories,
        castles=castles,
        armies=armies,
        households=households,
        bag=bag,
        destroyed=destroyed,
        tax_markers=dict(view["tax_markers"]),
        money=_money(view, colours, rng),
        countries_attacked=tuple(view["countries_attacked"]),
        other_country=view["other_country"],
        rules_version=view.get("rules_version", 1),
    )
