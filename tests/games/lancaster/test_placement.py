"""LA-2 (phase 1), LA-2.1 counties, LA-2.2 castles, LA-2.3 conflicts and the King's favour."""

from __future__ import annotations

from dataclasses import replace

from domain.engine import Event
from domain.games.lancaster import GAME
from domain.games.lancaster.state import location
from tests.games.lancaster.helpers import (
    in_castle,
    in_conflict,
    in_county,
    only_court,
    player,
    started,
)
from tests.support.play import act, refused


def county(knight: str, letter: str, squires: int = 0) -> dict:
    return {"type": "place_county", "knight": knight, "county": letter, "squires": squires}


def conflict(knight: str, n: int) -> dict:
    return {"type": "place_conflict", "knight": knight, "conflict": n}


# --- LA-2: turns -----------------------------------------------------------------------------


def test_LA_2_turns_go_clockwise_and_skip_an_empty_court() -> None:
    s = only_court(started(3), "red-1a", "red-2a", "green-1a")
    s = only_court(s, "blue-1a")
    s = replace(s, court=s.court - {"blue-1a"}, reserve=s.reserve | {"blue-1a"})
    assert sorted(s.court) == ["green-1a", "red-1a", "red-2a"]
    assert GAME.to_act(s) == (0,)
    s, _ = act(s, 0, county("red-1a", "F"))
    assert GAME.to_act(s) == (2,)  # blue has an empty court
    s, _ = act(s, 2, county("green-1a", "G"))
    s, _ = act(s, 0, county("red-2a", "C"))
    assert s.phase == "vote" and GAME.to_act(s) == (0, 1, 2)


def test_LA_2_a_player_with_no_legal_placement_keeps_the_knight_at_court() -> None:
    s = started(4)
    s = only_court(s, "red-2b")
    s = only_court(s, "blue-1a")
    s = replace(s, court=s.court - {"green-1a", "green-2a", "yellow-1a", "yellow-2a"})
    # blue's castle is full (5 knights + the chapel extension), both conflicts are full of others
    for k, sp in zip(
        ("blue-2a", "blue-1b", "blue-1c", "blue-2b", "blue-3"),
        ("treasury", "squire_hall", "council", "barracks", "training_yard"),
        strict=True,
    ):
        s = in_castle(s, k, sp)
    s = in_conflict(s, 1, ("red-1a",), ("green-1a",), ("yellow-1a",))
    s = in_conflict(s, 4, ("red-2a",), ("green-2a",), ("yellow-2a",))
    # and every county a strength-1 knight may enter is held (blue has no squires)
    s = player(s, 1, squires=0)
    for letter, k in (("F", "red-1c"), ("G", "green-1b"), ("I", "yellow-1b")):
        s = in_county(s, letter, k)
    assert GAME.to_act(s) == (0,)
    s, _ = act(s, 0, county("red-2b", "H"))
    assert s.phase == "vote"  # blue was skipped and the placement is over
    assert location(s, "blue-1a") == "court"


# --- LA-2.1: counties -------------------------------------------------------------------------


def test_LA_2_1_county_below_minimum_refused_even_with_squires() -> None:
    s = player(started(3), 0, squires=5)
    refused(s, 0, county("red-2a", "A", 3), "LA-2.1")  # Northumberland: minimum 4
    refused(s, 0, county("red-1a", "C", 4), "LA-2.1")  # York: minimum 2
    legal = GAME.legal_actions(s, 0)
    assert not [a for a in legal if a["type"] == "place_county" and a["county"] == "A"]
    s, events = act(s, 0, county("red-2a", "C", 0))
    assert events[0].type == "KnightPlacedInCounty"


def test_LA_2_1_expelling_needs_strictly_more_and_returns_the_knight_to_court() -> None:
    s = in_county(started(3), "C", "blue-3", squires=1)  # blue's total there: 4
    s = player(s, 0, squires=3)
    refused(s, 0, county("red-2a", "C", 1), "LA-2.1")
    refused(s, 0, county("red-2a", "C", 2), "LA-2.1")  # a tie does not expel
    s, events = act(s, 0, county("red-2a", "C", 3))
    assert events[0].data["expelled"] == "blue-3"
    assert events[0].data["expelled_squires"] == 1
    assert s.counties["C"].knight == "red-2a" and s.counties["C"].squires == 3
    assert location(s, "blue-3") == "court"
    assert s.players[0].squires == 0 and s.players[1].squires == 2  # blue's squire: supply
    # the expelled knight may be placed again this round
    assert GAME.to_act(s) == (1,)
    assert {"type": "place_castle", "knight": "blue-3", "space": "treasury"} in GAME.legal_actions(
        s, 1
    )


def test_LA_2_1_never_expel_your_own_knight() -> None:
    s = in_county(started(3), "F", "red-1b")
    refused(s, 0, county("red-2a", "F", 2), "LA-2.1")


def test_LA_2_1_only_the_squires_you_have() -> None:
    s = started(3)
    refused(s, 0, county("red-1a", "F", 3), "LA-2.1")
    refused(s, 0, county("blue-1a", "F", 0), "LA-2.1")  # not your knight


# --- LA-2.2: castles --------------------------------------------------------------------------


def test_LA_2_2_castle_space_must_be_empty_and_an_extension_occupies_it() -> None:
    s = in_castle(started(3), "red-1b", "treasury")
    place = {"type": "place_castle", "knight": "red-2a"}
    refused(s, 0, place | {"space": "treasury"}, "LA-2.2")
    refused(s, 0, place | {"space": "chapel"}, "LA-2.2")  # the start extension
    s, events = act(s, 0, place | {"space": "council"})
    assert events[0].type == "KnightPlacedInCastle"
    assert s.castle["red-2a"] == "council"


def test_LA_2_2_any_strength_in_the_castle() -> None:
    s = only_court(started(3), "red-4")
    s, _ = act(s, 0, {"type": "place_castle", "knight": "red-4", "space": "treasury"})
    assert location(s, "red-4") == "castle:treasury"


# --- LA-2.3: conflicts and the King's favour --------------------------------------------------


def test_LA_2_3_topmost_free_space_then_stacking() -> None:
    s = started(3)
    s, ev = act(s, 0, conflict("red-1a", 1))
    assert ev[0].data["space"] == 0 and ev[0].data["favour"] is True
    assert GAME.to_act(s) == (0,)  # the favour is taken at once
    s, _ = act(s, 0, {"type": "take_favour", "tile": "goods-1", "goods": {"gold": 2, "squires": 0}})
    s, ev = act(s, 1, conflict("blue-1a", 1))
    assert ev[0].data["space"] == 1
    s, _ = act(s, 1, {"type": "take_favour", "tile": "goods-2", "goods": {"gold": 1, "squires": 1}})
    s, _ = act(s, 2, county("green-1a", "F"))
    s, ev = act(s, 0, conflict("red-2a", 1))
    assert ev[0].data["space"] == 0
    card = next(c for c in s.upper if c.n == 1)
    assert card.spaces == (("red-1a", "red-2a"), ("blue-1a",))
    assert s.players[0].gold == 4 and (s.players[1].gold, s.players[1].squires) == (3, 3)


def test_LA_2_3_full_conflict_refused_unless_you_hold_a_space() -> None:
    s = started(4)
    s = in_conflict(s, 1, ("blue-3",), ("green-3",), ("yellow-3",))
    refused(s, 0, conflict("red-1a", 1), "LA-2.3")
    refused(s, 0, conflict("red-1a", 99), "LA-2.3")
    s = in_conflict(s, 4, ("blue-4",), ("red-4",), ("yellow-4",))
    s, ev = act(s, 0, conflict("red-1a", 4))
    assert ev[0].data["space"] == 1


def test_LA_2_3_kings_favour_after_the_sixth_conflict_knight_refused() -> None:
    s = replace(started(3), conflict_knights=5)
    s, ev = act(s, 0, conflict("red-1a", 1))  # the sixth
    assert ev[0].data["favour"] is True
    refused(s, 0, conflict("red-2a", 1), "LA-2.3")  # take the favour first
    s, _ = act(s, 0, {"type": "take_favour", "tile": "noble-1", "noble": "B"})
    assert s.players[0].nobles == ("B",) and s.noble_stock["B"] == 1
    s, ev = act(s, 1, conflict("blue-1a", 1))  # the seventh: no favour
    assert ev[0].data["favour"] is False and s.favour_due is None
    assert GAME.to_act(s) == (2,)
    refused(s, 2, {"type": "take_favour", "tile": "noble-2", "noble": "C"}, "LA-2.3")


def test_LA_2_3_favour_upgrade_swaps_in_place_and_tiles_turn_face_down() -> None:
    s = started(3)
    s, _ = act(s, 0, conflict("red-2a", 4))
    refused(s, 0, {"type": "take_favour", "tile": "upgrade-9", "knight": "red-2a"})
    refused(s, 0, {"type": "take_favour", "tile": "upgrade-2", "knight": "red-4"}, "LA-2.3")
    s, ev = act(s, 0, {"type": "take_favour", "tile": "upgrade-2", "knight": "red-2a"})
    assert ev[0].data["gains"] == {"upgrade": ["red-2a", "red-3"]}
    assert next(c for c in s.upper if c.n == 4).spaces == (("red-3",),)
    assert location(s, "red-2a") == "reserve"
    assert "upgrade-2" not in s.favour_up
    s, _ = act(s, 1, conflict("blue-1a", 4))
    assert {a["tile"] for a in GAME.legal_actions(s, 1)} == set(s.favour_up)
    refused(s, 1, {"type": "take_favour", "tile": "upgrade-2", "knight": "blue-1a"}, "LA-2.3")
    # the tiles turn face up again for the next round
    s = GAME.evolve(replace(s, favour_due=None), Event("RoundEnded", None, {"round": 1}))
    assert len(s.favour_up) == 5


def test_LA_2_3_favour_noble_must_be_one_you_do_not_hold() -> None:
    s = player(started(3), 0, nobles=("C",))
    s, _ = act(s, 0, conflict("red-1a", 1))
    refused(s, 0, {"type": "take_favour", "tile": "noble-1", "noble": "C"}, "LA-2.3")
    refused(s, 0, {"type": "take_favour", "tile": "goods-1", "goods": {"gold": 3}}, "LA-2.3")
    s, _ = act(s, 0, {"type": "take_favour", "tile": "noble-1", "noble": "D"})
    assert s.players[0].nobles == ("C", "D")
