"""LA-4: two players, each with an ally colour run by the player."""

from __future__ import annotations

from dataclasses import replace

from domain.games.lancaster import GAME
from domain.games.lancaster.conflicts import enter_conflicts
from domain.games.lancaster.rewards import enter_castle, enter_counties
from domain.games.lancaster.state import location
from tests.games.lancaster.helpers import in_conflict, in_county, settle, started
from tests.support.play import act, refused


def county(knight: str, letter: str, squires: int = 0) -> dict:
    return {"type": "place_county", "knight": knight, "county": letter, "squires": squires}


def test_LA_4_the_player_places_its_allys_knights_without_squires() -> None:
    s = started(2)
    legal = GAME.legal_actions(s, 0)
    assert county("green-2a", "C") in legal
    assert county("green-2a", "C", 1) not in legal
    refused(s, 0, county("green-2a", "C", 1), "LA-4")
    refused(s, 0, county("yellow-2a", "C"), "LA-2.1")  # the opponent's ally
    s, _ = act(s, 0, county("green-2a", "C"))
    assert GAME.to_act(s) == (1,)  # allies are not seats
    assert GAME.to_act(replace(s, phase="vote", turn=None, votes={})) == (0, 1)


def test_LA_4_never_expel_your_own_or_your_allys_knight() -> None:
    s = in_county(started(2), "F", "green-1a")
    refused(s, 0, county("red-2a", "F", 2), "LA-4")
    s = replace(s, turn=1)
    s, ev = act(s, 1, county("blue-2a", "F"))  # the opponent may expel it
    assert ev[0].data["expelled"] == "green-1a" and location(s, "green-1a") == "court"


def test_LA_4_own_and_ally_share_a_conflict_not_a_space() -> None:
    s = started(2)
    s, ev = act(s, 0, {"type": "place_conflict", "knight": "red-1a", "conflict": 1})
    s, _ = act(s, 0, {"type": "take_favour", "tile": "goods-1", "goods": {"gold": 2, "squires": 0}})
    s, _ = act(s, 1, county("blue-1a", "F"))
    s, ev = act(s, 0, {"type": "place_conflict", "knight": "green-2a", "conflict": 1})
    assert ev[0].data["space"] == 1
    # an ally's King's favour: goods are lost, a noble tile leaves the game
    legal = GAME.legal_actions(s, 0)
    assert {"type": "take_favour", "tile": "goods-2"} in legal
    refused(
        s,
        0,
        {"type": "take_favour", "tile": "goods-2", "goods": {"gold": 2, "squires": 0}},
        "LA-2.3",
    )
    gold = s.players[0].gold
    s, ev = act(s, 0, {"type": "take_favour", "tile": "noble-1", "noble": "A"})
    assert ev[0].data["gains"] == {"noble_removed": "A"}
    assert s.noble_stock["A"] == 1 and s.players[0].nobles == () and s.players[0].gold == gold


def test_LA_4_an_allys_upgrade_applies_to_an_ally_knight() -> None:
    s = started(2)
    s, _ = act(s, 0, {"type": "place_conflict", "knight": "green-2a", "conflict": 4})
    options = [a.get("knight") for a in GAME.legal_actions(s, 0) if a["tile"] == "upgrade-1"]
    assert options == ["green-2a"]
    s, _ = act(s, 0, {"type": "take_favour", "tile": "upgrade-1", "knight": "green-2a"})
    assert location(s, "green-3") == "conflict:4"


def test_LA_4_ally_rewards_keep_only_knights_and_ally_ranks_pay_nobody() -> None:
    s = in_county(started(2), "E", "green-2a")
    s = in_county(s, "B", "yellow-3")
    s, _ = settle(enter_counties(s))
    assert GAME.to_act(s) == (1,)  # yellow is seat 1's ally
    assert {a["take"] for a in GAME.legal_actions(s, 1)} == {"noble", "reward"}
    s, ev = act(s, 1, {"type": "county_reward", "county": "B", "take": "reward"})
    assert ev[0].data["gains"] == {"recruit": ["yellow-1a"]}
    s, ev = act(s, 0, {"type": "county_reward", "county": "E", "take": "reward"})
    assert ev[0].data["gains"] == {}  # Warwick's gold is lost for the ally
    assert s.players[0].gold == 2
    # the ally's castle pays nothing; conflicts: the ally's rank pays nobody
    s = replace(enter_castle(s), upper=())
    s = in_conflict(s, 8, ("green-4",), ("red-1a",), row="lower")  # lost twice
    s, ev = settle(enter_conflicts(s))
    res = next(e for e in ev if e.type == "ConflictResolved")
    assert res.data["ranking"][0]["colour"] == "green" and res.data["power"] == {"0": 3}
    assert res.data["to_reserve"] == ["green-4"] and location(s, "green-4") == "reserve"


def test_LA_4_allies_are_not_the_players_knights_for_laws_or_scoring() -> None:
    s = started(2, current=("L12", "L17", "L3"), debate=("L7",))
    s = in_conflict(s, 1, ("green-4",))
    s = in_county(in_county(s, "A", "green-1a"), "B", "green-2a")
    s = replace(s, phase="vote", turn=None, votes={})
    for seat in (0, 1):
        s, ev = act(s, seat, {"type": "vote", "law": "L7", "tile": "no", "markers": 0})
    assert [e.data["effects"] for e in ev if e.type == "LawTookEffect"] == [{}, {}, {}]


def test_LA_4_no_screens_with_two_players() -> None:
    s = started(2)
    v = GAME.view(s, 1)
    assert v["players"][0]["gold"] == 2 and v["players"][0]["squires"] == 2
    assert GAME.view(s, None)["players"][1]["gold"] == 2
