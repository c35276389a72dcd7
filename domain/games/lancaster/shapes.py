"""The shapes of what Lancaster shows (``view``, ``full_view``, ``redact``): plain data,
published as the ``LancasterViewState`` and ``LancasterEvent...`` components."""

from __future__ import annotations

from domain.games.lancaster import events as ev
from domain.shapes import (
    BOOL,
    INT,
    INTS,
    SEAT_MAP,
    STR,
    STRS,
    Shape,
    list_of,
    map_of,
    nullable,
    optional,
    record,
    string,
)

_PHASES = (
    ev.SETUP_PHASE,
    ev.START_PHASE,
    ev.PLACEMENT_PHASE,
    ev.VOTE_PHASE,
    ev.LAWS_PHASE,
    ev.COUNTIES_PHASE,
    ev.CASTLE_PHASE,
    ev.CONFLICTS_PHASE,
    ev.NEXT_ROUND_PHASE,
    ev.OVER_PHASE,
)
_KNIGHTS = list_of(STR, "knight ids, e.g. red-1b")
_VOTE = record({"tile": string("", ("yes", "no")), "markers": INT})

# What a reward did (the package docstring): deltas, knights changed, spaces built, nobles.
GAINS: Shape = record(
    {
        "gold": optional(INT),
        "squires": optional(INT),
        "markers": optional(INT),
        "power": optional(INT),
        "goods": optional(INT),  # a King's favour goods tile as others see it (gold + squires)
        "upgrade": optional(list_of(STR, "[old knight, new knight]")),
        "recruit": optional(_KNIGHTS),
        "build": optional(list_of(STR, "castle spaces")),
        "noble": optional(string("county letter")),
        "noble_removed": optional(string("county letter")),
    },
    "what a reward did",
)

_KNIGHT_SETS = record({"court": _KNIGHTS, "reserve": _KNIGHTS})
_CARD = record(
    {
        "n": INT,
        "france": INT,
        "power": INTS,
        "spaces": list_of(_KNIGHTS, "knights on each space, the top first"),
        "strengths": INTS,
    }
)

VIEW_STATE: Shape = record(
    {
        "you": nullable(INT),
        "round": INT,
        "phase": string("", _PHASES),
        "start": INT,
        "order": INTS,
        "to_act": INTS,
        "pending": nullable(
            record(
                {
                    "kind": string(
                        "",
                        (
                            "favour",
                            "place",
                            "vote",
                            "law",
                            "start_player",
                            "county",
                            "castle",
                            "ransom",
                        ),
                    ),
                    "knight": optional(STR),
                    "seat": optional(INT),
                    "law": optional(STR),
                    "seats": optional(INTS),
                    "county": optional(STR),
                    "taken": optional(STRS),
                },
                "the decision the game waits for",
            )
        ),
        "players": list_of(
            record(
                {
                    "seat": INT,
                    "colour": STR,
                    "ally": nullable(STR),
                    "power": INT,
                    "markers": INT,
                    "nobles": STRS,
                    "extensions": STRS,
                    "extension_pile": INT,
                    "knights": _KNIGHT_SETS,
                    "ally_knights": optional(_KNIGHT_SETS),
                    "gold": optional(INT),  # behind the screen: own seat, 2 players, full view
                    "squires": optional(INT),
                }
            )
        ),
        "counties": map_of(
            record(
                {
                    "name": STR,
                    "min": INT,
                    "reward": map_of(INT, "reward kinds"),
                    "nobles_left": INT,
                    "occupant": nullable(record({"knight": STR, "squires": INT})),
                }
            ),
            "county letters A-I",
        ),
        "castles": map_of(map_of(STR, "castle spaces", "the knight on it"), "colours"),
        "conflicts": record(
            {
                "upper": list_of(_CARD),
                "lower": list_of(_CARD),
                "deck": INT,
                "deck_cards": optional(INTS),
            }
        ),
        "prisoners": _KNIGHTS,
        "favour": record({"face_up": STRS, "conflict_knights": INT}),
        "laws": record(
            {
                "current": STRS,
                "debate": STRS,
                "deck": list_of(INT, "the size of each group of the law deck"),
                "deck_cards": optional(list_of(STRS)),
            }
        ),
        "vote": optional(
            record(
                {
                    "law": STR,
                    "committed": INTS,
                    "mine": optional(_VOTE),
                    "votes": optional(map_of(_VOTE, SEAT_MAP)),
                }
            )
        ),
    }
)

EVENT_DATA: dict[str, Shape] = {
    ev.GAME_SET_UP: record(
        {
            "current": STRS,
            "debate": STRS,
            "conflicts": INTS,
            "removed_conflicts": INTS,
            "favours": STRS,
        }
    ),
    ev.START_EXTENSION_BUILT: record({"space": STR}),
    ev.KNIGHT_PLACED_IN_COUNTY: record(
        {
            "knight": STR,
            "county": STR,
            "squires": INT,
            "expelled": optional(STR),
            "expelled_squires": optional(INT),
        }
    ),
    ev.KNIGHT_PLACED_IN_CASTLE: record({"knight": STR, "space": STR}),
    ev.KNIGHT_PLACED_IN_CONFLICT: record(
        {"knight": STR, "conflict": INT, "space": INT, "favour": BOOL}
    ),
    ev.FAVOUR_TAKEN: record({"tile": STR, "knight": STR, "gains": GAINS}),
    ev.VOTE_COMMITTED: record(
        {"law": STR, "tile": optional(string("", ("yes", "no"))), "markers": optional(INT)}
    ),
    ev.VOTES_REVEALED: record(
        {
            "law": STR,
            "votes": map_of(_VOTE, SEAT_MAP),
            "yes": INT,
            "no": INT,
            "approved": BOOL,
            "dropped": nullable(STR),
        }
    ),
    ev.LAW_TOOK_EFFECT: record({"law": STR, "effects": map_of(GAINS, SEAT_MAP)}),
    ev.LAW_OPENED: record({"law": STR, "seats": INTS}),
    ev.LAW_USED: record({"law": STR, "gains": GAINS}),
    ev.LAW_PASSED: record({"law": STR}),
    ev.COUNTY_REWARDED: record(
        {
            "county": STR,
            "take": string("", ("noble", "reward", "both")),
            "knight": STR,
            "gains": GAINS,
        }
    ),
    ev.START_PLAYER_CHOSEN: record({"start": INT}),
    ev.CASTLE_REWARD_TAKEN: record({"source": STR, "gains": GAINS}),
    ev.CASTLE_PASSED: record({}),
    ev.CASTLE_FINISHED: record({"markers": INT}),
    ev.CONFLICT_RESOLVED: record(
        {
            "conflict": INT,
            "row": string("", ("upper", "lower")),
            "strength": INT,
            "france": INT,
            "won": BOOL,
            "outcome": string("", ("won", "first_loss", "second_loss")),
            "ranking": list_of(record({"colour": STR, "strength": INT, "power": INT})),
            "power": map_of(INT, SEAT_MAP),
            "prisoners": _KNIGHTS,
            "to_reserve": _KNIGHTS,
        }
    ),
    ev.KNIGHT_RANSOMED: record({"knight": STR, "gold": INT}),
    ev.PRISONERS_LOST: record({"knights": _KNIGHTS}),
    ev.ROUND_ENDED: record({"round": INT}),
    ev.ROUND_STARTED: record({"round": INT, "conflicts": INTS, "laws": STRS}),
}
