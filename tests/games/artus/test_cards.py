"""Scenarios for AR-4 (cards), AR-4.1 (knight cards), AR-4.2 (king move cards), AR-4.3 (rings)
and AR-5 (displacement).  King on seat 0 unless said: seat s is worth -15..-1 for s=1..15, 0 for
16..18 and +1..+10 for 19..28."""

from __future__ import annotations

from domain.games.artus import GAME
from domain.games.artus.data import CARDS, PILE_CARDS, player_cards
from tests.games.artus.builder import make_state
from tests.support.play import act, refused


def test_AR_4_card_catalogue() -> None:
    assert len(PILE_CARDS["knight"]) == 8 and len(PILE_CARDS["king"]) == 8
    assert len(PILE_CARDS["scoring"]) == 6
    assert sum(CARDS[c].backward for c in PILE_CARDS["knight"]) == 1
    kinds = [CARDS[c].kind for c in PILE_CARDS["king"]]
    assert kinds.count("move") == 4 and kinds.count("ring") == 4
    every = [c for s in range(4) for p in player_cards(s, "advanced").values() for c in p]
    assert len(every) == len(set(every)) == 88


def test_AR_4_played_card_leaves_the_game() -> None:
    state = make_state(knights={25: "red-k1"}, hands={0: ["red/K3-6", "red/K1-3"]})
    state, _ = act(state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3})
    assert "red/K3-6" not in state.hands[0] and state.played == ("red/K3-6",)
    assert GAME.view(state, None)["played"] == ["red/K3-6"]


def test_AR_4_1_knight_card_scores_the_seat_left() -> None:
    state = make_state(knights={25: "red-k1"}, hands={0: ["red/K3-6"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3}
    )
    assert state.board.seats[28] == "red-k1" and state.board.seats[25] is None
    assert state.board.scores == (7, 0)  # seat 25 is worth +7; the new seat (+10) not counted
    assert event.data["points"] == 7 and event.data["scored"] == {"red-k1": 7}
    assert event.data["direction"] == "cw" and event.data["kind"] == "knight"
    # Round the table: seat 28 + 3 = seat 2 (passing the King on seat 0 and seat 1).
    state = make_state(knights={27: "red-k1"}, hands={0: ["red/K3-6"]})
    state, _ = act(state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 4})
    assert state.board.seats[2] == "red-k1" and state.board.scores[0] == 9


def test_AR_4_1_backward_knight_card_moves_either_way() -> None:
    base = make_state(knights={10: "red-k1"}, hands={0: ["red/K1-5B"]})
    cw, _ = act(
        base,
        0,
        {"type": "play", "card": "red/K1-5B", "knight": "red-k1", "steps": 5, "direction": "cw"},
    )
    assert cw.board.seats[15] == "red-k1" and cw.board.scores[0] == -6
    ccw, (event,) = act(
        base,
        0,
        {"type": "play", "card": "red/K1-5B", "knight": "red-k1", "steps": 2, "direction": "ccw"},
    )
    assert ccw.board.seats[8] == "red-k1" and ccw.board.scores[0] == -6
    assert event.data["moves"] == [{"figure": "red-k1", "from": 10, "to": 8, "displaced": False}]
    actions = GAME.legal_actions(base, 0)
    assert len(actions) == 10 and {a["direction"] for a in actions} == {"cw", "ccw"}


def test_AR_4_1_knight_card_refusals() -> None:
    state = make_state(knights={10: "red-k1", 12: "yellow-k1"}, hands={0: ["red/K3-6"]})
    act = {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3}
    refused(state, 0, {**act, "direction": "ccw"}, "AR-4.1")  # only the backward card goes ccw
    refused(state, 0, {**act, "steps": 2}, "AR-4.1")
    refused(state, 0, {**act, "steps": 0}, "AR-4.1")  # moving is mandatory
    refused(state, 0, {**act, "steps": 7}, "AR-4.1")
    refused(state, 0, {**act, "knight": "yellow-k1"}, "AR-4.1")  # not yours
    refused(state, 0, {**act, "knight": "bronze-1"}, "AR-4.1")  # not a knight
    refused(state, 0, {**act, "knight": "red-k9"}, "AR-4.1")  # not on the table


def test_AR_4_2_moving_a_prince_scores_the_seat_left() -> None:
    state = make_state(hands={0: ["red/M1-7B"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/M1-7B", "figure": "bronze-2", "steps": 4}
    )
    assert state.board.seats[26] == "bronze-2" and state.board.seats[22] is None
    assert state.board.scores == (4, 0)  # seat 22 is worth +4
    assert event.data["table_turned"] is False and event.data["king"] == "silver-1"


def test_AR_4_2_moving_the_king_scores_nothing_and_turns_the_table() -> None:
    state = make_state(knights={28: "red-k1"}, hands={0: ["red/M1-7S"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/M1-7S", "figure": "silver-1", "steps": 3}
    )
    assert state.board.seats[3] == "silver-1" and state.board.scores == (0, 0)
    assert event.data["points"] == 0 and event.data["scored"] == {}
    assert event.data["table_turned"] is True and event.data["king_seat"] == 3
    values = GAME.view(state, 0)["values"]
    assert values[3] == 0 and values[2] == 10 and values[4] == -15
    assert values[28] == 7  # red-k1 was on +10, now +7


def test_AR_4_2_backward_king_card_and_metal_refusals() -> None:
    state = make_state(hands={0: ["red/M1-5B", "red/M1-7S"]})
    state2, _ = act(
        state,
        0,
        {"type": "play", "card": "red/M1-5B", "figure": "silver-2", "steps": 5, "direction": "ccw"},
    )
    assert state2.board.seats[9] == "silver-2" and state2.board.scores[0] == -2
    move = {"type": "play", "card": "red/M1-7S", "steps": 2}
    refused(state, 0, {**move, "figure": "bronze-1"}, "AR-4.2")  # silver card
    refused(state, 0, {**move, "figure": "red-k1"}, "AR-4.2")  # knights are not moved by it
    refused(state, 0, {**move, "figure": "silver-2", "steps": 8}, "AR-4.2")
    refused(state, 0, {**move, "figure": "silver-2", "direction": "ccw"}, "AR-4.2")
    actions = GAME.legal_actions(state, 0)
    assert {a["figure"] for a in actions if a["card"] == "red/M1-7S"} == {"silver-1", "silver-2"}
    assert all("direction" in a for a in actions)


def test_AR_4_3_ring_scores_the_prince_seat() -> None:
    state = make_state(hands={0: ["red/RB"]})
    state, (event,) = act(state, 0, {"type": "play", "card": "red/RB", "prince": "bronze-1"})
    assert state.board.scores[0] == -9  # seat 7
    assert state.board.rings["bronze-1"] == 2 and state.board.supply() == 3
    assert event.data["rings"] == {"bronze-1": 2} and event.data["crowned"] is None


def test_AR_4_3_third_ring_crowns_the_prince_old_king_keeps_one() -> None:
    state = make_state(rings={"bronze-1": 2}, knights={6: "red-k1"}, hands={0: ["red/RX1"]})
    assert state.board.supply() == 3
    state, (event,) = act(state, 0, {"type": "play", "card": "red/RX1", "prince": "bronze-1"})
    assert state.board.scores[0] == -9  # the seat value before the table turned
    assert state.board.king == "bronze-1"
    assert state.board.rings == {"silver-1": 1, "bronze-1": 3, "silver-2": 1, "bronze-2": 1}
    assert state.board.supply() == 4  # two of the old King's rings went back
    assert event.data["crowned"] == "bronze-1" and event.data["table_turned"] is True
    view = GAME.view(state, None)
    assert view["values"][7] == 0 and view["values"][6] == 10 and view["ring_supply"] == 4
    assert sum(view["rings"].values()) + view["ring_supply"] == 10


def test_AR_4_3_ring_refusals() -> None:
    state = make_state(hands={0: ["red/RS", "red/RX2"]})
    refused(state, 0, {"type": "play", "card": "red/RX2", "prince": "silver-1"}, "AR-4.3")  # King
    refused(state, 0, {"type": "play", "card": "red/RS", "prince": "bronze-2"}, "AR-4.3")  # metal
    refused(state, 0, {"type": "play", "card": "red/RS", "prince": "red-k1"}, "AR-4.3")
    assert [a["prince"] for a in GAME.legal_actions(state, 0) if a["card"] == "red/RX2"] == [
        "bronze-1",
        "bronze-2",
        "silver-2",
    ]


def test_AR_5_displaced_figure_goes_to_next_empty_seat_ccw() -> None:
    state = make_state(knights={24: "red-k1", 27: "yellow-k1"}, hands={0: ["red/K3-6"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3}
    )
    assert state.board.seats[27] == "red-k1" and state.board.seats[26] == "yellow-k1"
    assert state.board.scores == (6, 0)  # the displaced knight scores nothing
    assert event.data["moves"][1] == {
        "figure": "yellow-k1",
        "from": 27,
        "to": 26,
        "displaced": True,
    }


def test_AR_5_displacement_skips_occupied_seats_and_may_use_the_origin() -> None:
    knights = {24: "red-k1", 27: "yellow-k1", 26: "yellow-k2", 25: "red-k2"}
    state = make_state(knights=knights, hands={0: ["red/K3-6"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3}
    )
    # 26 and 25 are occupied; 24 is the mover's origin, now empty.
    assert state.board.seats[24] == "yellow-k1" and state.board.seats[27] == "red-k1"
    assert state.board.seats[25] == "red-k2" and state.board.seats[26] == "yellow-k2"
    assert event.data["moves"][1]["to"] == 24


def test_AR_5_displacement_after_a_backward_move_is_still_ccw() -> None:
    state = make_state(knights={10: "red-k1", 8: "yellow-k1"}, hands={0: ["red/K1-5B"]})
    state, _ = act(
        state,
        0,
        {"type": "play", "card": "red/K1-5B", "knight": "red-k1", "steps": 2, "direction": "ccw"},
    )
    assert state.board.seats[8] == "red-k1"
    assert state.board.seats[6] == "yellow-k1"  # 7 holds bronze-1, so the next empty is 6
    assert state.board.seats[10] is None


def test_AR_5_displaced_king_turns_the_table() -> None:
    state = make_state(knights={27: "red-k1"}, hands={0: ["red/K2-5"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/K2-5", "knight": "red-k1", "steps": 2}
    )
    assert state.board.seats[0] == "red-k1"
    assert state.board.seats[28] == "silver-1" and state.board.king == "silver-1"
    assert state.board.scores[0] == 9  # seat 27 before the table turned
    assert event.data["table_turned"] is True and event.data["king_seat"] == 28
    values = GAME.view(state, None)["values"]
    assert values[28] == 0 and values[0] == -15 and values[27] == 10


def test_AR_5_prince_displaces_a_knight() -> None:
    state = make_state(knights={9: "yellow-k1", 8: "red-k1"}, hands={0: ["red/M1-7B"]})
    state, (event,) = act(
        state, 0, {"type": "play", "card": "red/M1-7B", "figure": "bronze-1", "steps": 2}
    )
    # bronze-1 7 -> 9; yellow-k1 goes ccw: 8 taken, 7 (the origin) empty.
    assert state.board.seats[9] == "bronze-1" and state.board.seats[7] == "yellow-k1"
    assert state.board.scores == (-9, 0)
    assert [m["displaced"] for m in event.data["moves"]] == [False, True]
