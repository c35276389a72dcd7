"""Scenarios for AR-1 (board), AR-2 (set-up, placement) and AR-3 (turns, end)."""

from __future__ import annotations

from domain.games.artus import GAME
from domain.games.artus.data import CARPET
from tests.games.artus.builder import make_state, started
from tests.support.play import act, refused


def test_AR_1_seat_values_follow_the_king() -> None:
    state = make_state()
    values = GAME.view(state, 0)["values"]
    assert len(values) == 29
    assert values[0] == 0  # the King's seat
    assert values[1] == -15 and values[15] == -1  # red, just after the King
    assert values[16:19] == [0, 0, 0]  # yellow
    assert values[19] == 1 and values[28] == 10  # green; just behind the King is +10
    # King on seat 10: the whole table turned with him.
    moved = make_state(princes={10: "silver-1", 7: "bronze-1", 14: "silver-2", 22: "bronze-2"})
    v = GAME.view(moved, None)["values"]
    assert v[10] == 0 and v[11] == -15 and v[9] == 10 and v[0] == 1
    assert GAME.view(moved, None)["zones"][9] == "green"
    # Carpet seats are fixed seats whose values change as the table turns.
    assert GAME.view(moved, None)["carpet"] == list(CARPET) == [3, 4, 5, 17, 18, 19]
    assert [values[s] for s in CARPET] != [v[s] for s in CARPET]


def test_AR_1_one_figure_per_seat_and_seats_0_to_28() -> None:
    state, _ = started(2)
    refused(state, 1, {"type": "place_knight", "seat": 29}, "AR-1")
    refused(state, 1, {"type": "place_knight", "seat": -1}, "AR-1")


def test_AR_2_setup_princes_rings_hands_and_piles() -> None:
    state, events = started(2, "basic")
    assert [e.type for e in events] == ["GameStarted"]
    view = GAME.full_view(state)
    assert {s: f for s, f in enumerate(view["seats"]) if f} == {
        0: "silver-1",
        7: "bronze-1",
        14: "silver-2",
        22: "bronze-2",
    }
    assert view["king"] == "silver-1"
    assert view["rings"] == {"silver-1": 3, "bronze-1": 1, "silver-2": 1, "bronze-2": 1}
    assert view["ring_supply"] == 4
    assert view["knights_per_player"] == 5
    for seat, hand in enumerate(view["hands"]):
        kinds = sorted(c.split("/")[1][0] for c in hand)  # K: knight card; M, R: king cards
        assert kinds[:2] == ["K", "K"] and set(kinds[2:]) <= {"M", "R"} and len(kinds) == 4
        assert all(c.startswith(("red/", "yellow/")[seat]) for c in hand)
    assert view["piles"] == [{"knight": 6, "king": 6}] * 2  # no scoring pile in basic

    adv, _ = started(4, "advanced")
    v = GAME.full_view(adv)
    assert v["knights_per_player"] == 4
    assert v["hand_sizes"] == [6, 6, 6, 6]
    assert v["piles"] == [{"knight": 5, "king": 5, "scoring": 6}] * 4
    assert not any(c.split("/")[1].startswith("S-") for h in v["hands"] for c in h)
    assert started(3, "advanced")[0].board.scores == (0, 0, 0)


def test_AR_2_placement_counter_clockwise_then_seat_0_starts() -> None:
    state, _ = started(3)
    order = []
    while state.phase == "placement":
        (seat,) = GAME.to_act(state)
        order.append(seat)
        target = GAME.legal_actions(state, seat)[0]["seat"]
        state, events = act(state, seat, {"type": "place_knight", "seat": target})
        assert events[0].type == "KnightPlaced" and events[0].seat == seat
    assert order == [2, 1, 0] * 5
    assert GAME.to_act(state) == (0,) and state.phase == "play" and state.round == 1
    knights = sorted(f for f in state.board.seats if f and "-k" in f)
    assert knights == sorted(f"{c}-k{n}" for c in ("red", "yellow", "green") for n in range(1, 6))


def test_AR_2_placement_refusals() -> None:
    state, _ = started(2)
    refused(state, 1, {"type": "place_knight", "seat": 7}, "AR-2")  # bronze-1 sits there
    card = state.hands[1][0]
    refused(state, 1, {"type": "play", "card": card}, "AR-2")
    refused(state, 1, {"type": "draw", "pile": "knight"}, "AR-2")
    playing = make_state(knights={3: "red-k1"}, hands={0: ["red/K1-3"]})
    refused(playing, 0, {"type": "place_knight", "seat": 5}, "AR-2")


def test_AR_3_basic_turn_play_one_then_draw_one() -> None:
    state = make_state(
        knights={20: "red-k1", 21: "yellow-k1"},
        hands={0: ["red/K1-3", "red/M4-8"], 1: ["yellow/K1-3"]},
        piles={0: {"knight": ["red/K2-4"], "king": ["red/RS"]}, 1: {"knight": ["yellow/K2-4"]}},
    )
    refused(state, 0, {"type": "draw", "pile": "knight"}, "AR-3")
    state, _ = act(state, 0, {"type": "play", "card": "red/K1-3", "knight": "red-k1", "steps": 1})
    assert state.phase == "draw" and GAME.to_act(state) == (0,)
    assert GAME.legal_actions(state, 0) == [
        {"type": "draw", "pile": "knight"},
        {"type": "draw", "pile": "king"},
    ]
    refused(
        state, 0, {"type": "play", "card": "red/M4-8", "figure": "bronze-1", "steps": 4}, "AR-3"
    )
    state, events = act(state, 0, {"type": "draw", "pile": "king"})
    assert events[0].data == {"pile": "king", "card": "red/RS"}
    assert state.hands[0] == ("red/M4-8", "red/RS")
    assert state.piles[0] == {"knight": ("red/K2-4",), "king": ()}
    assert GAME.to_act(state) == (1,) and state.phase == "play" and state.round == 1
    # Seat 1 (the last seat) finishes: the round advances, seat 0 again.
    state, _ = act(
        state, 1, {"type": "play", "card": "yellow/K1-3", "knight": "yellow-k1", "steps": 2}
    )
    refused(state, 1, {"type": "draw", "pile": "king"}, "AR-3")  # empty pile
    state, _ = act(state, 1, {"type": "draw", "pile": "knight"})
    assert GAME.to_act(state) == (0,) and state.round == 2


def test_AR_3_no_draw_when_all_piles_are_empty() -> None:
    state = make_state(
        knights={20: "red-k1", 21: "yellow-k1"},
        hands={0: ["red/K1-3", "red/K2-4"], 1: ["yellow/K1-3"]},
    )
    state, _ = act(state, 0, {"type": "play", "card": "red/K1-3", "knight": "red-k1", "steps": 1})
    assert state.phase == "play" and GAME.to_act(state) == (1,)
    assert state.hands[0] == ("red/K2-4",)


def test_AR_3_advanced_two_cards_then_two_draws() -> None:
    state = make_state(
        rules="advanced",
        knights={20: "red-k1", 21: "yellow-k1"},
        hands={0: ["red/K1-3", "red/K2-4", "red/RS"], 1: ["yellow/K1-3", "yellow/K2-4"]},
        piles={0: {"knight": ["red/K3-6"], "scoring": ["red/S-all", "red/S-red"]}},
    )
    assert state.plays_left == 2
    state, _ = act(state, 0, {"type": "play", "card": "red/K1-3", "knight": "red-k1", "steps": 1})
    assert state.phase == "play" and GAME.to_act(state) == (0,)  # second card, still seat 0
    refused(state, 0, {"type": "draw", "pile": "knight"}, "AR-3")
    state, _ = act(state, 0, {"type": "play", "card": "red/RS", "prince": "silver-2"})
    assert state.phase == "draw" and state.draws_left == 2
    state, first = act(state, 0, {"type": "draw", "pile": "scoring"})
    assert state.phase == "draw" and GAME.to_act(state) == (0,)  # look, then draw another
    state, second = act(state, 0, {"type": "draw", "pile": "scoring"})
    assert {first[0].data["card"], second[0].data["card"]} == {"red/S-all", "red/S-red"}
    assert len(state.hands[0]) == 3
    assert GAME.to_act(state) == (1,) and state.phase == "play" and state.plays_left == 2


def test_AR_3_game_ends_when_every_card_is_played() -> None:
    state = make_state(
        knights={20: "red-k1", 21: "yellow-k1"},
        hands={0: [], 1: ["yellow/K1-3"]},
        turn=1,
        round=16,
    )
    assert not GAME.is_over(state)
    state, _ = act(
        state, 1, {"type": "play", "card": "yellow/K1-3", "knight": "yellow-k1", "steps": 3}
    )
    assert GAME.is_over(state) and state.phase == "over"
    assert GAME.to_act(state) == () and GAME.legal_actions(state, 0) == []
    assert state.played == ("yellow/K1-3",)


def test_AR_3_only_cards_from_your_hand() -> None:
    state = make_state(knights={20: "red-k1"}, hands={0: ["red/K1-3"], 1: ["yellow/K2-4"]})
    refused(state, 0, {"type": "play", "card": "red/K2-4", "knight": "red-k1", "steps": 2}, "AR-3")
    refused(
        state, 0, {"type": "play", "card": "yellow/K2-4", "knight": "red-k1", "steps": 2}, "AR-3"
    )
