"""The shapes of what Kings and Castles shows (``view``, ``full_view``, ``redact``): plain data,
published as the ``KingsAndCastlesViewState`` and ``KingsAndCastlesEvent...`` components."""

from __future__ import annotations

from domain.games.kings_and_castles import events as ev
from domain.shapes import (
    BOOL,
    INT,
    INTS,
    STR,
    STRS,
    Shape,
    integer,
    list_of,
    map_of,
    nullable,
    optional,
    record,
    string,
)

_PHASES = (
    ev.SETUP,
    ev.FORMING,
    ev.CROWNS,
    ev.BONUS,
    ev.OCCUPY,
    ev.ATTACKS,
    ev.CASTLES,
    ev.TAX,
    ev.REFILL,
    ev.TURN_END,
    ev.FINAL,
    ev.OVER,
)
_BY_COLOUR = "colours"
_COUNTERS = list_of(STR, "counter ids, e.g. blue-men_at_arms-2")

VIEW_STATE: Shape = record(
    {
        "players": INT,
        "length": string("", ("full", "short")),
        "rules_version": integer("which reading of the rules applies (1 or 2)", minimum=1),
        "seats": map_of(INT, _BY_COLOUR, "the seat owning each colour"),
        "square": INT,
        "last_square": INT,
        "king": nullable(string("the colour of the King")),
        "mandated_country": nullable(STR),
        "track": list_of(
            record(
                {
                    "square": INT,
                    "king": STR,
                    "bonus": INT,
                    "country": STR,
                    "crown": nullable(string("the colour of the crown on it")),
                    "turned": BOOL,
                }
            )
        ),
        "territories": map_of(
            record(
                {
                    "country": STR,
                    "town_value": INT,
                    "holder": nullable(string("the counter holding it")),
                    "castle": nullable(STR),
                }
            ),
            "territory names",
        ),
        "armies": map_of(_COUNTERS, _BY_COLOUR),
        "households": map_of(_COUNTERS, _BY_COLOUR),
        "bag_size": INT,
        "destroyed": _COUNTERS,
        "tax_markers": map_of(INT, _BY_COLOUR),
        "money_digit": map_of(INT, _BY_COLOUR, "the last digit of each colour's money"),
        "phase": string("", _PHASES),
        "countries_attacked": STRS,
        "other_country": nullable(STR),
        "to_act": INTS,
        "acting_colour": nullable(STR),
        "draw_needed": nullable(INT),
        "you": nullable(INT),
        "your_colours": STRS,
        "money": map_of(INT, _BY_COLOUR, "exact money: your colours only until the end"),
    }
)

_AUTO = optional(BOOL)
EVENT_DATA: dict[str, Shape] = {
    ev.ENEMIES_PLACED: record({"placements": map_of(STR, "territory names", "enemy unit ids")}),
    ev.COUNTERS_DRAWN: record(
        {
            "colour": STR,
            "purpose": string("", ("army", "bonus", "refill")),
            "household": _COUNTERS,
            "bag": list_of(STR, "counter ids, in draw order"),
            "refill_at": nullable(INT),
            "returned": _COUNTERS,
        }
    ),
    ev.BAG_REFILLED: record({"returned": _COUNTERS}),
    ev.CROWN_PLACED: record({"colour": STR, "square": INT}),
    ev.ROUEN_OCCUPIED: record({"colour": STR, "counter": STR}),
    ev.TERRITORY_CAPTURED: record(
        {
            "colour": STR,
            "target": STR,
            "country": STR,
            "side": string("", ("royal", "baronial", "enemy")),
            "attacker": STR,
            "counters": _COUNTERS,
            "defender": STR,
            "castle": nullable(STR),
            "stays": STR,
            "other_country": nullable(STR),
        }
    ),
    ev.ATTACKS_ENDED: record({"colour": STR, "auto": _AUTO}),
    ev.CASTLE_PLACED: record({"colour": STR, "counter": STR, "territory": STR}),
    ev.CASTLES_ENDED: record({"colour": STR, "auto": _AUTO}),
    ev.TAX_DECLINED: record({"colour": STR, "auto": _AUTO}),
    ev.TAX_COLLECTED: record(
        {
            "colour": STR,
            "amounts": map_of(INT, _BY_COLOUR, "your own colours only"),
            "digits": map_of(INT, _BY_COLOUR),
            "seats": optional(map_of(INT, _BY_COLOUR, "rules version 1 only")),
        }
    ),
    ev.TURN_ENDED: record({"square": INT, "next": nullable(INT)}),
    ev.FINAL_TAX_COLLECTED: record(
        {"amounts": map_of(INT, _BY_COLOUR), "money": map_of(INT, _BY_COLOUR)}
    ),
}
