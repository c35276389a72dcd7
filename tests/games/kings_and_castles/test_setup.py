"""KC-1 components and KC-2 set-up (4, 3 and 2 players, short game)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from domain import engine
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.data import (
    COUNTERS,
    COUNTRIES,
    ENEMY_POOL,
    TERRITORIES,
    TRACK,
)
from domain.games.kings_and_castles.events import ATTACKS, BONUS, CROWNS, FORMING, OCCUPY
from domain.games.kings_and_castles.state import State, household_counts
from domain.rng import Rng
from tests.games.kings_and_castles.builder import (
    config,
    counters_in_play,
    every_counter,
    position,
    seat_of,
)
from tests.support.play import act, refused


def created(players: int = 4, length: str = "full", seed: str = "setup") -> State:
    return engine.fold(GAME, engine.create(GAME, config(players, length), Rng.at(seed, 1))).state


def through_setup(players: int = 4, length: str = "full") -> State:
    """Form every army (strongest household units first) and place every crown (first legal)."""
    state = created(players, length)
    n = 2
    while state.phase in (FORMING, CROWNS):
        state, _ = act(state, seat_of(state), GAME.legal_actions(state, seat_of(state))[-1], n=n)
        n += 1
    return state


def crown_state(players: int, crowns: dict[int, str], step: int, length: str = "full") -> State:
    return replace(GAME.initial(config(players, length)), phase=CROWNS, crowns=crowns, step=step)


def test_KC_1_components() -> None:
    """KC-1: 32 territories in 5 countries, town values, symbols, counters, 24 squares."""
    assert len(TERRITORIES) == 32 and len(COUNTRIES) == 5
    values = {name: t.town_value for name, t in TERRITORIES.items()}
    assert values["London"] == 3
    twos = {"Bristol", "York", "Llandaff", "Edinburgh", "Dublin", "Rouen", "Bordeaux"}
    assert {n for n, v in values.items() if v == 2} == twos
    assert all(v == 1 for n, v in values.items() if n not in twos | {"London"})
    assert not any(TERRITORIES[t].flag for t in COUNTRIES["England"])
    for name, t in TERRITORIES.items():  # adjacency is symmetric and inside a country
        assert all(name in TERRITORIES[a].adjacent for a in t.adjacent)
        assert all(TERRITORIES[a].country == t.country for a in t.adjacent)
    for colour in ("green", "blue", "teal", "pink"):
        kinds = Counter(c.kind for c in COUNTERS.values() if c.colour == colour)
        assert kinds == {"knight": 6, "men_at_arms": 6, "archers": 6, "mercenary": 3, "castle": 3}
    assert Counter(COUNTERS[c].kind for c in ENEMY_POOL) == {
        "knight": 10,
        "men_at_arms": 14,
        "archers": 16,
    }
    assert COUNTERS["blue-knight-3"].value == 3 and COUNTERS["black-archers-12"].value == 1
    assert COUNTERS["pink-mercenary-2"].value == 2 and COUNTERS["teal-castle-3"].value == 3
    assert [TRACK[n].number for n in range(1, 25)] == list(range(1, 25))
    assert all(1 <= s.bonus <= 4 for s in TRACK.values())


def test_KC_2_four_player_setup() -> None:
    """KC-2: enemies everywhere but Rouen; the rest and 12 counters per colour in the bag."""
    state = created(4)
    assert state.territories["Rouen"] is None
    placed = [h for t, h in state.territories.items() if t != "Rouen"]
    assert len(placed) == 31 and all(h is not None and COUNTERS[h].is_enemy for h in placed)
    assert len(state.bag) == 9 + 4 * 12
    assert sum(COUNTERS[c].is_enemy for c in state.bag) == 9
    for colour in state.colours:
        assert household_counts(state.households[colour]) == {
            "knight": 4,
            "men_at_arms": 4,
            "archers": 4,
        }
    assert state.money == dict.fromkeys(state.colours, 0)
    assert state.tax_markers == dict.fromkeys(state.colours, 3)
    assert state.phase == FORMING and GAME.to_act(state) == (0,)
    assert sorted(every_counter(state)) == sorted(counters_in_play(state))


def test_KC_2_enemy_placement_is_recorded() -> None:
    """KC-2: the random placement is in the event; the same seed gives the same placement."""
    events = GAME.setup(config(4), Rng.at("a", 1))
    assert events == GAME.setup(config(4), Rng.at("a", 1))
    assert events != GAME.setup(config(4), Rng.at("b", 1))
    state = GAME.evolve(GAME.initial(config(4)), events[0])
    assert {t: h for t, h in state.territories.items() if h} == events[0].data["placements"]


def test_KC_2_army_forming_household_then_bag_in_seat_order() -> None:
    """KC-2: each colour forms an army of 10, household choice first, then the bag."""
    state = created(4)
    action = {"type": "draw", "household": {"knight": 4, "men_at_arms": 2, "archers": 0}, "bag": 4}
    state, (event,) = act(state, seat_of(state), action)
    assert event.data["household"] == [
        "green-knight-1",
        "green-knight-2",
        "green-knight-3",
        "green-knight-4",
        "green-men_at_arms-1",
        "green-men_at_arms-2",
    ]
    assert len(event.data["bag"]) == 4 and event.data["purpose"] == "army"
    assert len(state.armies["green"]) == 10
    assert household_counts(state.households["green"]) == {
        "knight": 0,
        "men_at_arms": 2,
        "archers": 4,
    }
    assert GAME.to_act(state) == (1,) and state.phase == FORMING
    refused(state, seat_of(state), {**action, "bag": 3}, "KC-4", "exactly 10")


def test_KC_2_crowns_not_next_to_own() -> None:
    """KC-2: a crown may not go next to a square holding the player's own crown."""
    state = crown_state(4, {5: "green", 9: "blue", 12: "teal", 20: "pink"}, step=4)
    squares = {a["square"] for a in GAME.legal_actions(state, 0)}
    assert 4 not in squares and 6 not in squares and 8 in squares and 10 in squares
    refused(state, seat_of(state), {"type": "place_crown", "square": 6}, "KC-2", "next to")
    refused(state, seat_of(state), {"type": "place_crown", "square": 9}, "KC-2", "already")
    state, _ = act(state, seat_of(state), {"type": "place_crown", "square": 8})
    assert state.crowns[8] == "green" and GAME.to_act(state) == (1,)


def test_KC_2_crowns_next_to_own_when_every_empty_square_is() -> None:
    """KC-2: next to one's own crown only if every empty square is next to one."""
    crowns = dict.fromkeys(range(1, 25), "blue")
    for s in (2, 4, 6, 8):
        del crowns[s]
    crowns.update({3: "green", 5: "green", 7: "green"})
    state = crown_state(4, crowns, step=20)
    assert [a["square"] for a in GAME.legal_actions(state, 0)] == [2, 4, 6, 8]


def test_KC_2_two_player_crown_fallbacks() -> None:
    """KC-2 (2 players): avoid both own colours; else only this colour; else anywhere."""
    crowns = dict.fromkeys(range(1, 25), "blue")
    for s in (2, 10):
        del crowns[s]
    crowns.update({1: "green", 11: "pink"})
    state = crown_state(2, crowns, step=20)  # green (seat 0) to place
    assert [a["square"] for a in GAME.legal_actions(state, 0)] == [10]  # next to pink only
    refused(state, seat_of(state), {"type": "place_crown", "square": 2}, "KC-2")
    crowns[10] = "blue"
    state = crown_state(2, crowns, step=20)
    assert [a["square"] for a in GAME.legal_actions(state, 0)] == [2]  # anywhere
    state = crown_state(2, {1: "green", 3: "pink"}, step=2)  # pink (seat 0) to place
    assert state.crowns and GAME.to_act(state) == (0,)
    squares = {a["square"] for a in GAME.legal_actions(state, 0)}
    assert not squares & {2, 4} and 5 in squares


def test_KC_2_two_players_alternate_colours() -> None:
    """KC-2 (2 players): each player owns two colours and alternates them when crowning."""
    state = through_setup(2)
    assert Counter(state.crowns.values()) == dict.fromkeys(("green", "blue", "pink", "teal"), 6)
    assert {c: state.owners[c] for c in state.colours} == {
        "green": 0,
        "blue": 1,
        "pink": 0,
        "teal": 1,
    }
    assert all(len(state.armies[c]) == 10 for c in state.colours)


def test_KC_2_three_players_eight_crowns_no_fourth_colour() -> None:
    """KC-2 (3 players): the fourth colour is removed; 8 crowns each."""
    state = through_setup(3)
    assert state.colours == ("green", "blue", "teal")
    assert Counter(state.crowns.values()) == {"green": 8, "blue": 8, "teal": 8}
    assert not any(COUNTERS[c].colour == "pink" for c in every_counter(state))
    assert sorted(every_counter(state)) == sorted(counters_in_play(state))
    assert state.phase == BONUS and state.square == 1


def test_KC_2_short_game_setup() -> None:
    """KC-2 short game: 2 tax markers, 3/3/3 households, crowns on squares 1-12 only."""
    state = created(4, "short")
    assert state.tax_markers == dict.fromkeys(state.colours, 2)
    assert household_counts(state.households["blue"]) == {
        "knight": 3,
        "men_at_arms": 3,
        "archers": 3,
    }
    assert len(state.bag) == 9 + 4 * 15 and state.last_square == 12
    state = crown_state(4, {}, step=0, length="short")
    assert [a["square"] for a in GAME.legal_actions(state, 0)] == list(range(1, 13))
    refused(state, seat_of(state), {"type": "place_crown", "square": 13}, "KC-2", "no square")
    for players, per_colour in ((4, 3), (3, 4), (2, 3)):
        state = through_setup(players, "short")
        assert set(Counter(state.crowns.values()).values()) == {per_colour}
        assert set(state.crowns) == set(range(1, 13))


def test_KC_2_first_turn_bonus_then_occupy_rouen() -> None:
    """KC-2: William I draws the bonus (4), then must put a unit into Rouen without attack."""
    state = through_setup(4)
    king = state.crowns[1]
    draw = GAME.legal_actions(state, seat_of(state))[-1]
    assert sum(draw["household"].values()) + draw["bag"] == 4  # William I's bonus
    state, _ = act(state, seat_of(state), draw)
    assert len(state.armies[king]) == 14 and state.phase == OCCUPY
    options = GAME.legal_actions(state, seat_of(state))
    assert {a["type"] for a in options} == {"occupy_rouen"}
    state, _ = act(state, seat_of(state), options[0])
    assert state.territories["Rouen"] == options[0]["counter"] and state.phase == ATTACKS


def test_KC_2_rouen_needs_a_royal_or_baronial_unit() -> None:
    """KC-2: enemy units and mercenaries cannot take Rouen."""
    state = position(phase=OCCUPY, army=["black-knight-1", "green-mercenary-2", "blue-archers-5"])
    assert GAME.legal_actions(state, 0) == [{"type": "occupy_rouen", "counter": "blue-archers-5"}]
    refused(state, seat_of(state), {"type": "occupy_rouen", "counter": "black-knight-1"}, "KC-2")
    refused(state, seat_of(state), {"type": "occupy_rouen", "counter": "green-mercenary-2"}, "KC-2")
    refused(state, seat_of(state), {"type": "attack", "target": "London", "counters": []}, "KC-3")
