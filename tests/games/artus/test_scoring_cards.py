"""Scenarios for AR-6 (scoring cards, advanced game).  King on seat 0: seats 1..15 red
(-15..-1), 16..18 yellow (0), 19..28 green (+1..+10); carpet seats 3, 4, 5, 17, 18, 19."""

from __future__ import annotations

from collections.abc import Mapping

from domain.games.artus import GAME
from domain.games.artus.state import State
from tests.games.artus.builder import make_state, started
from tests.support.play import act, refused

KNIGHTS = {28: "red-k1", 17: "red-k2", 4: "red-k3", 5: "red-k4", 10: "red-k5", 20: "yellow-k1"}


def adv(
    card: str, knights: dict[int, str] | None = None, rings: Mapping[str, int] | None = None
) -> State:
    return make_state(
        rules="advanced",
        knights=KNIGHTS if knights is None else knights,
        hands={0: [card]},
        rings=rings,
    )


def test_AR_6_S_all_and_S_neg_score_every_own_knight() -> None:
    total = 10 + 0 - 12 - 11 - 6  # -19
    state, (event,) = act(adv("red/S-all"), 0, {"type": "play", "card": "red/S-all"})
    assert state.board.scores == (total, 0)
    assert event.data["scored"] == {
        "red-k1": 10,
        "red-k2": 0,
        "red-k3": -12,
        "red-k4": -11,
        "red-k5": -6,
    }
    state, _ = act(adv("red/S-neg"), 0, {"type": "play", "card": "red/S-neg"})
    assert state.board.scores == (-total, 0)
    refused(adv("red/S-all"), 0, {"type": "play", "card": "red/S-all", "knights": []}, "AR-9")


def test_AR_6_S_gyr_one_each_on_green_yellow_red_or_penalty() -> None:
    state = adv("red/S-gyr")
    actions = GAME.legal_actions(state, 0)
    assert sorted(sorted(a["knights"]) for a in actions) == [
        ["red-k1", "red-k2", "red-k3"],
        ["red-k1", "red-k2", "red-k4"],
        ["red-k1", "red-k2", "red-k5"],
    ]
    done, _ = act(
        state, 0, {"type": "play", "card": "red/S-gyr", "knights": ["red-k5", "red-k1", "red-k2"]}
    )
    assert done.board.scores[0] == 10 + 0 - 6
    refused(state, 0, {"type": "play", "card": "red/S-gyr", "knights": []}, "AR-6")  # must score
    refused(
        state,
        0,
        {"type": "play", "card": "red/S-gyr", "knights": ["red-k1", "red-k3", "red-k4"]},
        "AR-6",
    )
    refused(
        state, 0, {"type": "play", "card": "red/S-gyr", "knights": ["red-k1", "red-k2"]}, "AR-6"
    )
    refused(
        state,
        0,
        {"type": "play", "card": "red/S-gyr", "knights": ["red-k1", "red-k2", "yellow-k1"]},
        "AR-6",
    )
    # No yellow knight: the penalty is the only choice.
    no_yellow = adv("red/S-gyr", {28: "red-k1", 4: "red-k3"})
    assert GAME.legal_actions(no_yellow, 0) == [
        {"type": "play", "card": "red/S-gyr", "knights": []}
    ]
    done, (event,) = act(no_yellow, 0, {"type": "play", "card": "red/S-gyr", "knights": []})
    assert done.board.scores[0] == -15 and event.data["penalty"] == -15


def test_AR_6_S_carpet_two_knights_on_carpet_or_penalty() -> None:
    state = adv("red/S-carpet")  # red-k2 (17), red-k3 (4), red-k4 (5) are on the carpet
    assert len(GAME.legal_actions(state, 0)) == 3
    done, _ = act(
        state, 0, {"type": "play", "card": "red/S-carpet", "knights": ["red-k3", "red-k4"]}
    )
    assert done.board.scores[0] == -23
    refused(state, 0, {"type": "play", "card": "red/S-carpet", "knights": []}, "AR-6")
    refused(
        state, 0, {"type": "play", "card": "red/S-carpet", "knights": ["red-k1", "red-k3"]}, "AR-6"
    )
    refused(
        state, 0, {"type": "play", "card": "red/S-carpet", "knights": ["red-k3", "red-k3"]}, "AR-6"
    )
    one = adv("red/S-carpet", {4: "red-k1", 19: "yellow-k1", 20: "red-k2"})
    done, _ = act(one, 0, {"type": "play", "card": "red/S-carpet", "knights": []})
    assert done.board.scores[0] == -25


def test_AR_6_S_red_three_knights_on_red_or_penalty() -> None:
    state = adv("red/S-red")  # red-k3 (4), red-k4 (5), red-k5 (10) on red
    assert GAME.legal_actions(state, 0) == [
        {"type": "play", "card": "red/S-red", "knights": ["red-k3", "red-k4", "red-k5"]}
    ]
    done, _ = act(
        state, 0, {"type": "play", "card": "red/S-red", "knights": ["red-k3", "red-k4", "red-k5"]}
    )
    assert done.board.scores[0] == -12 - 11 - 6  # a voluntary -50 is not allowed instead
    refused(state, 0, {"type": "play", "card": "red/S-red", "knights": []}, "AR-6")
    two = adv("red/S-red", {4: "red-k1", 5: "red-k2", 20: "red-k3"})
    done, _ = act(two, 0, {"type": "play", "card": "red/S-red", "knights": []})
    assert done.board.scores[0] == -50


def test_AR_6_S_choice_move_option() -> None:
    state = adv("red/S-choice")
    moved, (event,) = act(
        state,
        0,
        {"type": "play", "card": "red/S-choice", "option": "move", "figure": "red-k5", "steps": 3},
    )
    assert moved.board.seats[13] == "red-k5" and moved.board.scores[0] == -6
    prince, _ = act(
        state,
        0,
        {
            "type": "play",
            "card": "red/S-choice",
            "option": "move",
            "figure": "bronze-2",
            "steps": 1,
        },
    )
    assert prince.board.seats[23] == "bronze-2" and prince.board.scores[0] == 4
    king, (event,) = act(
        state,
        0,
        {
            "type": "play",
            "card": "red/S-choice",
            "option": "move",
            "figure": "silver-1",
            "steps": 1,
        },
    )
    assert king.board.king_seat() == 1 and king.board.scores[0] == 0 and event.data["table_turned"]
    move = {"type": "play", "card": "red/S-choice", "option": "move", "figure": "red-k1"}
    refused(state, 0, {**move, "steps": 4}, "AR-6")
    refused(state, 0, {**move, "figure": "yellow-k1", "steps": 1}, "AR-6")
    refused(state, 0, {**move, "steps": 1, "direction": "ccw"}, "AR-9")
    refused(
        state,
        0,
        {"type": "play", "card": "red/S-choice", "option": "move", "figure": "red-k1"},
        "AR-9",
    )


def test_AR_6_S_choice_ring_and_score_options() -> None:
    state = adv("red/S-choice", rings={"silver-2": 2})
    crowned, (event,) = act(
        state, 0, {"type": "play", "card": "red/S-choice", "option": "ring", "prince": "silver-2"}
    )
    assert crowned.board.king == "silver-2" and crowned.board.scores[0] == -2  # seat 14
    assert crowned.board.rings["silver-1"] == 1 and event.data["crowned"] == "silver-2"
    bronze, _ = act(
        state, 0, {"type": "play", "card": "red/S-choice", "option": "ring", "prince": "bronze-2"}
    )
    assert bronze.board.rings["bronze-2"] == 2 and bronze.board.scores[0] == 4  # any metal
    refused(
        state,
        0,
        {"type": "play", "card": "red/S-choice", "option": "ring", "prince": "silver-1"},
        "AR-6",
    )
    scored, _ = act(
        state, 0, {"type": "play", "card": "red/S-choice", "option": "score", "knight": "red-k1"}
    )
    assert scored.board.scores[0] == 10 and scored.board.seats[28] == "red-k1"
    refused(
        state,
        0,
        {"type": "play", "card": "red/S-choice", "option": "score", "knight": "yellow-k1"},
        "AR-6",
    )
    options = {a["option"] for a in GAME.legal_actions(state, 0)}
    assert options == {"move", "ring", "score"}


def test_AR_6_no_scoring_cards_in_the_basic_game() -> None:
    state, _ = started(2, "basic")
    assert all("scoring" not in p for p in GAME.view(state, 0)["piles"])
    drawing = make_state(phase="draw", draws_left=1, piles={0: {"knight": ["red/K1-3"]}})
    refused(drawing, 0, {"type": "draw", "pile": "scoring"}, "AR-2")
