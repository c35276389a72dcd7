"""Random and greedy play to the end for 2-5 players, with invariants at every step."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from domain import codec, engine
from domain.engine import Config, Player
from domain.games.lancaster import GAME
from domain.games.lancaster.data import SPACE_IDS
from domain.games.lancaster.state import State, all_knights
from domain.rng import Rng
from domain.simulate import bot_chooser, playthrough
from tests.games.lancaster.helpers import config


def placed_knights(s: State) -> list[str]:
    out = [*s.court, *s.reserve, *s.prisoners, *s.castle]
    out += [o.knight for o in s.counties.values()]
    out += [k for c in (*s.upper, *s.lower) for stack in c.spaces for k in stack]
    return out


def check_invariants(s: State, n: int) -> None:
    # every knight in exactly one place
    where = Counter(placed_knights(s))
    assert set(where) == set(all_knights(s)) and set(where.values()) == {1}
    for p in s.players:
        assert min(p.gold, p.squires, p.markers) >= 0
        assert p.built <= set(SPACE_IDS) and len(set(p.nobles)) == len(p.nobles)
    assert all(v >= 0 for v in s.noble_stock.values())
    assert all(len(c.spaces) <= 3 for c in (*s.upper, *s.lower))


def check_views(s: State, n: int) -> None:
    for seat in [*range(n), None]:
        v = GAME.view(s, seat)
        json.dumps(v)
        for row in v["players"]:
            private = n == 2 or row["seat"] == seat
            assert ("gold" in row) == private and ("squires" in row) == private
        if "vote" in v:
            assert "votes" not in v["vote"]
            assert ("mine" in v["vote"]) == (seat is not None and seat in s.votes)
        assert "deck_cards" not in v["laws"] and "deck_cards" not in v["conflicts"]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", ["alpha", "beta", "gamma"])
def test_random_play_to_the_end(n: int, seed: str) -> None:
    steps = list(playthrough(GAME, config(n), f"{seed}-{n}"))
    log = [e for step in steps for e in step.events]
    for i, step in enumerate(steps):
        s = step.match.state
        check_invariants(s, n)
        if i % 7 == 0:
            check_views(s, n)
            assert codec.decode(GAME.state_type, json.loads(json.dumps(codec.encode(s)))) == s
        for e in step.events:
            for seat in [*range(n), None]:
                json.dumps(GAME.redact(e, seat, config(n)))
            if e.type == "VoteCommitted":
                assert GAME.redact(e, None, config(n)) == {"law": e.data["law"]}
    final = steps[-1].match
    assert final.status(GAME) == engine.FINISHED and GAME.is_over(final.state)
    assert final.state.round == 5
    res = final.result
    assert res is not None
    assert set(res["scores"]) == {str(i) for i in range(n)}
    assert sorted(res["ranking"]) == list(range(n)) and res["winners"]
    assert res == json.loads(json.dumps(res))
    # replaying the log gives the same state; the end state survives the codec
    assert engine.fold(GAME, log).state == final.state
    assert codec.decode(GAME.state_type, codec.encode(final.state)) == final.state
    json.dumps(GAME.full_view(final.state))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_greedy_bots_play_to_the_end(n: int) -> None:
    """Greedy bots finish with listed actions (their speed is measured in bench/bots.py)."""
    cfg = Config("lancaster", {}, tuple(Player(f"b{i}", "greedy") for i in range(n)))

    def checked(game, match, seat, actions, rng):
        out = bot_chooser(game, match, seat, actions, rng)
        assert out in actions
        return out

    steps = list(playthrough(GAME, cfg, f"greedy-{n}", checked))
    assert steps[-1].match.status(GAME) == engine.FINISHED


def test_greedy_sees_only_its_view_and_random_is_uniform() -> None:
    match = engine.fold(GAME, engine.create(GAME, config(3), Rng.at("v", 1)))
    actions = GAME.legal_actions(match.state, 0)
    view = GAME.view(match.state, 0)
    assert GAME.bots["greedy"](view, actions, Rng.at("v", 2)) in actions
    picks = {GAME.bots["random"](view, actions, Rng.at("v", i))["space"] for i in range(60)}
    assert picks == set(SPACE_IDS)


def test_every_state_of_a_game_round_trips_through_the_codec() -> None:
    seen_phases = set()
    for step in playthrough(GAME, config(2), "codec-2"):
        s = step.match.state
        seen_phases.add(s.phase)
        data = json.loads(json.dumps(codec.encode(s)))
        assert codec.decode(GAME.state_type, data) == s
    assert {"placement", "vote", "counties", "castle", "over"} <= seen_phases
