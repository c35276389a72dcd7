"""Issue 13's readings of the seed (rules version 2), and version 1 kept for old logs.

Hand-made positions: square 1 (William I) mandates England; green is the King unless stated.
KC-3/KC-1: the King must attack the square's country; KC-2.6: William I puts a royal unit into
Rouen; KC-4: the destroyed counters go back into the bag the moment it is empty.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import pytest

from domain import engine, simulate
from domain.engine import Config, Player
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.bots import greedy_bot
from domain.games.kings_and_castles.events import BONUS, OCCUPY, TAX
from domain.games.kings_and_castles.rules import must_attack
from domain.games.kings_and_castles.state import RULES_VERSION, State
from domain.rng import Rng
from projections.fold import from_snapshot, snapshot_blob
from projections.replay import replay
from tests.games.kings_and_castles.builder import (
    attack,
    config,
    position,
    recorded,
    rng,
    seat_of,
    v1_steps,
)
from tests.support.play import act, refused

END = {"type": "end_attacks"}
# England contested: London (knight 3) and York (archers 1) held by the enemy, France by the enemy.
HOLDERS = {"London": "black-knight-1", "York": "black-archers-1", "Calais": "black-archers-9"}

NO_YORK = {t: h for t, h in HOLDERS.items() if t != "York"}


def v1(state: State) -> State:
    return replace(state, rules_version=1)


def listed(state: State) -> list[dict[str, Any]]:
    return GAME.legal_actions(state, GAME.to_act(state)[0])


def test_new_games_are_created_under_the_current_rules() -> None:
    cfg = Config(GAME.id, {"length": "short"}, (Player("a"), Player("b")))
    events = engine.create(GAME, cfg, Rng.at("s", 1))
    assert RULES_VERSION == 2 and events[0].data["rules_version"] == 2
    match = engine.fold(GAME, events)
    assert match.config.rules_version == 2 and match.state.rules_version == 2
    # a snapshot keeps the version (config and state)
    restored = from_snapshot(GAME, snapshot_blob(GAME, match, "h"))
    assert restored is not None and restored[0] == match


def test_KC_3_king_cannot_end_attacks_before_attacking_the_square_country() -> None:
    """KC-3/KC-1: end_attacks is refused while an attack on England is legal and none was made."""
    army = ["green-knight-1", "green-knight-2", "green-archers-1", "blue-knight-5"]
    state = position(army=army, holders=HOLDERS)
    assert END not in listed(state)
    assert any(a["target"] == "York" for a in listed(state))
    refused(state, seat_of(state), END, "KC-3", "must attack England")
    # an attack on the other country (France, by a baronial unit) does not count ...
    state, _ = act(state, seat_of(state), attack("Calais", "blue-knight-5"))
    assert END not in listed(state)
    refused(state, seat_of(state), END, "KC-3", "must attack England")
    # ... one on England does
    state, _ = act(state, seat_of(state), attack("York", "green-knight-1"))
    assert END in listed(state)
    state, events = act(state, seat_of(state), END)
    assert events[0].type == "AttacksEnded"


def test_KC_3_king_may_end_attacks_when_no_attack_on_the_country_is_legal() -> None:
    """KC-3: archers cannot beat London's knight and no other English territory is held."""
    state = position(army=["green-archers-1", "blue-knight-5"], holders=NO_YORK)
    assert must_attack(state) is None
    assert END in listed(state)
    assert [a["target"] for a in listed(state) if a["type"] == "attack"] == ["Calais"]
    _, events = act(state, seat_of(state), END)
    assert events[0].type == "AttacksEnded"


def test_KC_3_greedy_bot_makes_its_best_attack_on_the_square_country() -> None:
    """KC-3: greedy would end at once (only an opponent's colour can attack), but must attack."""
    state = position(army=["blue-knight-5", "blue-archers-5"], holders=HOLDERS)
    actions = listed(state)
    assert END not in actions
    choice = greedy_bot(GAME.view(state, 0), actions, rng())
    assert choice in actions and choice["target"] in ("York", "London")
    act(state, seat_of(state), choice)


def test_KC_2_6_rouen_refuses_a_baronial_unit_while_the_army_holds_a_royal_one() -> None:
    """KC-2.6: William I gains Rouen, so the unit is of the King's colour."""
    state = position(phase=OCCUPY, army=["green-archers-1", "blue-knight-5", "green-knight-1"])
    offered = [a["counter"] for a in listed(state)]
    assert offered == ["green-knight-1", "green-archers-1"]
    refused(
        state,
        seat_of(state),
        {"type": "occupy_rouen", "counter": "blue-knight-5"},
        "KC-2.6",
        "green unit",
    )
    after, _ = act(state, seat_of(state), {"type": "occupy_rouen", "counter": "green-archers-1"})
    assert after.territories["Rouen"] == "green-archers-1"


def test_KC_2_6_rouen_takes_any_player_unit_when_the_army_holds_no_royal_one() -> None:
    state = position(phase=OCCUPY, army=["blue-knight-5", "teal-archers-5", "green-mercenary-1"])
    assert [a["counter"] for a in listed(state)] == ["blue-knight-5", "teal-archers-5"]
    after, _ = act(state, seat_of(state), {"type": "occupy_rouen", "counter": "teal-archers-5"})
    assert after.territories["Rouen"] == "teal-archers-5"


def test_KC_4_a_draw_that_empties_the_bag_refills_it_at_once() -> None:
    """KC-4: the bag emptied exactly by a draw takes the destroyed counters back right away."""
    bag, destroyed = ["black-archers-16", "black-archers-15"], ["green-knight-5", "blue-knight-5"]
    state = position(square=2, king="blue", phase=BONUS, bag=bag, destroyed=destroyed)
    after, events = act(state, seat_of(state), {"type": "draw", "household": {}, "bag": 2})
    assert [e.type for e in events] == ["CountersDrawn", "BagRefilled"]
    assert events[0].data["refill_at"] is None
    assert events[1].type == "BagRefilled" and events[1].seat is None
    assert sorted(events[1].data["returned"]) == sorted(destroyed)
    assert after.bag == frozenset(destroyed) and not after.destroyed
    assert not GAME.reveals(events[1]) and GAME.redact(events[1], None, config()) == events[1].data
    # version 1: they wait beside the map for the next draw that needs them
    after, events = act(v1(state), 1, {"type": "draw", "household": {}, "bag": 2})
    assert [e.type for e in events] == ["CountersDrawn"]
    assert not after.bag and after.destroyed == frozenset(destroyed)


def test_KC_4_counters_destroyed_while_the_bag_is_empty_go_back_at_once() -> None:
    state = position(army=["green-knight-1"], holders=HOLDERS, bag=[])
    after, events = act(state, seat_of(state), attack("York", "green-knight-1"))
    assert [e.type for e in events] == ["TerritoryCaptured", "BagRefilled"]
    assert after.bag == {"black-archers-1"} and not after.destroyed
    after, events = act(v1(state), 0, attack("York", "green-knight-1"))
    assert [e.type for e in events] == ["TerritoryCaptured"] and not after.bag


def test_rules_v1_positions_keep_the_old_readings() -> None:
    """Version 1 (games created before issue 13): end at once, any player unit into Rouen."""
    state = v1(position(army=["green-knight-1", "green-archers-1"], holders=HOLDERS))
    assert END in listed(state)
    act(state, seat_of(state), END)
    state = v1(position(phase=OCCUPY, army=["green-archers-1", "blue-knight-5"]))
    assert "blue-knight-5" in [a["counter"] for a in listed(state)]
    act(state, seat_of(state), {"type": "occupy_rouen", "counter": "blue-knight-5"})


VARIANTS = list(itertools.product((2, 3, 4), ("short", "full")))


@pytest.mark.parametrize(("players", "length"), VARIANTS)
def test_KC_3_random_play_never_stalls_over_many_seeds(players: int, length: str) -> None:
    """The must-attack rule cannot stall a game: 30 random games per variant reach the end."""
    cfg = Config(GAME.id, {"length": length}, tuple(Player(f"p{i}") for i in range(players)))
    forced = 0
    for n in range(30):
        steps = list(simulate.playthrough(GAME, cfg, f"stall-{n}", max_steps=5_000))
        assert steps[-1].match.result is not None
        for before, step in itertools.pairwise(steps[:-1]):
            if step.action and step.action["type"] == "attack" and must_attack(before.match.state):
                forced += 1
    assert forced > 0  # the rule was in force in these games


@pytest.mark.parametrize("players", [2, 3, 4])
def test_KC_3_greedy_bots_finish_every_variant_over_many_seeds(players: int) -> None:
    cfg = Config(GAME.id, {"length": "short"}, tuple(Player(f"b{i}", "greedy") for i in range(4)))
    cfg = replace(cfg, players=cfg.players[:players])
    for n in range(10):
        steps = list(simulate.playthrough(GAME, cfg, f"g-{n}", simulate.bot_chooser, 5_000))
        assert steps[-1].match.result is not None


def test_rules_v1_log_still_loads_and_replays() -> None:
    """A log recorded under version 1 that breaks version 2 replays (import) and folds (load)."""
    seed = "old-log"
    steps = v1_steps(seed)
    assert "rules_version" not in steps[0].events[0].data  # as stored before versions existed
    broken = [
        step.action
        for before, step in itertools.pairwise(steps[:-1])
        if step.action == END and must_attack(replace(before.match.state, rules_version=2))
    ]
    assert broken, "the old log ends attacks where version 2 would refuse"
    records = recorded(seed, steps)
    final = steps[-1].match
    assert replay(GAME, seed, records) == final
    assert engine.fold(GAME, [r.event for r in records]) == final
    assert final.config.rules_version == 1 and final.state.rules_version == 1


def test_KC_8_tax_redaction_reads_the_seats_from_the_config_old_events_keep_theirs() -> None:
    """``TaxCollected`` no longer carries ``seats``; version 1 events still do, and both are
    redacted from the config (a 2-player seat owns two colours)."""
    holders = {"London": "green-archers-5", "York": "teal-archers-5", "Rouen": "pink-archers-5"}
    state = position(players=2, phase=TAX, holders=holders)
    _, (new, *_) = act(state, 0, {"type": "tax"})
    _, (old, *_) = act(v1(state), 0, {"type": "tax"})
    assert "seats" not in new.data and old.data["seats"] == dict(state.owners)
    cfg = config(2)
    for event in (new, old):
        assert GAME.redact(event, 0, cfg)["amounts"] == {"green": 6, "pink": 2}
        assert GAME.redact(event, 1, cfg)["amounts"] == {"blue": 0, "teal": 2}
        assert GAME.redact(event, None, cfg)["amounts"] == {}
