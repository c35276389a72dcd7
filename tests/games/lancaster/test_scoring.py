"""LA-3 end of game: knight strength, extensions, nobles; ties and splits; the result."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.games.lancaster import GAME
from domain.games.lancaster.scoring import awards, noble_points
from tests.games.lancaster.helpers import court, player, started


def over(n: int):
    return replace(started(n), phase="over", round=5)


def test_LA_3_tied_first_after_the_tie_break_split_12_rounded_down_no_second() -> None:
    s = over(5)  # everyone: knights 1+2 at court, 2 squires, 1 extension, 2 gold
    s = court(s, "red-4", "blue-4")  # red and blue: strength 7, the others 3
    res = GAME.result(s)
    d = res["details"]
    assert [d[str(i)]["knight_strength_points"] for i in range(5)] == [6, 6, 0, 0, 0]
    # extensions: all five tied on 1 and on gold: 12 // 5 = 2 each
    assert [d[str(i)]["extension_points"] for i in range(5)] == [2, 2, 2, 2, 2]


def test_LA_3_several_tied_for_second_split_4_rounded_down() -> None:
    s = over(4)
    s = court(s, "red-3")  # red strength 6, others 3 with equal squires
    s = player(s, 1, built=frozenset({"chapel", "council"}))  # blue: most extensions
    s = player(s, 0, gold=5)  # red wins the extension tie for second on gold
    d = GAME.result(s)["details"]
    assert [d[str(i)]["knight_strength_points"] for i in range(4)] == [8, 1, 1, 1]
    assert [d[str(i)]["extension_points"] for i in range(4)] == [4, 8, 0, 0]


def test_LA_3_tie_breaks_squires_for_strength_and_gold_for_extensions() -> None:
    s = over(3)
    s = player(player(s, 2, squires=5), 1, squires=3)
    s = player(player(s, 1, gold=4), 0, gold=3)
    d = GAME.result(s)["details"]
    assert [d[str(i)]["knight_strength_points"] for i in range(3)] == [0, 4, 8]
    assert [d[str(i)]["extension_points"] for i in range(3)] == [4, 8, 0]


def test_LA_3_split_rules_directly() -> None:
    assert awards({0: (5, 0), 1: (5, 0), 2: (5, 0)}, (8, 4)) == {0: 4, 1: 4, 2: 4}
    assert awards({0: (5, 0), 1: (5, 0), 2: (1, 0)}, (8, 4)) == {0: 6, 1: 6}
    assert awards({0: (9, 0), 1: (5, 1), 2: (5, 1), 3: (5, 1)}, (8, 4)) == {
        0: 8,
        1: 1,
        2: 1,
        3: 1,
    }
    assert awards({0: (9, 0), 1: (5, 1), 2: (5, 0)}, (8, 4)) == {0: 8, 1: 4}
    assert awards({0: (9, 0), 1: (5, 1), 2: (5, 1)}, (8, 4)) == {0: 8, 1: 2, 2: 2}


@pytest.mark.parametrize(
    ("nobles", "points"),
    [(0, 0), (1, 0), (2, 1), (3, 3), (4, 6), (5, 10), (6, 15), (7, 21), (8, 28), (9, 36)],
)
def test_LA_3_nobles_at_the_table(nobles: int, points: int) -> None:
    assert noble_points(nobles) == points


def test_LA_3_most_power_wins_and_ties_share_the_win() -> None:
    s = over(3)
    s = player(player(player(s, 0, power=20, nobles=("A", "B", "C")), 1, power=23), 2, power=5)
    res = GAME.result(s)
    # everyone ties for strength and extensions (12 // 3 = 4 each); red's 3 nobles: 3
    assert res["scores"] == {"0": 31, "1": 31, "2": 13}
    assert res["winners"] == [0, 1] and res["ranking"] == [0, 1, 2]
    assert res["details"]["0"]["noble_points"] == 3
    assert res["details"]["0"]["total"] == 31


def test_LA_3_reserve_knights_do_not_count() -> None:
    s = over(2)
    d = GAME.result(s)["details"]
    assert d["0"]["knight_strength"] == 3  # red-1a + red-2a; the reserve and the ally excluded
