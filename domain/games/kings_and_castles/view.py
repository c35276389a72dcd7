"""The whole secrecy policy of Kings and Castles (KC-8, KC-10), in one module.

Public: the map (holders and castles), the succession track and crowns, every army and household
(they lie on the table), the bag's size, the destroyed pile, tax markers, and each colour's last
digit of money (the tax track).  Bag draws are public, since armies are.

Private: a colour's exact money, known only to the seat that owns the colour.  Tax events show a
seat only its own colours' amounts (a spectator sees none).  After the last square the final
taxation reveals every colour's money: ``FinalTaxCollected`` is public and so is the money in the
view of a game that is over.  ``full_view`` shows everything (replay after the end).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Config, Event
from domain.games.kings_and_castles import draws
from domain.games.kings_and_castles.data import TERRITORIES, TRACK, ordered
from domain.games.kings_and_castles.events import (
    BONUS,
    COUNTERS_DRAWN,
    ENEMIES_PLACED,
    FINAL_TAX_COLLECTED,
    FORMING,
    REFILL,
    TAX_COLLECTED,
)
from domain.games.kings_and_castles.rules import is_over, to_act
from domain.games.kings_and_castles.setup import seating
from domain.games.kings_and_castles.state import (
    State,
    acting_colour,
    king,
    mandated_country,
    seat_colours,
)


def _public(state: State) -> dict[str, Any]:
    colour = acting_colour(state)
    return {
        "players": state.players,
        "length": state.length,
        "rules_version": state.rules_version,  # public: which reading of the rules applies
        "seats": dict(state.owners),
        "square": state.square,
        "last_square": state.last_square,
        "king": king(state),
        "mandated_country": mandated_country(state),
        "track": [
            {
                "square": n,
                "king": TRACK[n].king,
                "bonus": TRACK[n].bonus,
                "country": TRACK[n].country,
                "crown": state.crowns.get(n),
                "turned": n in state.turned,
            }
            for n in range(1, state.last_square + 1)
        ],
        "territories": {
            name: {
                "country": t.country,
                "town_value": t.town_value,
                "holder": state.territories[name],
                "castle": state.castles.get(name),
            }
            for name, t in TERRITORIES.items()
        },
        "armies": {c: ordered(a) for c, a in state.armies.items()},
        "households": {c: ordered(h) for c, h in state.households.items()},
        "bag_size": len(state.bag),
        "destroyed": ordered(state.destroyed),
        "tax_markers": dict(state.tax_markers),
        "money_digit": {c: m % 10 for c, m in state.money.items()},
        "phase": state.phase,
        "countries_attacked": list(state.countries_attacked),
        "other_country": state.other_country,
        "to_act": list(to_act(state)),
        "acting_colour": colour,
        "draw_needed": draws.needed(state) if state.phase in (FORMING, BONUS, REFILL) else None,
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see: exact money of its own colours only."""
    out = _public(state)
    mine = seat_colours(state, seat)
    shown = state.colours if is_over(state) else mine
    out["you"] = seat
    out["your_colours"] = list(mine)
    out["money"] = {c: state.money[c] for c in shown}
    return out


def full_view(state: State) -> dict[str, Any]:
    out = _public(state)
    out["you"] = None
    out["your_colours"] = []
    out["money"] = dict(state.money)
    return out


def redact(event: Event, seat: int | None, config: Config) -> dict[str, Any]:
    """A tax event shows a seat only the amounts of its own colours; all else is public.

    The colours' seats follow from the player count (``setup.seating``); events of rules
    version 1 also carry them as ``seats``, which stays in their data as recorded.
    """
    data = dict(event.data)
    if event.type == TAX_COLLECTED:
        owners = seating(config.n)[1]
        data["amounts"] = {c: n for c, n in data["amounts"].items() if owners[c] == seat}
    return data


def reveals(event: Event) -> bool:
    """Random outcomes (enemy placement, bag draws) and the final reveal of all money."""
    if event.type == COUNTERS_DRAWN:
        return bool(event.data["bag"])
    return event.type in (ENEMIES_PLACED, FINAL_TAX_COLLECTED)
