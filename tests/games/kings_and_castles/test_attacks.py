"""KC-5 attacks, KC-6 mercenaries, KC-7 castles, from hand-made positions.

Square 1 (William I) mandates England, square 2 Scotland; green is the King unless stated.
Territories not named are empty.
"""

from __future__ import annotations

from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.events import CASTLES, TAX
from domain.games.kings_and_castles.state import defence
from tests.games.kings_and_castles.builder import (
    attack,
    counters_in_play,
    every_counter,
    position,
    seat_of,
)
from tests.support.play import act, refused

CONTESTED = {"London": "black-knight-1", "Canterbury": "blue-archers-1", "York": "black-archers-1"}


def targets(state, colour: str | None = None) -> set[str]:
    """Targets of the legal attacks (by units of ``colour`` if given)."""
    return {
        a["target"]
        for a in GAME.legal_actions(state, GAME.to_act(state)[0])
        if a["type"] == "attack"
        and (colour is None or any(c.startswith(colour + "-") for c in a["counters"]))
    }


def attack_sets(state, target: str) -> list[list[str]]:
    return sorted(
        a["counters"]
        for a in GAME.legal_actions(state, GAME.to_act(state)[0])
        if a["type"] == "attack" and a["target"] == target
    )


def test_KC_5_1_points_must_exceed_defence() -> None:
    """KC-5.1: attack points must exceed the defence (3 against a knight is not enough)."""
    state = position(army=["green-knight-1", "green-archers-1"], holders=CONTESTED)
    refused(state, seat_of(state), attack("London", "green-knight-1"), "KC-5.1", "do not exceed")
    after, _ = act(state, seat_of(state), attack("London", "green-knight-1", "green-archers-1"))
    assert after.territories["London"] == "green-knight-1"


def test_KC_5_1_units_of_one_colour_plus_any_mercenaries() -> None:
    """KC-5.1: all attacking units of one colour; mercenaries of any colour may join."""
    army = ["green-knight-1", "blue-archers-5", "teal-mercenary-1", "pink-mercenary-1"]
    state = position(army=army, holders=CONTESTED)
    refused(
        state,
        seat_of(state),
        attack("London", "green-knight-1", "blue-archers-5"),
        "KC-5.1",
        "one colour",
    )
    refused(
        state,
        seat_of(state),
        attack("London", "green-knight-2"),
        "KC-5.1",
        "not in the King's army",
    )
    refused(
        state,
        seat_of(state),
        attack("London", "green-knight-1", "green-knight-1"),
        "KC-5.1",
        "twice",
    )
    refused(state, seat_of(state), attack("Nowhere", "green-knight-1"), "KC-5.1", "unknown")
    after, _ = act(state, seat_of(state), attack("London", "green-knight-1", "teal-mercenary-1"))
    assert after.territories["London"] == "green-knight-1"
    # mercenaries of different colours are distinct counters: both sets are listed
    assert attack_sets(state, "London") == [
        ["green-knight-1", "pink-mercenary-1"],
        ["green-knight-1", "teal-mercenary-1"],
    ]


def test_KC_5_2_surplus_refused() -> None:
    """KC-5.2: against defence 3, K+A+A is refused (K+A suffices); K+K and K+A are legal."""
    army = ["green-knight-1", "green-knight-2", "green-archers-1", "green-archers-2"]
    state = position(army=army, holders=CONTESTED)
    refused(
        state,
        seat_of(state),
        attack("London", "green-knight-1", "green-archers-1", "green-archers-2"),
        "KC-5.2",
        "green-archers-1 is surplus",
    )
    assert attack_sets(state, "London") == [
        ["green-knight-1", "green-archers-1"],
        ["green-knight-1", "green-knight-2"],
    ]
    act(state, seat_of(state), attack("London", "green-knight-1", "green-knight-2"))
    act(state, seat_of(state), attack("London", "green-archers-2", "green-knight-2"))


def test_KC_5_2_surplus_mercenary_and_the_only_unit() -> None:
    """KC-5.2: a mercenary can be surplus; the only unit never is (an attack needs a unit)."""
    state = position(
        army=["green-knight-1", "green-archers-1", "green-mercenary-3"],
        holders={**CONTESTED, "Winchester": "black-archers-2"},
    )
    refused(
        state,
        seat_of(state),
        attack("Winchester", "green-knight-1", "green-mercenary-3"),
        "KC-5.2",
        "mercenary",
    )
    act(
        state, seat_of(state), attack("London", "green-archers-1", "green-mercenary-3")
    )  # 4 > 3, nothing spare


def test_KC_5_3_capture_destroys_defender_castle_and_all_but_one_attacker() -> None:
    """KC-5.3: defender and castle destroyed; one highest-value attacker stays, the rest go."""
    holders = {"London": "blue-knight-1", "Canterbury": "green-archers-1"}  # peaceful England
    army = ["green-knight-1", "green-knight-2", "green-men_at_arms-1", "teal-mercenary-1"]
    state = position(army=army, holders=holders, castles={"London": "blue-castle-2"})
    assert defence(state, "London") == 5
    refused(
        state, seat_of(state), attack("London", "green-knight-1", "green-men_at_arms-1"), "KC-5.1"
    )
    twice, (event,) = act(
        state, seat_of(state), attack("London", "green-knight-2", "green-knight-1")
    )
    assert event.data["stays"] == "green-knight-1" and "green-knight-2" in twice.destroyed
    used = ["green-men_at_arms-1", "teal-mercenary-1", "green-knight-2"]
    after, (event,) = act(state, seat_of(state), attack("London", *used))
    assert event.data["stays"] == "green-knight-2"
    assert after.territories["London"] == "green-knight-2"
    assert "London" not in after.castles
    assert after.destroyed == {
        "green-men_at_arms-1",
        "teal-mercenary-1",
        "blue-knight-1",
        "blue-castle-2",
    }
    assert after.armies["green"] == {"green-knight-1"}
    assert after.countries_attacked == ("England",)
    assert sorted(every_counter(after)) == sorted(counters_in_play(after))


def test_KC_5_4_royal_units_only_in_the_mandated_country() -> None:
    """KC-5.4: royal units attack only the square's country."""
    holders = {**CONTESTED, "Berwick": "black-archers-2"}  # Berwick: a gate, no player there
    state = position(army=["green-knight-1", "green-archers-1"], holders=holders)
    refused(state, seat_of(state), attack("Berwick", "green-knight-1"), "KC-5.4", "only England")
    assert targets(state) == {"London"}


def test_KC_5_4_second_other_country_refused() -> None:
    """KC-5.4: baronial and enemy units attack at most one other country, fixed by the first."""
    holders = {
        **CONTESTED,
        "Berwick": "black-archers-2",
        "Llandaff": "black-archers-3",
        "Pembroke": "teal-archers-1",
    }
    army = ["blue-knight-5", "blue-knight-6", "blue-archers-5", "black-knight-2"]
    state = position(army=army, holders=holders)
    assert {"Berwick", "Llandaff", "Pembroke", "London"} <= targets(state)
    state, _ = act(state, seat_of(state), attack("Berwick", "blue-knight-5"))
    assert state.other_country == "Scotland"
    refused(
        state, seat_of(state), attack("Llandaff", "blue-knight-6"), "KC-5.4", "already Scotland"
    )
    refused(
        state, seat_of(state), attack("Pembroke", "black-knight-2"), "KC-5.4", "already Scotland"
    )
    assert targets(state) == {"London", "Canterbury"}  # England: the square's country
    state, _ = act(state, seat_of(state), attack("London", "blue-knight-6", "blue-archers-5"))
    assert state.countries_attacked == ("Scotland", "England")


def test_KC_5_5_contested_target_must_neighbour_a_player_unit() -> None:
    """KC-5.5: in a contested country, only enemy-held territories next to a player unit."""
    state = position(army=["green-knight-1", "green-knight-2"], holders=CONTESTED)
    refused(
        state, seat_of(state), attack("York", "green-knight-1"), "KC-5.5", "not adjacent"
    )  # York is a port
    refused(state, seat_of(state), attack("Canterbury", "green-knight-1"), "KC-5.5", "enemy-held")
    assert targets(state) == {"London"}


def test_KC_5_5_invasion_through_port_or_gate_when_no_player_unit() -> None:
    """KC-5.5: if no player holds a territory there, only a port/gate may be attacked."""
    holders = {
        "London": "black-knight-1",
        "Lincoln": "black-archers-1",
        "Canterbury": "black-archers-2",
        "Chester": "black-archers-3",
    }
    state = position(army=["green-knight-1"], holders=holders)
    refused(state, seat_of(state), attack("Lincoln", "green-knight-1"), "KC-5.5", "port or gate")
    assert targets(state) == {"Canterbury", "Chester"}
    state, _ = act(state, seat_of(state), attack("Chester", "green-knight-1"))
    assert state.territories["Chester"] == "green-knight-1"


def test_KC_5_5_king_uses_enemy_units_next_to_enemy_held_territory() -> None:
    """KC-5.5: enemy units attack a royal/baronial territory next to another enemy territory."""
    holders = {
        "London": "black-knight-1",
        "Canterbury": "blue-archers-1",
        "Durham": "teal-archers-1",
        "York": "green-archers-1",
        "Chester": "black-archers-2",
    }
    state = position(army=["black-men_at_arms-1"], holders=holders)
    refused(
        state,
        seat_of(state),
        attack("Durham", "black-men_at_arms-1"),
        "KC-5.5",
        "another enemy-held",
    )
    refused(
        state, seat_of(state), attack("London", "black-men_at_arms-1"), "KC-5.5", "player colour"
    )
    assert targets(state) == {"Canterbury", "York"}  # royal-held York too
    state, _ = act(state, seat_of(state), attack("Canterbury", "black-men_at_arms-1"))
    assert state.territories["Canterbury"] == "black-men_at_arms-1"
    assert state.other_country is None  # England is the square's country


def test_KC_5_6_civil_war_needs_a_neighbour_of_the_attacking_colour() -> None:
    """KC-5.6: peaceful country: attack another colour next to one's own territory."""
    holders = {
        "Winchester": "green-archers-1",
        "London": "teal-archers-1",
        "Canterbury": "blue-archers-1",
        "York": "blue-archers-2",
    }
    state = position(army=["green-knight-1"], holders=holders)
    refused(
        state, seat_of(state), attack("York", "green-knight-1"), "KC-5.6", "no territory adjacent"
    )
    refused(
        state, seat_of(state), attack("Winchester", "green-knight-1"), "KC-5.6", "held by green"
    )
    assert targets(state) == {"London", "Canterbury"}
    state, _ = act(state, seat_of(state), attack("London", "green-knight-1"))
    assert state.territories["London"] == "green-knight-1"


def test_KC_5_6_colour_holding_nothing_invades_by_port_or_gate() -> None:
    """KC-5.6: a colour that holds nothing in a peaceful country enters by port or gate."""
    holders = {"Lincoln": "teal-archers-2", "Bristol": "teal-archers-3", "London": "blue-knight-1"}
    state = position(army=["pink-knight-5"], holders=holders)
    refused(state, seat_of(state), attack("Lincoln", "pink-knight-5"), "KC-5.6", "port or gate")
    assert targets(state) == {"Bristol"}


def test_KC_5_6_enemy_invasion_only_through_flags_never_england() -> None:
    """KC-5.6: enemy units invade a peaceful country only by a flag; England has none."""
    england = {"London": "teal-archers-1", "Canterbury": "blue-archers-1"}
    state = position(army=["black-knight-2"], holders=england)
    refused(state, seat_of(state), attack("London", "black-knight-2"), "KC-5.6", "flag")
    assert targets(state) == set()
    scotland = {
        "Berwick": "blue-archers-1",
        "Dumfries": "blue-archers-2",
        "Edinburgh": "teal-archers-1",
        "Stirling": "teal-archers-2",
        "Perth": "pink-archers-1",
        "Inverness": "pink-archers-2",
    }
    army = ["black-knight-2", "green-knight-1", "green-archers-1"]
    state = position(square=2, army=army, holders=scotland)
    refused(state, seat_of(state), attack("Stirling", "black-knight-2"), "KC-5.6", "flag")
    assert targets(state, "black") == {"Perth", "Inverness"}
    assert "Edinburgh" in targets(state, "green")  # civil war while peaceful (port)
    state, _ = act(state, seat_of(state), attack("Perth", "black-knight-2"))
    # now contested: royal units attack only enemy-held territories next to a player unit
    refused(state, seat_of(state), attack("Edinburgh", "green-knight-1"), "KC-5.5", "enemy-held")
    assert targets(state, "green") == {"Perth"}


def test_KC_6_mercenaries_alone_cannot_attack() -> None:
    """KC-6: an attack always needs a unit; mercenaries add points and are destroyed."""
    army = ["green-mercenary-3", "teal-mercenary-2", "green-archers-1", "black-archers-2"]
    state = position(army=army, holders=CONTESTED)
    refused(
        state, seat_of(state), attack("London", "green-mercenary-3", "teal-mercenary-2"), "KC-6"
    )
    after, _ = act(state, seat_of(state), attack("London", "green-archers-1", "green-mercenary-3"))
    assert after.territories["London"] == "green-archers-1"
    assert "green-mercenary-3" in after.destroyed
    # mercenaries help enemy units too
    holders = {"London": "black-knight-1", "Canterbury": "blue-men_at_arms-1"}
    state = position(army=army, holders=holders)
    act(state, seat_of(state), attack("Canterbury", "black-archers-2", "teal-mercenary-2"))


def test_KC_7_castles_placed_on_player_territories_add_defence() -> None:
    """KC-7: a castle from the army goes on a player-held territory without one."""
    holders = {
        "London": "blue-archers-1",
        "Canterbury": "black-archers-1",
        "York": "green-knight-1",
    }
    army = ["green-castle-2", "blue-castle-1", "green-knight-2"]
    state = position(phase=CASTLES, army=army, holders=holders, castles={"York": "teal-castle-3"})
    actions = GAME.legal_actions(state, 0)
    assert {(a.get("counter"), a.get("territory")) for a in actions} == {
        ("blue-castle-1", "London"),
        ("green-castle-2", "London"),
        (None, None),
    }
    place = {"type": "place_castle", "counter": "green-castle-2"}
    refused(
        state, seat_of(state), {**place, "territory": "Canterbury"}, "KC-7", "royal or baronial"
    )
    refused(state, seat_of(state), {**place, "territory": "York"}, "KC-7", "castle")
    refused(
        state, seat_of(state), {**place, "counter": "green-knight-2", "territory": "London"}, "KC-7"
    )
    after, events = act(state, seat_of(state), {**place, "territory": "London"})
    assert after.castles["London"] == "green-castle-2" and defence(after, "London") == 3
    # no territory left for the other castle: the castle phase ends by itself
    assert [e.type for e in events] == ["CastlePlaced", "CastlesEnded"]
    assert events[1].data["auto"] and after.phase == TAX


def test_KC_7_castles_never_attack() -> None:
    """KC-7: a castle adds to defence only; it cannot join an attack."""
    state = position(army=["green-knight-1", "green-castle-1"], holders=CONTESTED)
    refused(
        state,
        seat_of(state),
        attack("London", "green-knight-1", "green-castle-1"),
        "KC-7",
        "never attack",
    )


def test_KC_5_7_counters_destroyed_only_by_attacks() -> None:
    """KC-5.7: only attacks destroy counters (used attackers, beaten defenders and castles)."""
    army = ["green-knight-1", "green-archers-1", "green-castle-3", "teal-mercenary-2"]
    state = position(army=army, holders=CONTESTED)
    state, _ = act(state, seat_of(state), attack("London", "green-knight-1", "green-archers-1"))
    assert state.destroyed == {"green-archers-1", "black-knight-1"}
    for action in (
        {"type": "end_attacks"},
        {"type": "place_castle", "counter": "green-castle-3", "territory": "London"},
        {"type": "tax"},
        {"type": "refill", "household": {"knight": 3}, "bag": 6},
    ):
        state, _ = act(state, seat_of(state), action)
        assert state.destroyed == {"green-archers-1", "black-knight-1"}
    assert state.phase == "bonus" and "teal-mercenary-2" in state.armies["green"]
