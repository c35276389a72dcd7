"""The shapes of what Artus shows (``view``, ``full_view``, ``redact``): plain data, published
as the ``ArtusViewState`` and ``ArtusEvent...`` components of the API document."""

from __future__ import annotations

from domain.games.artus.data import PILE_NAMES, RULES
from domain.games.artus.events import (
    CARD_DRAWN,
    CARD_PLAYED,
    DRAW,
    GAME_STARTED,
    KNIGHT_PLACED,
    OVER,
    PLACEMENT,
    PLAY,
    SETUP,
)
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

_PILES = map_of(INT, "pile names (knight, king; scoring in the advanced game)")
_RULES = string("basic or advanced", RULES)
_CARD = string("a card id, e.g. red/K3-6")

VIEW_STATE: Shape = record(
    {
        "rules": _RULES,
        "players": INT,
        "colours": list_of(STR, "each seat's colour, by seat"),
        "knights_per_player": INT,
        "seats": list_of(nullable(STR), "board seats 0-28: the figure on each (null: empty)"),
        "king": string("the prince who is King"),
        "king_seat": INT,
        "rings": map_of(INT, "princes", "rings on each prince"),
        "ring_supply": INT,
        "values": list_of(INT, "the value of each board seat now"),
        "zones": list_of(STR, "the zone of each board seat now"),
        "carpet": list_of(INT, "the carpet seats"),
        "scores": list_of(INT, "each seat's points"),
        "hand_sizes": INTS,
        "piles": list_of(_PILES, "per seat: cards left in each of its piles"),
        "played": list_of(_CARD, "every card played, in order"),
        "round": INT,
        "rounds": INT,
        "phase": string("", (SETUP, PLACEMENT, PLAY, DRAW, OVER)),
        "to_act": INTS,
        "turn": INT,
        "plays_left": INT,
        "draws_left": INT,
        "seat": nullable(INT, "the seat seen from (null: spectator or full view)"),
        "hand": optional(list_of(_CARD, "your hand (seats only)")),
        "hands": optional(list_of(STRS, "every hand (full view only)")),
        "pile_cards": optional(
            list_of(map_of(STRS, "pile names"), "the cards left in every pile (full view only)")
        ),
    }
)

EVENT_DATA: dict[str, Shape] = {
    GAME_STARTED: record(
        {
            "rules": _RULES,
            "players": INT,
            "colours": STRS,
            "knights_per_player": INT,
            "hands": list_of(nullable(STRS), "each seat's dealt hand; others' hands are null"),
            "hand_sizes": optional(INTS),
        }
    ),
    KNIGHT_PLACED: record({"seat": integer("board seat 0-28"), "knight": STR}),
    CARD_PLAYED: record(
        {
            "card": _CARD,
            "knight": optional(STR),
            "figure": optional(STR),
            "prince": optional(STR),
            "steps": optional(INT),
            "direction": optional(string("", ("cw", "ccw"))),
            "knights": optional(STRS),
            "option": optional(string("", ("move", "ring", "score"))),
            "kind": string("", ("knight", "move", "ring", "scoring")),
            "points": INT,
            "scored": map_of(INT, "figures", "value scored per figure"),
            "penalty": nullable(INT),
            "moves": list_of(
                record({"figure": STR, "from": INT, "to": INT, "displaced": BOOL}),
                "the mover first",
            ),
            "rings": map_of(INT, "princes", "rings after, for changed princes"),
            "crowned": nullable(STR, "the new King, if any"),
            "king": STR,
            "king_seat": INT,
            "table_turned": BOOL,
        }
    ),
    CARD_DRAWN: record(
        {
            "pile": string("", PILE_NAMES),
            "card": optional(string("the card drawn (its drawer only)")),
        }
    ),
}
