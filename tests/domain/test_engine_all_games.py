"""One generic test for every registered game (OpenSpiel's random_sim_test, in spirit):
random games to the end with invariants checked at every step, replay and snapshots."""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import bots, codec, engine, simulate
from domain.engine import Config, Player
from domain.errors import BadAction, Forbidden
from domain.games import GAMES
from domain.rng import Rng
from tests.support.play import variant_id, variants

VARIANTS = list(variants())


def reference_encode(value: object) -> Any:  # JSON data, as codec.encode gives
    """``codec.encode`` as it was before it looked fields up once per class: the generic
    walk, kept here to check the faster one gives the same data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: reference_encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [reference_encode(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(reference_encode(v) for v in value)
    if isinstance(value, dict):
        return {str(k): reference_encode(v) for k, v in value.items()}
    return value


def config(game_id: str, options: dict[str, str], n: int) -> Config:
    return Config(game_id, {**options, "undo": "turn"}, tuple(Player(f"p{i}") for i in range(n)))


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant_id(v) for v in VARIANTS])
def test_random_games_keep_the_engine_invariants(variant) -> None:
    game_id, options, n = variant
    game = GAMES[game_id]
    events: list[engine.Event] = []
    match = None
    for step in simulate.playthrough(
        game, config(game_id, options, n), f"seed-{variant_id(variant)}"
    ):
        events += step.events
        match = step.match
        state = match.state
        # snapshots round-trip exactly, and hold what the generic walk gives
        encoded = codec.encode(state)
        assert encoded == reference_encode(state)
        assert json.dumps(encoded) == json.dumps(reference_encode(state))
        assert codec.decode(game.state_type, json.loads(json.dumps(encoded))) == state
        # views and redacted events are JSON documents
        for seat in [None, *range(n)]:
            json.dumps(game.view(state, seat))
            for e in step.events:
                json.dumps(game.redact(e, seat, match.config))
        json.dumps(game.full_view(state))
        to_act = match.to_act(game)
        if match.status(game) == engine.ACTIVE:
            assert to_act, "an active game has someone to act"
            for seat in to_act:
                assert game.legal_actions(state, seat), f"seat {seat} to act without actions"
    assert match is not None and match.status(game) == engine.FINISHED
    result = match.result
    assert result is not None
    assert set(result["scores"]) == {str(s) for s in range(n)}
    assert set(result["ranking"]) == set(range(n))
    assert result["winners"] and set(result["winners"]) <= set(range(n))
    # folding the whole log at once gives the same match as stepping through it
    assert engine.fold(game, events) == match


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=8, deadline=None)
@given(seed=st.text(min_size=1, max_size=20))
def test_same_seed_same_game_and_replay_never_rerolls(game_id: str, seed: str) -> None:
    game = GAMES[game_id]
    options = {k: v[0] for k, v in game.options.items()}
    cfg = config(game_id, options, game.min_players)
    first = [e for s in simulate.playthrough(game, cfg, seed) for e in s.events]
    second = [e for s in simulate.playthrough(game, cfg, seed) for e in s.events]
    assert first == second
    # evolving never draws randomness: the fold of recorded events is the same match
    assert engine.fold(game, first) == engine.fold(game, second)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_bots_act_from_their_own_view_and_pick_legal_actions(game_id: str) -> None:
    game = GAMES[game_id]
    options = {k: v[0] for k, v in game.options.items()}
    # Searching bots play whole games in tests/e2e/test_bots.py (on the worker, mcts:easy) and
    # are checked move by move in tests/domain/test_search.py: a full game of four searching
    # bots takes minutes, so this sweep plays the bots that do not search.
    for bot in (b for b in game.bots if not getattr(game.bots[b], "budgeted", False)):
        cfg = Config(game_id, options, tuple(Player(f"b{i}", bot) for i in range(game.max_players)))
        steps = list(simulate.playthrough(game, cfg, f"bots-{bot}", simulate.bot_chooser))
        assert steps[-1].match.result is not None
        for before, step in itertools.pairwise(steps[:-1]):
            assert step.seat is not None
            assert step.action in game.legal_actions(before.match.state, step.seat)


def test_decide_refuses_before_the_game_sees_the_action() -> None:
    game = GAMES["artus"]
    cfg = config("artus", {"rules": "basic"}, 2)
    match = engine.fold(game, engine.create(game, cfg, Rng.at("s", 1)))
    seat = match.to_act(game)[0]
    with pytest.raises(Forbidden) as not_turn:
        engine.decide(game, match, 1 - seat, {"type": "place_knight", "seat": 27}, Rng.at("s", 3))
    assert not_turn.value.reason == "not_your_turn"
    with pytest.raises(BadAction) as bad:
        engine.decide(game, match, seat, {"type": "place_knight", "seat": "27"}, Rng.at("s", 3))
    assert bad.value.details == {"action.seat": ["must be int"]}
    with pytest.raises(BadAction):
        engine.decide(game, match, seat, {"type": "teleport"}, Rng.at("s", 3))
    with pytest.raises(BadAction) as missing:
        engine.decide(game, match, seat, {"type": "place_knight"}, Rng.at("s", 3))
    assert missing.value.details == {"action.seat": ["missing"]}


def test_follow_ups_name_bot_turns_and_scoring() -> None:
    game = GAMES["artus"]
    cfg = Config("artus", {"rules": "basic"}, (Player("a"), Player("b", "random")))
    steps = list(simulate.playthrough(game, cfg, "fu"))
    for step in steps[:-1]:
        jobs = engine.follow_ups(game, "g1", step.match)
        if step.match.status(game) == engine.SCORING:
            assert jobs == [engine.Job("score", "g1", step.match.version)]
        elif 1 in step.match.to_act(game):
            assert jobs == [engine.Job("bot", "g1", step.match.version, 1)]
            assert jobs[0].id == f"bot-g1-{step.match.version}-1"
        else:
            assert jobs == []
    assert engine.follow_ups(game, "g1", steps[-1].match) == []


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_version_has_views_even_inside_a_batch(game_id: str) -> None:
    """`?version=N` may name any version, also one in the middle of a command's batch."""
    game = GAMES[game_id]
    n = game.max_players
    cfg = config(game_id, {k: v[0] for k, v in game.options.items()}, n)
    events = [e for s in simulate.playthrough(game, cfg, "every-version") for e in s.events]
    match = None
    for event in events:
        match = engine.evolve(game, match, event)
        for seat in [None, *range(n)]:
            json.dumps(game.view(match.state, seat))
        json.dumps(game.full_view(match.state))
        if match.status(game) == engine.ACTIVE:
            for seat in match.to_act(game):
                assert isinstance(game.legal_actions(match.state, seat), list)
    assert match is not None and match.version == len(events)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_evolve_refuses_an_unknown_event(game_id: str) -> None:
    """Every game's evolve raises on an event type it does not know (none ignores it)."""
    game = GAMES[game_id]
    cfg = config(game_id, {k: v[0] for k, v in game.options.items()}, game.min_players)
    match = engine.fold(game, engine.create(game, cfg, Rng.at("u", 1)))
    with pytest.raises(KeyError):
        game.evolve(match.state, engine.Event("NoSuchEvent", None, {}))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_bot_decides_in_one_place_with_one_rng(game_id: str) -> None:
    """The in-memory bot chooser and the worker both call ``bots.decide`` with ``bot_rng``:
    the action recorded for a bot seat is exactly what the worker would decide there."""
    game = GAMES[game_id]
    options = {k: v[0] for k, v in game.options.items()}
    players = tuple(Player(f"b{i}", "greedy") for i in range(game.min_players))
    cfg = Config(game_id, options, players)
    steps = list(simulate.playthrough(game, cfg, "one-place", simulate.bot_chooser))
    for before, step in itertools.pairwise(steps[:40]):
        if step.seat is None:
            continue
        rng = bots.bot_rng("one-place", before.match.version + 1, step.seat)
        assert bots.decide(game, before.match, step.seat, rng) == step.action


def test_fold_of_nothing_is_the_match_itself() -> None:
    game = GAMES["artus"]
    match = engine.fold(
        game, engine.create(game, config("artus", {"rules": "basic"}, 2), Rng.at("f", 1))
    )
    assert engine.fold(game, [], match) is match
