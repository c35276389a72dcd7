"""Whole games through the engine (random and bot play) with invariants at every step, the
snapshot codec, replay from JSON, and the legal-action property test."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import codec, engine, simulate
from domain.engine import Event, Match
from domain.errors import IllegalAction
from domain.games.artus import GAME
from domain.games.artus.data import CARDS, COLOURS, PRINCES, split_card
from domain.games.artus.state import State
from domain.rng import Rng
from tests.games.artus.builder import RNG, config, make_state

CONFIGS = [(rules, n) for rules in ("basic", "advanced") for n in (2, 3, 4)]
DECK = {"basic": 16, "advanced": 22}


def check_invariants(state: State) -> None:
    b = state.board
    figures = [f for f in b.seats if f is not None]
    assert len(figures) == len(set(figures)), "a figure on two seats"
    assert set(PRINCES) <= set(figures)
    if state.phase not in ("setup", "placement"):
        assert len(figures) == 4 + state.players * (5 if state.players < 4 else 4)
    assert sum(b.rings.values()) + b.supply() == 10 and b.supply() >= 1
    assert b.rings[b.king] == 3 and all(1 <= b.rings[p] <= 2 for p in b.princes())
    for s in range(state.players):
        played = sum(1 for c in state.played if c.startswith(f"{COLOURS[s]}/"))
        left = sum(len(p) for p in state.piles[s].values())
        assert len(state.hands[s]) + left + played == DECK[state.rules]
        if (
            state.phase == "play"
            and s == state.turn
            and left
            and state.plays_left == (2 if state.rules == "advanced" else 1)
        ):
            assert len(state.hands[s]) == (6 if state.rules == "advanced" else 4)
    for s in [*range(state.players), None]:
        text = json.dumps(GAME.view(state, s))
        hidden = [c for o in range(state.players) if o != s for c in state.hands[o]]
        hidden += [c for own in state.piles for p in own.values() for c in p]
        assert not any(f'"{c}"' in text for c in hidden), f"leak to seat {s}"
    assert codec.decode(State, json.loads(json.dumps(codec.encode(state)))) == state


@pytest.mark.parametrize(("rules", "n"), CONFIGS)
@pytest.mark.parametrize("seed", ["alpha", "beta"])
def test_random_playthrough_keeps_invariants(rules: str, n: int, seed: str) -> None:
    events: list[Event] = []
    last = None
    for step in simulate.playthrough(GAME, config(n, rules), f"{seed}-{rules}-{n}"):
        events += step.events
        check_invariants(step.match.state)
        for e in step.events:
            json.dumps(e.data)
            for s in [*range(n), None]:
                red = json.dumps(GAME.redact(e, s, config(n, rules)))
                if e.type == "CardDrawn" and s != e.seat:
                    assert e.data["card"] not in red
        last = step.match
    assert last is not None and last.result is not None
    state = last.state
    assert state.phase == "over" and state.round == (16 if rules == "basic" else 11)
    assert len(state.played) == n * DECK[rules] and not any(state.hands)
    assert sorted(last.result["winners"]) == last.result["winners"]
    # Replay from stored JSON gives the same state.
    stored = [Event(e.type, e.seat, json.loads(json.dumps(e.data))) for e in events]
    assert engine.fold(GAME, stored).state == state


def test_codec_round_trips_the_state() -> None:
    for rules, n in CONFIGS:
        for i, step in enumerate(simulate.playthrough(GAME, config(n, rules), "codec")):
            if i % 7 == 0 or step.match.result is not None:
                state = step.match.state
                data = json.loads(json.dumps(codec.encode(state)))
                back = codec.decode(GAME.state_type, data)
                assert back == state and type(back.board.seats) is tuple
                assert GAME.legal_actions(back, 0) == GAME.legal_actions(state, 0)


def test_greedy_bots_finish_and_pick_legal_actions() -> None:
    """Greedy bots finish every variant with listed actions (their speed: bench/bots.py)."""

    def chooser(
        game: Any, match: Match, seat: int, actions: list[dict[str, Any]], rng: Rng
    ) -> dict[str, Any]:
        action = simulate.bot_chooser(game, match, seat, actions, rng)
        assert action in actions
        return action

    for rules in ("basic", "advanced"):
        cfg = config(4, rules, ["greedy"] * 4)
        steps = list(simulate.playthrough(GAME, cfg, f"greedy-{rules}", chooser))
        assert steps[-1].match.result is not None
    mixed = config(3, "advanced", ["greedy", "random", "greedy"])
    assert list(simulate.playthrough(GAME, mixed, "mixed", chooser))[-1].match.result is not None


def test_greedy_takes_the_best_immediate_score() -> None:
    state = make_state(
        knights={28: "red-k1", 2: "red-k2", 20: "yellow-k1"},
        hands={0: ["red/K1-3", "red/RB"]},
    )
    actions = GAME.legal_actions(state, 0)
    for i in range(5):
        choice = GAME.bots["greedy"](GAME.view(state, 0), actions, Rng(b"g", str(i).encode()))
        assert choice["card"] == "red/K1-3" and choice["knight"] == "red-k1"  # +10


def canonical(action: dict[str, Any]) -> str:
    a = dict(action)
    if a.get("type") == "play":
        base = split_card(a.get("card", ""))[1]
        if base and CARDS[base].kind in ("knight", "move"):
            a.setdefault("direction", "cw")
        if isinstance(a.get("knights"), list):
            a["knights"] = sorted(a["knights"])
    return json.dumps(a, sort_keys=True)


def perturb(action: dict[str, Any], state: State, seat: int, r: int) -> dict[str, Any]:
    """Variants of a legal action that are usually illegal."""
    a = dict(action)
    others = [
        f
        for f in state.board.seats
        if f and "-k" in f and not f.startswith(a.get("card", "?").split("/")[0])
    ]
    if a["type"] == "place_knight":
        taken = [s for s, f in enumerate(state.board.seats) if f]
        return {**a, "seat": taken[r % len(taken)]}
    if a["type"] == "draw":
        return {**a, "pile": ("knight", "king", "scoring")[r % 3]}
    choices: list[dict[str, Any]] = []
    if "steps" in a:
        choices += [{**a, "steps": a["steps"] + 5}, {**a, "steps": 0}, {**a, "steps": -a["steps"]}]
    if "direction" in a:
        choices.append({**a, "direction": "ccw" if a["direction"] == "cw" else "cw"})
    if "knight" in a and others:
        choices.append({**a, "knight": others[r % len(others)]})
    if "figure" in a:
        choices += [{**a, "figure": others[0] if others else "red-k1"}, {**a, "figure": "bronze-1"}]
    if "prince" in a:
        choices += [{**a, "prince": state.board.king}, {**a, "prince": "silver-2"}]
    if "knights" in a:
        choices += [
            {**a, "knights": []},
            {**a, "knights": a["knights"][:-1]},
            {**a, "knights": a["knights"] * 2},
        ]
    if "option" in a:
        choices.append({**a, "option": ("move", "ring", "score")[r % 3]})
    colour, base = split_card(a["card"])
    choices += [
        {**a, "card": f"{'blue' if colour != 'blue' else 'red'}/{base}"},
        {**a, "prince": "silver-2"} if "prince" not in a else {**a, "knight": "red-k1"},
    ]
    return choices[r % len(choices)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    conf=st.sampled_from(CONFIGS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 200),
    r=st.integers(0, 1000),
)
def test_legal_actions_are_accepted_and_perturbations_refused(
    conf: tuple[str, int], seed: int, steps: int, r: int
) -> None:
    rules, n = conf
    match = None
    for i, step in enumerate(simulate.playthrough(GAME, config(n, rules), f"p{seed}")):
        match = step.match
        if i >= steps:
            break
    assert match is not None
    state = match.state
    for seat in range(n):
        actions = GAME.legal_actions(state, seat)
        if seat not in GAME.to_act(state):
            assert actions == []
            continue
        assert actions, "the seat to act always has a legal action"
        legal = {canonical(a) for a in actions}
        assert len(legal) == len(actions)
        for a in actions:
            assert engine.check_shape(GAME, a) == a
            events = GAME.decide(state, seat, a, RNG)
            assert events and all(e.seat == seat for e in events)
        for k in range(min(len(actions), 15)):
            bad = perturb(actions[(r + k * 7) % len(actions)], state, seat, r + k)
            if canonical(bad) in legal:
                continue
            with pytest.raises(IllegalAction):
                GAME.decide(state, seat, bad, RNG)
