"""Lancaster's ``mcts`` scores a position from three players on by ``outlook``: the end scoring
as it stands plus what the board promises (issue 14).  These tests pin what it must mean: the
final scores once the game is over, a placement's promise to its owner and to nobody else, and
the two-player bot left as it was measured."""

from __future__ import annotations

from domain import simulate
from domain.engine import Config, Player
from domain.games import GAMES
from domain.games.lancaster import mcts, rules, scoring
from domain.games.lancaster.data import COUNTIES, strength
from domain.games.lancaster.events import PLACEMENT_PHASE
from domain.rng import Rng

GAME = GAMES["lancaster"]


def _steps(n: int, seed: str) -> list[simulate.Step]:
    config = Config("lancaster", {}, tuple(Player(f"p{i}") for i in range(n)))
    return list(simulate.playthrough(GAME, config, seed))


def test_the_outlook_of_a_finished_game_is_its_final_score() -> None:
    for n in (3, 4, 5):
        last = _steps(n, f"outlook-end-{n}")[-1].match.state
        assert rules.is_over(last)
        assert mcts.outlook(last) == [float(t) for t in scoring.totals(last)]
        assert [int(t) for t in mcts.outlook(last)] == [
            GAME.result(last)["scores"][str(s)] for s in range(n)
        ]


def test_a_county_placement_promises_its_reward_to_its_owner_only() -> None:
    """LA-2.1 places the knight, LA-2.7 pays the county's reward to its occupant's owner later:
    the outlook counts the promise (discounted while others may still expel it) at once."""
    checked = 0
    for n in (3, 5):
        for step in _steps(n, f"outlook-place-{n}")[::2]:
            state = step.match.state
            if state.phase != PLACEMENT_PHASE or state.turn is None:
                continue
            seat = state.turn
            before = mcts.outlook(state)
            for a in rules.legal_actions(state, seat):
                if a["type"] != "place_county" or a["squires"] or a["county"] in state.counties:
                    continue
                letter: str = a["county"]
                reward = COUNTIES[letter]["reward"]
                if set(reward) != {"power"}:
                    continue
                placed = rules.play(state, seat, a, Rng.at("outlook", 1))
                if placed.phase != PLACEMENT_PHASE:  # the last knight: promises are sure now
                    continue
                after = mcts.outlook(placed)
                gain = after[seat] - before[seat]
                assert gain >= mcts.CONTESTED * reward["power"] - 1e-9, (letter, a["knight"])
                assert gain > 0 and strength(a["knight"]) >= COUNTIES[letter]["min"]
                others = [s for s in range(n) if s != seat]
                assert [after[s] for s in others] == [before[s] for s in others]
                checked += 1
    assert checked >= 10


def test_two_players_keep_the_measured_bot_and_more_are_scored_relative() -> None:
    adapter = mcts.ADAPTER
    two = _steps(2, "outlook-two")
    for step in two[::25]:
        state = step.match.state
        assert adapter.evaluate(state) == [float(t) for t in scoring.totals(state)]
    assert callable(adapter.relative) and adapter.depth is not None
    view_two = GAME.view(two[5].match.state, 0)
    assert adapter.relative(view_two) is False and adapter.depth(view_two, 12) == 12
    five = _steps(5, "outlook-five")[10].match.state
    assert adapter.relative(GAME.view(five, 0)) is True
    assert adapter.depth(GAME.view(five, 0), 12) == 4
    assert adapter.evaluate(five) == mcts.outlook(five) != [float(t) for t in scoring.totals(five)]
