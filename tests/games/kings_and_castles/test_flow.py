"""KC-3 turn flow, KC-4 drawing, KC-8 taxation, KC-9 actions, KC-10 view, and the result."""

from __future__ import annotations

from domain import engine
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.events import ATTACKS, BONUS, CASTLES, REFILL, TAX
from domain.games.kings_and_castles.state import household_counts
from tests.games.kings_and_castles.builder import (
    config,
    counters_in_play,
    every_counter,
    position,
    seat_of,
)
from tests.support.play import act, refused

BLACK_ARCHERS = [f"black-archers-{i}" for i in range(1, 9)]
HOLDINGS = {
    "London": "green-archers-5",
    "Bristol": "green-archers-6",
    "Canterbury": "blue-archers-5",
    "York": "teal-archers-5",
    "Rouen": "pink-archers-5",
    "Calais": "black-archers-9",
}


def test_KC_3_turn_draw_attacks_castles_tax_refill_next_king() -> None:
    """KC-3: draw the bonus, attack, castles, taxation, refill; then the next square's King."""
    army = [*BLACK_ARCHERS, "blue-knight-5", "blue-knight-6"]
    state = position(square=2, king="blue", phase=BONUS, army=army)
    assert GAME.to_act(state) == (1,)
    draw = {"type": "draw", "household": {"knight": 2}, "bag": 0}  # bonus 2 on square 2
    state, _ = act(state, seat_of(state), draw)
    assert state.phase == ATTACKS and len(state.armies["blue"]) == 12
    state, events = act(state, seat_of(state), {"type": "end_attacks"})
    assert [e.type for e in events] == ["AttacksEnded", "CastlesEnded"]  # no castle to place
    assert state.phase == TAX
    state, events = act(state, seat_of(state), {"type": "no_tax"})
    assert [e.type for e in events] == ["TaxDeclined", "TurnEnded"]  # 12 >= 10: no refill
    assert len(state.armies["blue"]) == 12  # an army above 10 stays as it is
    assert state.square == 3 and state.phase == BONUS and 2 in state.turned
    assert GAME.to_act(state) == (state.owners[state.crowns[3]],)


def test_KC_3_refill_back_to_ten() -> None:
    """KC-3: the army is refilled to 10, household choice first, then the bag."""
    state = position(square=2, king="blue", phase=REFILL, army=BLACK_ARCHERS[:7])
    actions = GAME.legal_actions(state, 1)
    assert {a["type"] for a in actions} == {"refill"}
    assert all(sum(a["household"].values()) + a["bag"] == 3 for a in actions)
    state, events = act(
        state, seat_of(state), {"type": "refill", "household": {"archers": 1}, "bag": 2}
    )
    assert [e.type for e in events] == ["CountersDrawn", "TurnEnded"]
    assert events[0].data["purpose"] == "refill" and len(state.armies["blue"]) == 10


def test_KC_3_actions_only_in_their_phase() -> None:
    """KC-3: each step of the turn takes its own actions."""
    state = position(phase=ATTACKS, army=["green-knight-1"])
    refused(state, seat_of(state), {"type": "tax"}, "KC-3", "attacks phase")
    refused(position(phase=TAX), 0, {"type": "end_attacks"}, "KC-3")


def test_KC_3_game_ends_after_square_24_with_final_taxation() -> None:
    """KC-3: after the last square comes the final taxation; then the game is over."""
    state = position(square=24, king="teal", phase=TAX, army=BLACK_ARCHERS, holders=HOLDINGS)
    state, events = act(state, seat_of(state), {"type": "no_tax"})
    state, events = act(state, seat_of(state), {"type": "refill", "household": {}, "bag": 2})
    assert [e.type for e in events] == ["CountersDrawn", "TurnEnded", "FinalTaxCollected"]
    assert events[1].data == {"square": 24, "next": None}
    assert GAME.is_over(state) and GAME.to_act(state) == () and GAME.legal_actions(state, 2) == []


def test_KC_3_short_game_ends_after_square_12() -> None:
    """KC-2/KC-3 short game: the last King is square 12 (Henry III Part 2)."""
    state = position(length="short", square=12, king="pink", phase=TAX, army=BLACK_ARCHERS)
    state, _ = act(state, seat_of(state), {"type": "tax"})
    state, events = act(
        state, seat_of(state), {"type": "refill", "household": {"knight": 2}, "bag": 0}
    )
    assert events[-1].type == "FinalTaxCollected" and GAME.is_over(state)
    assert state.turned == frozenset(range(1, 13))


def test_KC_4_household_part_first_then_bag() -> None:
    """KC-4: the household part (lowest ids) is fixed, then bag draws are recorded."""
    state = position(square=2, king="blue", phase=BONUS, army=BLACK_ARCHERS)
    state, (event, *_) = act(
        state, seat_of(state), {"type": "draw", "household": {"men_at_arms": 1}, "bag": 1}
    )
    assert event.data["household"] == ["blue-men_at_arms-1"]
    assert len(event.data["bag"]) == 1 and event.data["refill_at"] is None
    assert household_counts(state.households["blue"])["men_at_arms"] == 3
    assert sorted(every_counter(state)) == sorted(counters_in_play(state))


def test_KC_4_household_counts_checked() -> None:
    """KC-4: no more than the household holds, units only, exactly the number owed."""
    state = position(square=2, king="blue", phase=BONUS)
    refused(
        state,
        seat_of(state),
        {"type": "draw", "household": {"knight": 5}, "bag": 0},
        "KC-4",
        "has 4",
    )
    refused(
        state,
        seat_of(state),
        {"type": "draw", "household": {"castle": 1}, "bag": 1},
        "KC-4",
        "castle",
    )
    refused(
        state,
        seat_of(state),
        {"type": "draw", "household": {"knight": -1}, "bag": 3},
        "KC-4",
        "negative",
    )
    refused(
        state,
        seat_of(state),
        {"type": "draw", "household": {"knight": 1}, "bag": 0},
        "KC-4",
        "exactly 2",
    )


def test_KC_4_bag_refilled_from_destroyed_when_empty() -> None:
    """KC-4: when the bag runs empty mid-draw, the destroyed counters go back in."""
    full = position(square=2, king="blue", phase=BONUS)
    keep = "black-archers-16"
    state = position(
        square=2, king="blue", phase=BONUS, bag=[keep], destroyed=sorted(full.bag - {keep})
    )
    state, (event, *_) = act(state, seat_of(state), {"type": "draw", "household": {}, "bag": 2})
    assert event.data["bag"][0] == keep and event.data["refill_at"] == 1
    assert len(event.data["returned"]) == len(full.bag) - 1
    assert not state.destroyed and len(state.bag) == len(full.bag) - 2
    assert sorted(every_counter(state)) == sorted(counters_in_play(state))
    assert GAME.reveals(event)


def test_KC_4_draw_stops_short_when_bag_and_destroyed_are_empty() -> None:
    """KC-4: with nothing in the bag or beside the map the draw stops short."""
    state = position(square=2, king="blue", phase=BONUS, bag=[], destroyed=[])
    state, (event, *_) = act(
        state, seat_of(state), {"type": "draw", "household": {"knight": 1}, "bag": 1}
    )
    assert event.data["bag"] == [] and len(state.armies["blue"]) == 1


def test_KC_8_taxation_king_earns_double() -> None:
    """KC-8: every colour earns its town values; the King's colour earns double."""
    state = position(phase=TAX, holders=HOLDINGS, money={"blue": 17})
    state, (event,) = act(state, seat_of(state), {"type": "tax"})
    assert event.data["amounts"] == {"green": 10, "blue": 1, "teal": 2, "pink": 2}
    assert state.money == {"green": 10, "blue": 18, "teal": 2, "pink": 2}
    assert state.tax_markers["green"] == 2 and state.phase == REFILL
    assert event.data["digits"] == {"green": 0, "blue": 8, "teal": 2, "pink": 2}


def test_KC_8_tax_amounts_private() -> None:
    """KC-8: others see only the last digit; tax events are redacted to one's own colours."""
    state = position(phase=TAX, holders=HOLDINGS)
    state, (event,) = act(state, seat_of(state), {"type": "tax"})
    assert GAME.redact(event, 1, config(state.players))["amounts"] == {"blue": 1}
    assert GAME.redact(event, 0, config(state.players))["amounts"] == {"green": 10}
    assert GAME.redact(event, None, config(state.players))["amounts"] == {}
    assert GAME.redact(event, None, config(state.players))["digits"]["green"] == 0
    view = GAME.view(state, 1)
    assert view["money"] == {"blue": 1} and view["money_digit"]["green"] == 0
    assert GAME.view(state, None)["money"] == {}
    assert not GAME.reveals(event)


def test_KC_8_two_players_king_colour_double_other_colour_single() -> None:
    """KC-8 (2 players): the King is the crown's colour; the player's other colour earns single."""
    state = position(players=2, phase=TAX, holders=HOLDINGS)
    state, (event,) = act(state, seat_of(state), {"type": "tax"})
    assert event.data["amounts"] == {"green": 10, "blue": 1, "pink": 2, "teal": 2}
    assert GAME.redact(event, 0, config(state.players))["amounts"] == {"green": 10, "pink": 2}
    assert GAME.view(state, 0)["money"] == {"green": 10, "pink": 2}


def test_KC_8_no_marker_no_tax() -> None:
    """KC-8: each tax costs a marker; without one the taxation step passes by itself."""
    state = position(phase=TAX, tax_markers={"green": 0}, army=BLACK_ARCHERS[:1])
    assert GAME.legal_actions(state, 0) == [{"type": "no_tax"}]
    refused(state, seat_of(state), {"type": "tax"}, "KC-8", "no tax marker")
    army = [*BLACK_ARCHERS, "green-knight-5", "green-knight-6"]
    state = position(phase=CASTLES, tax_markers={"green": 0}, army=army)
    state, events = act(state, seat_of(state), {"type": "end_castles"})
    assert [e.type for e in events] == ["CastlesEnded", "TaxDeclined", "TurnEnded"]
    assert events[1].data["auto"]


def test_KC_8_final_taxation_double_for_everyone_then_money_revealed() -> None:
    """KC-8: final taxation: every colour earns double; all money is revealed at the end."""
    army = [*BLACK_ARCHERS, "green-knight-5", "green-knight-6"]  # 10: no refill
    state = position(square=24, phase=TAX, holders=HOLDINGS, army=army, money={"teal": 5})
    state, events = act(state, seat_of(state), {"type": "tax"})
    final = events[-1]
    assert final.type == "FinalTaxCollected"
    assert final.data["amounts"] == {"green": 10, "blue": 2, "teal": 4, "pink": 4}
    assert final.data["money"] == {"green": 20, "blue": 3, "teal": 11, "pink": 6}
    assert state.money == final.data["money"]
    assert GAME.redact(final, None, config(state.players)) == final.data and GAME.reveals(final)
    assert GAME.view(state, None)["money"] == final.data["money"]
    result = GAME.result(state)
    assert result["scores"] == {"0": 20, "1": 3, "2": 11, "3": 6}
    assert result["winners"] == [0] and result["ranking"] == [0, 2, 3, 1]


def test_KC_8_two_player_result_sums_colours_and_ties_share() -> None:
    """KC-8/KC-3: with 2 players a seat's money is its two colours; ties share the win."""
    state = position(players=2, money={"green": 7, "pink": 5, "blue": 10, "teal": 2})
    result = GAME.result(state)
    assert result["scores"] == {"0": 12, "1": 12} and result["winners"] == [0, 1]
    assert result["details"]["money_by_colour"] == {"green": 7, "blue": 10, "pink": 5, "teal": 2}


def test_KC_9_actions_declared_and_well_formed() -> None:
    """KC-9: the action types and their fields; listed actions pass the engine's shape check."""
    assert {t: set(f) for t, f in GAME.actions.items()} == {
        "place_crown": {"square"},
        "draw": {"household", "bag"},
        "occupy_rouen": {"counter"},
        "attack": {"target", "counters"},
        "end_attacks": set(),
        "place_castle": {"counter", "territory"},
        "end_castles": set(),
        "tax": set(),
        "no_tax": set(),
        "refill": {"household", "bag"},
    }
    state = position(phase=ATTACKS, army=["green-knight-1", "green-castle-1"], holders=HOLDINGS)
    for action in GAME.legal_actions(state, 0):
        assert engine.check_shape(GAME, action) == action
    assert GAME.legal_actions(state, 1) == []


def test_KC_10_public_view() -> None:
    """KC-10: the minimum public view, for a player and a spectator."""
    state = position(army=["green-knight-1"], holders=HOLDINGS, castles={"London": "blue-castle-1"})
    view = GAME.view(state, 2)
    for key in (
        "square",
        "track",
        "territories",
        "armies",
        "households",
        "bag_size",
        "destroyed",
        "tax_markers",
        "money_digit",
        "money",
        "phase",
        "countries_attacked",
        "to_act",
        "your_colours",
    ):
        assert key in view
    assert view["your_colours"] == ["teal"] and view["to_act"] == [0]
    assert view["territories"]["London"] == {
        "country": "England",
        "town_value": 3,
        "holder": "green-archers-5",
        "castle": "blue-castle-1",
    }
    assert view["track"][0] == {
        "square": 1,
        "king": "William I (Part 1)",
        "bonus": 4,
        "country": "England",
        "crown": "green",
        "turned": False,
    }
    assert view["armies"]["green"] == ["green-knight-1"] and view["money"] == {"teal": 0}
    assert GAME.view(state, None)["money"] == {} and GAME.full_view(state)["money"] == state.money
