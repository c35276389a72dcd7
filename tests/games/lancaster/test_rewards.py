"""LA-2.7 county rewards (and Surrey), LA-2.8 castle rewards (and LA-2.2 extensions paying)."""

from __future__ import annotations

from dataclasses import replace

from domain.games.lancaster import GAME
from domain.games.lancaster.rewards import enter_castle, enter_counties
from domain.games.lancaster.state import State, location
from tests.games.lancaster.helpers import in_castle, in_county, player, settle, started, types
from tests.support.play import act, refused


def reward(county: str, take: str, **extra) -> dict:
    return {"type": "county_reward", "county": county, "take": take, **extra}


def castle(source: str, **extra) -> dict:
    return {"type": "castle_reward", "source": source, **extra}


def counties(s: State) -> State:
    s = enter_counties(s)
    s, _ = settle(s)
    return s


def test_LA_2_7_county_noble_or_reward_or_both_for_3_gold() -> None:
    s = in_county(started(3), "C", "blue-2a")
    s = in_county(s, "D", "green-3")
    s = in_county(s, "E", "red-2a")
    s = player(s, 0, gold=5)
    s = counties(s)
    assert GAME.to_act(s) == (1,)  # York first (A and B are empty)
    assert {a["take"] for a in GAME.legal_actions(s, 1)} == {"noble", "reward"}
    refused(s, 1, reward("C", "both"), "LA-2.7")  # blue has 2 gold
    refused(s, 1, reward("E", "reward"), "LA-2.7")  # not E's turn
    s, _ = act(s, 1, reward("C", "noble"))
    assert s.players[1].nobles == ("C",) and s.noble_stock["C"] == 1
    # Gloucester's upgrade names the knight
    refused(s, 2, reward("D", "reward"), "LA-2.7")
    s, ev = act(s, 2, reward("D", "reward", knight="green-3"))
    assert ev[0].data["gains"] == {"upgrade": ["green-3", "green-4"]}
    assert s.counties["D"].knight == "green-4"
    s, ev = act(s, 0, reward("E", "both"))
    assert ev[0].data["gains"] == {"noble": "E"}  # +3 gold for Warwick, -3 for both
    assert s.players[0].gold == 5 and s.players[0].nobles == ("E",)
    assert s.phase == "castle"


def test_LA_2_7_one_noble_per_letter_per_player() -> None:
    s = in_county(player(started(3), 0, nobles=("F",), gold=9), "F", "red-1a")
    s = counties(s)
    assert GAME.legal_actions(s, 0) == [reward("F", "reward")]
    refused(s, 0, reward("F", "noble"), "LA-2.7")
    refused(s, 0, reward("F", "both"), "LA-2.7")
    s, ev = act(s, 0, reward("F", "reward"))
    assert ev[0].data["gains"] == {"squires": 2}


def test_LA_2_7_no_noble_left_on_the_county() -> None:
    s = in_county(started(3), "G", "red-1a")
    s = replace(s, noble_stock={**s.noble_stock, "G": 0})
    s = counties(s)
    refused(s, 0, reward("G", "noble"), "LA-2.7")


def test_LA_2_7_surrey_changes_the_start_player_mid_round() -> None:
    s = in_county(started(3), "I", "red-1a")
    s = in_county(s, "H", "blue-2a")
    s = counties(s)
    s, _ = act(s, 1, reward("H", "reward"))
    s, _ = act(s, 0, reward("I", "noble"))  # whichever they take, they choose
    assert GAME.to_act(s) == (0,)
    refused(s, 0, reward("I", "reward"), "LA-2.7")
    refused(s, 0, {"type": "choose_start_player", "seat": 3}, "LA-2.7")
    s, _ev = act(s, 0, {"type": "choose_start_player", "seat": 2})
    assert s.start == 2
    # the new order applies at once: the castle rewards start with seat 2
    assert s.phase == "castle" and GAME.to_act(s) == (2,)
    assert GAME.view(s, None)["order"] == [2, 0, 1]


def test_LA_2_8_castle_rewards_in_any_order_then_guests_bring_vote_markers() -> None:
    s = started(3)
    s = in_castle(s, "red-1a", "barracks")
    s = in_castle(s, "red-2a", "squire_hall")
    s = player(s, 0, squires=1, nobles=("A", "B"), markers=0)
    s = enter_castle(s)
    legal = GAME.legal_actions(s, 0)
    assert castle("barracks") not in legal  # 2 squires needed, red has 1
    refused(s, 0, castle("barracks"), "LA-2.8")
    refused(s, 0, castle("treasury"), "LA-2.8")  # no knight, no extension
    s, _ = act(s, 0, castle("squire_hall"))
    s, ev = act(s, 0, castle("barracks"))
    assert ev[0].data["gains"] == {"squires": -2, "recruit": ["red-1b"]}
    assert location(s, "red-1b") == "court"
    refused(s, 0, castle("squire_hall"), "LA-2.8")  # each source pays once
    s, ev = act(s, 0, castle("chapel"))  # the start extension (LA-2.2)
    assert types(ev)[:2] == ["CastleRewardTaken", "CastleFinished"]
    assert ev[1].data == {"markers": 3}  # 1 for themselves + 2 nobles
    assert s.players[0].markers == 3 and s.players[0].power == 1
    assert GAME.to_act(s) == (1,)


def test_LA_2_8_pass_leaves_the_rest_and_no_markers_in_round_5() -> None:
    s = replace(in_castle(started(3), "red-1a", "treasury"), round=5)
    s = enter_castle(s)
    s, ev = act(s, 0, {"type": "pass"})
    assert types(ev)[:2] == ["CastlePassed", "CastleFinished"]
    assert ev[1].data == {"markers": 0}
    assert s.players[0].gold == 2 and s.players[0].power == 0


def test_LA_2_2_a_space_covered_by_an_extension_pays_anyway() -> None:
    s = enter_castle(started(3, ext="treasury"))
    assert GAME.legal_actions(s, 0) == [castle("treasury"), {"type": "pass"}]
    s, _ = act(s, 0, castle("treasury"))
    assert s.players[0].gold == 3


def test_LA_2_8_training_yard_upgrades_a_chosen_knight() -> None:
    s = in_castle(started(3), "red-1a", "training_yard")
    s = enter_castle(s)
    refused(s, 0, castle("training_yard"), "LA-2.8")  # which knight?
    s, ev = act(s, 0, castle("training_yard", knight="red-1a"))
    assert ev[0].data["gains"] == {"squires": -1, "upgrade": ["red-1a", "red-2b"]}
    assert s.castle == {"red-2b": "training_yard"}
