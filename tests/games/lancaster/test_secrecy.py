"""LA-5 hidden information: screens, secret votes (non-interference), hidden deck orders."""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import engine
from domain.engine import Event, Match
from domain.games.lancaster import GAME
from domain.games.lancaster.rewards import enter_castle
from domain.rng import Rng
from domain.simulate import playthrough
from tests.games.lancaster.helpers import config, player, started
from tests.support.play import act


def test_LA_5_gold_and_squires_are_behind_the_screen() -> None:
    s = player(started(3), 1, gold=7, squires=4)
    for seat in (0, 2, None):
        row = GAME.view(s, seat)["players"][1]
        assert "gold" not in row and "squires" not in row
        assert row["markers"] == 1 and row["power"] == 0  # public
    mine = GAME.view(s, 1)["players"][1]
    assert (mine["gold"], mine["squires"]) == (7, 4)
    assert GAME.full_view(s)["players"][1]["gold"] == 7


def test_LA_5_deck_orders_are_stored_nowhere_and_only_sizes_are_shown() -> None:
    s = started(3)
    v = GAME.view(s, 0)
    assert v["laws"]["deck"] == [len(g) for g in s.law_deck]
    assert v["conflicts"]["deck"] == len(s.conflict_deck)
    assert "deck_cards" not in v["laws"] and "deck_cards" not in v["conflicts"]
    assert list(s.conflict_deck) == sorted(s.conflict_deck)
    full = GAME.full_view(s)
    assert full["conflicts"]["deck_cards"] == list(s.conflict_deck)


def test_LA_5_favour_goods_split_is_private() -> None:
    s = started(3)
    s, ev = act(s, 0, {"type": "place_conflict", "knight": "red-1a", "conflict": 1})
    s, ev = act(
        s, 0, {"type": "take_favour", "tile": "goods-1", "goods": {"gold": 1, "squires": 1}}
    )
    taken = ev[0]
    assert GAME.redact(taken, 0, config(3))["gains"] == {"gold": 1, "squires": 1}
    for seat in (1, 2, None):
        assert GAME.redact(taken, seat, config(3))["gains"] == {"goods": 2}


def test_LA_5_a_vote_stays_secret_until_the_reveal() -> None:
    s = replace(started(3), phase="vote", turn=None, votes={})
    s, ev = act(s, 1, {"type": "vote", "law": "L4", "tile": "no", "markers": 1})
    committed = ev[0]
    assert GAME.redact(committed, 1, config(3)) == {"law": "L4", "tile": "no", "markers": 1}
    for seat in (0, 2, None):
        assert GAME.redact(committed, seat, config(3)) == {"law": "L4"}
        v = GAME.view(s, seat)
        assert v["vote"] == {"law": "L4", "committed": [1]}
    assert GAME.view(s, 1)["vote"]["mine"] == {"tile": "no", "markers": 1}
    assert GAME.full_view(s)["vote"]["votes"] == {"1": {"tile": "no", "markers": 1}}


def _to_vote(n: int, seed: str) -> Match:
    """Random play up to the first parliament."""
    for step in playthrough(GAME, config(n), seed):
        if step.match.state.phase == "vote":
            return step.match
    raise AssertionError("no vote reached")


def _commit(match: Match, seat: int, action: dict, seed: str) -> tuple[Match, list[Event]]:
    events = engine.decide(GAME, match, seat, action, Rng.at(seed, match.version + 1))
    return engine.fold(GAME, events, match), events


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(3, 5),
    seed=st.text("abcdef", min_size=1, max_size=6),
    choice=st.data(),
)
def test_LA_5_non_interference_of_votes(n: int, seed: str, choice: st.DataObject) -> None:
    """Two games identical except seat 1's vote: seat 0 and spectators see the same until the
    reveal (views, redacted events, seats to act, legal actions)."""
    base = _to_vote(n, seed)
    votes = GAME.legal_actions(base.state, 1)
    a = choice.draw(st.sampled_from(votes))
    b = choice.draw(st.sampled_from([v for v in votes if v != a]))
    worlds = []
    for mine in (a, b):
        m, e1 = _commit(base, 1, mine, seed)
        worlds.append((m, e1))
    (ma, ea), (mb, eb) = worlds
    for seat in (0, 2, None):
        assert GAME.view(ma.state, seat) == GAME.view(mb.state, seat)
        assert [GAME.redact(e, seat, config(n)) for e in ea] == [
            GAME.redact(e, seat, config(n)) for e in eb
        ]
    assert GAME.to_act(ma.state) == GAME.to_act(mb.state)
    assert GAME.legal_actions(ma.state, 0) == GAME.legal_actions(mb.state, 0)
    # seat 0 commits the same vote in both worlds: still identical for seat 2 and spectators
    zero = GAME.legal_actions(ma.state, 0)[0]
    ma, ea = _commit(ma, 0, zero, seed)
    mb, eb = _commit(mb, 0, zero, seed)
    for seat in (2, None):
        assert GAME.view(ma.state, seat) == GAME.view(mb.state, seat)
        assert [GAME.redact(e, seat, config(n)) for e in ea] == [
            GAME.redact(e, seat, config(n)) for e in eb
        ]
    # the reveal shows everything
    for seat in range(2, n):
        ma, ea = _commit(ma, seat, GAME.legal_actions(ma.state, seat)[0], seed)
        mb, eb = _commit(mb, seat, GAME.legal_actions(mb.state, seat)[0], seed)
    reveal_a = next(e for e in ea if e.type == "VotesRevealed")
    reveal_b = next(e for e in eb if e.type == "VotesRevealed")
    assert GAME.reveals(reveal_a)
    assert reveal_a.data["votes"]["1"] == {"tile": a["tile"], "markers": a["markers"]}
    assert reveal_b.data["votes"]["1"] == {"tile": b["tile"], "markers": b["markers"]}
    assert GAME.redact(reveal_a, 0, config(n)) == reveal_a.data


def test_LA_5_views_are_json() -> None:
    s = started(2)
    for seat in (0, 1, None):
        json.dumps(GAME.view(s, seat))
    json.dumps(GAME.full_view(s))


def test_LA_5_who_cannot_pay_is_not_revealed() -> None:
    # purchase laws ask every seat; a seat without gold can only pass
    s = replace(started(3, current=("L16", "L3", "L13"), debate=("L7",)), phase="vote", turn=None)
    s = player(s, 1, gold=0)
    for seat in range(3):
        s, ev = act(s, seat, {"type": "vote", "law": "L7", "tile": "no", "markers": 0})
    assert ev[2].data == {"law": "L16", "seats": [0, 1, 2]}
    s, _ = act(s, 0, {"type": "pass"})
    assert GAME.legal_actions(s, 1) == [{"type": "pass"}]
    # a castle source that the player cannot pay for still asks the player
    s = enter_castle(player(started(3, ext="barracks"), 0, squires=1))
    assert GAME.to_act(s) == (0,) and GAME.legal_actions(s, 0) == [{"type": "pass"}]
