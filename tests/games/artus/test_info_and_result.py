"""Scenarios for AR-7 (score, result), AR-8 (hidden information), AR-9 (ids, actions) and
AR-10 (public view)."""

from __future__ import annotations

import json

import pytest

from domain import engine
from domain.engine import Event
from domain.errors import BadAction
from domain.games.artus import GAME
from tests.games.artus.builder import config, make_state, started
from tests.support.play import act, refused


def test_AR_7_result_highest_score_wins_ties_share() -> None:
    state = make_state(players=4, scores=(-12, 30, 30, -40), phase="over")
    res = GAME.result(state)
    assert res["scores"] == {"0": -12, "1": 30, "2": 30, "3": -40}
    assert res["winners"] == [1, 2] and res["ranking"] == [1, 2, 0, 3]
    assert res["details"]["rules"] == "basic"
    json.dumps(res)
    negative = GAME.result(make_state(players=2, scores=(-80, -81), phase="over"))
    assert negative["winners"] == [0]


def test_AR_7_scores_are_running_totals_and_may_go_negative() -> None:
    state = make_state(knights={1: "red-k1"}, scores=(3, 0), hands={0: ["red/K1-3"]})
    state, _ = act(state, 0, {"type": "play", "card": "red/K1-3", "knight": "red-k1", "steps": 1})
    assert state.board.scores == (-12, 0)


def test_AR_8_hands_are_hidden_in_views_and_redaction() -> None:
    state, (dealt,) = started(3, "advanced")
    hands = state.hands
    for seat in range(3):
        view = GAME.view(state, seat)
        assert view["hand"] == list(hands[seat])
        text = json.dumps(view)
        others = [c for s in range(3) if s != seat for c in hands[s]]
        assert not any(c in text for c in others)
        red = GAME.redact(dealt, seat, config())
        assert red["hands"][seat] == list(hands[seat])
        assert [h is None for h in red["hands"]] == [s != seat for s in range(3)]
        assert red["hand_sizes"] == [6, 6, 6]
    spectator = GAME.redact(dealt, None, config())
    assert spectator["hands"] == [None, None, None]
    assert GAME.reveals(dealt)


def test_AR_8_others_see_the_pile_not_the_drawn_card() -> None:
    state = make_state(phase="draw", draws_left=1, piles={0: {"king": ["red/RS", "red/RB"]}})
    state, (drawn,) = act(state, 0, {"type": "draw", "pile": "king"})
    assert drawn.type == "CardDrawn" and drawn.seat == 0
    assert GAME.redact(drawn, 0, config()) == {"pile": "king", "card": drawn.data["card"]}
    assert GAME.redact(drawn, 1, config()) == {"pile": "king"}
    assert GAME.redact(drawn, None, config()) == {"pile": "king"}
    assert GAME.reveals(drawn)
    view = GAME.view(state, 1)
    assert view["piles"][0] == {"knight": 0, "king": 1} and view["hand_sizes"] == [1, 0]
    assert drawn.data["card"] not in json.dumps(view)
    placed = Event("KnightPlaced", 0, {"seat": 3, "knight": "red-k1"})
    assert not GAME.reveals(placed) and GAME.redact(placed, 1, config()) == placed.data


def test_AR_9_ids_and_declared_actions() -> None:
    assert set(GAME.actions) == {"place_knight", "play", "draw"}
    assert GAME.actions["draw"]["pile"].choices == ("knight", "king", "scoring")
    assert GAME.options == {"rules": ("basic", "advanced")}
    state, _ = started(4)
    assert all(
        c.startswith(("red/", "yellow/", "green/", "blue/")[s])
        for s, h in enumerate(state.hands)
        for c in h
    )
    state, (e,) = act(state, 3, {"type": "place_knight", "seat": 1})
    assert e.data == {"seat": 1, "knight": "blue-k1"}
    state, (e,) = act(state, 2, {"type": "place_knight", "seat": 2})
    assert e.data["knight"] == "green-k1"


def test_AR_9_fields_each_card_needs() -> None:
    state = make_state(knights={10: "red-k1"}, hands={0: ["red/K3-6", "red/RS", "red/M1-7S"]})
    refused(state, 0, {"type": "play", "card": "red/K3-6", "knight": "red-k1"}, "AR-9")  # steps
    refused(state, 0, {"type": "play", "card": "red/K3-6", "steps": 3}, "AR-9")
    refused(
        state,
        0,
        {"type": "play", "card": "red/K3-6", "knight": "red-k1", "steps": 3, "prince": "silver-2"},
        "AR-9",
    )
    refused(state, 0, {"type": "play", "card": "red/RS"}, "AR-9")
    refused(state, 0, {"type": "play", "card": "red/M1-7S", "knight": "red-k1", "steps": 3}, "AR-9")
    refused(state, 0, {"type": "play", "card": "red/X"}, "AR-9")
    refused(state, 0, {"type": "play", "card": "K3-6"}, "AR-9")
    # The engine's shape check runs first: unknown fields and bad types never reach the rules.
    match = engine.Match(engine.Config("artus", {}, ()), state, 5)
    with pytest.raises(BadAction):
        engine.check_shape(GAME, {"type": "play", "card": "red/K3-6", "speed": 3})
    with pytest.raises(BadAction):
        engine.check_shape(GAME, {"type": "draw", "pile": "discard"})
    assert match.status(GAME) == engine.ACTIVE


def test_AR_10_public_view_and_spectators() -> None:
    state, _ = started(2, "advanced")
    view = GAME.view(state, 1)
    for key in (
        "seats", "king", "rings", "values", "carpet", "scores", "hand_sizes", "piles",
        "played", "round", "phase", "to_act", "hand",
    ):  # fmt: skip
        assert key in view, key
    assert len(view["seats"]) == len(view["values"]) == 29
    assert view["phase"] == "placement" and view["to_act"] == [1] and view["round"] == 0
    assert view["scores"] == [0, 0] and view["hand_sizes"] == [6, 6]
    assert view["piles"] == [{"knight": 5, "king": 5, "scoring": 6}] * 2
    spectator = GAME.view(state, None)
    assert "hand" not in spectator and spectator["seat"] is None
    json.dumps(view)
    full = GAME.full_view(state)
    assert full["hands"] == [list(h) for h in state.hands]
    assert full["pile_cards"][0]["scoring"] == sorted(
        f"red/{c}" for c in ("S-all", "S-neg", "S-gyr", "S-carpet", "S-red", "S-choice")
    )
    over = make_state(phase="over")
    assert GAME.view(over, 0)["phase"] == "over" and GAME.view(over, 0)["to_act"] == []
