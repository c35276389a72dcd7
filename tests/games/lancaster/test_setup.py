"""LA-1: components and set-up."""

from __future__ import annotations

import pytest

from domain import engine
from domain.games.lancaster import GAME
from domain.games.lancaster.data import LAW_GROUPS
from domain.rng import Rng
from tests.games.lancaster.helpers import config, started
from tests.support.play import act, refused


@pytest.mark.parametrize(
    ("n", "nobles", "removed", "favours"),
    [(2, 2, {2, 10}, 6), (3, 2, {9, 10}, 5), (4, 3, {2, 10}, 6), (5, 4, {2, 3}, 6)],
)
def test_LA_1_setup_by_player_count(n: int, nobles: int, removed: set, favours: int) -> None:
    events = engine.create(GAME, config(n), Rng.at("seed", 1))
    match = engine.fold(GAME, events)
    s = match.state
    setup = events[1]
    assert setup.type == "GameSetUp" and GAME.reveals(setup)
    # laws: group 0 is on top, 3 current then 3 under debate
    assert set(s.current) | set(s.debate) == set(LAW_GROUPS[0])
    assert len(s.current) == len(s.debate) == 3
    assert s.law_deck[0] == () and s.law_deck[1:] == LAW_GROUPS[1:]
    # conflicts: the removed cards are out, 2 face up in the upper row
    assert len(s.upper) == 2 and not s.lower
    laid = {c.n for c in s.upper}
    assert not (laid | set(s.conflict_deck)) & removed
    assert len(s.conflict_deck) == 12 - 2 - 2
    assert len(s.favour_up) == favours
    if n == 3:
        assert "upgrade-1" not in s.favour_up
    assert set(s.noble_stock.values()) == {nobles}
    for _seat, p in enumerate(s.players):
        assert (p.gold, p.squires, p.markers, p.power) == (2, 2, 1, 0)
        assert sorted(k for k in s.court if k.startswith(p.colour + "-")) == [
            f"{p.colour}-1a",
            f"{p.colour}-2a",
        ]
        assert len([k for k in s.reserve if k.startswith(p.colour + "-")]) == 5
        assert p.built == frozenset()
        assert (p.ally is not None) == (n == 2)
    assert s.start == 0
    assert GAME.to_act(s) == tuple(range(n))  # every player builds a start extension


def test_LA_1_start_extension_once_then_placement_from_seat_0() -> None:
    s = GAME.initial(config(3))
    s = GAME.evolve(
        s,
        engine.Event(
            "GameSetUp",
            None,
            {
                "current": ["L1", "L2", "L3"],
                "debate": ["L4", "L5", "L6"],
                "conflicts": [1, 4],
                "removed_conflicts": [9, 10],
                "favours": sorted(s.favour_up),
            },
        ),
    )
    s, _ = act(s, 1, {"type": "build_start_extension", "space": "treasury"})
    refused(s, 1, {"type": "build_start_extension", "space": "chapel"}, "LA-1")
    assert GAME.to_act(s) == (0, 2)
    s, _ = act(s, 0, {"type": "build_start_extension", "space": "chapel"})
    s, _ = act(s, 2, {"type": "build_start_extension", "space": "council"})
    assert s.players[1].built == {"treasury"}
    assert s.phase == "placement" and GAME.to_act(s) == (0,)
    # the other 5 extension tiles are the face-down pile: only its size is shown
    v = GAME.view(s, 1)
    assert v["players"][1]["extension_pile"] == 5


def test_LA_1_start_extension_space_must_exist() -> None:
    s = GAME.initial(config(2))
    s = GAME.evolve(
        s,
        engine.Event(
            "GameSetUp",
            None,
            {
                "current": ["L1", "L2", "L3"],
                "debate": ["L4", "L5", "L6"],
                "conflicts": [1, 4],
                "removed_conflicts": [2, 10],
                "favours": sorted(s.favour_up),
            },
        ),
    )
    refused(s, 0, {"type": "build_start_extension", "space": "moat"}, "LA-1")


def test_LA_1_knight_names_and_allies() -> None:
    s = started(2)
    assert s.players[0].ally == "green" and s.players[1].ally == "yellow"
    assert "green-2a" in s.court and "green-1a" in s.reserve
    assert set(s.court) == {
        "red-1a",
        "red-2a",
        "blue-1a",
        "blue-2a",
        "green-2a",
        "yellow-2a",
    }
