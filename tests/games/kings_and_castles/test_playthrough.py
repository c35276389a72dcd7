"""Whole games through the engine (random and bot play) with invariants checked at every step."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from domain.codec import decode, encode
from domain.engine import Event, Game, Match
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.state import State
from domain.rng import Rng
from domain.simulate import bot_chooser, playthrough
from tests.games.kings_and_castles.builder import config, counters_in_play, every_counter

TAXES = ("TaxCollected", "FinalTaxCollected")


def check_step(before: State, events: list[Event], after: State, earned: Counter) -> None:
    # conservation: every counter of the game in exactly one place
    assert sorted(every_counter(after)) == sorted(counters_in_play(after))
    # KC-5.7: counters are destroyed only by attacks
    state = before
    for event in events:
        if event.type in ("GameCreated", "GameFinished"):
            continue
        nxt = GAME.evolve(state, event)
        stored = Event(event.type, event.seat, json.loads(json.dumps(event.data)))
        assert GAME.evolve(state, stored) == nxt  # replay from a stored (JSON) log
        gone = nxt.destroyed - state.destroyed
        if event.type == "TerritoryCaptured":
            d = event.data
            lost = {d["defender"], d["castle"]} - {None}
            assert gone == set(d["counters"]) - {d["stays"]} | lost
        else:
            assert not gone, event
        if event.type in TAXES:
            earned.update(event.data["amounts"])
        state = nxt
    assert dict(after.money) == {c: earned[c] for c in after.colours}
    # secrecy: no exact money of another colour in a seat's view or redacted events
    if not GAME.is_over(after):
        for seat in (*range(after.players), None):
            mine = {c for c in after.colours if after.owners[c] == seat}
            assert set(GAME.view(after, seat)["money"]) == mine
            for event in events:
                if event.type == "TaxCollected":
                    assert set(GAME.redact(event, seat, config(after.players))["amounts"]) <= mine
    # snapshots: the codec round-trips the state exactly (through JSON)
    assert decode(GAME.state_type, json.loads(json.dumps(encode(after)))) == after


@pytest.mark.parametrize("length", ["full", "short"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_KC_3_random_play_to_the_end(players: int, length: str) -> None:
    """KC-3/KC-4/KC-5.7/KC-8: random games end after the last square; invariants hold."""
    earned: Counter = Counter()
    state = None
    types: Counter = Counter()
    for step in playthrough(GAME, config(players, length), f"random-{players}-{length}"):
        if state is not None:
            check_step(state, step.events, step.match.state, earned)
        state = step.match.state
        types.update(e.type for e in step.events)
    assert state is not None and GAME.is_over(state)
    assert state.turned == frozenset(range(1, state.last_square + 1))
    assert types["TurnEnded"] == state.last_square and types["FinalTaxCollected"] == 1
    assert types["GameFinished"] == 1 and types["TerritoryCaptured"] > 0
    result = GAME.result(state)
    assert sorted(result["ranking"]) == list(range(players))
    assert sum(result["scores"].values()) == sum(state.money.values())


@pytest.mark.parametrize("players", [2, 4])
def test_KC_8_greedy_bots_play_to_the_end(players: int) -> None:
    """Bots decide from their seat's view: greedy and random seats finish (speed: bench/)."""
    cfg = config(players, "full", ["greedy", "random", "greedy", "random"][:players])

    def checked(
        game: Game, match: Match, seat: int, actions: list[dict[str, Any]], rng: Rng
    ) -> dict[str, Any]:
        action = bot_chooser(game, match, seat, actions, rng)
        assert action in actions
        return action

    last = None
    for step in playthrough(GAME, cfg, f"bots-{players}", checked):
        last = step
    assert last is not None and GAME.is_over(last.match.state)


def test_KC_10_bots_use_only_the_view() -> None:
    """KC-10: a bot gets the seat's view (no other colour's money) and returns a listed action."""
    for step in playthrough(GAME, config(3, "short"), "view-only"):
        state = step.match.state
        if GAME.is_over(state) or step.seat is None:
            continue
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        assert set(view["money"]) == {c for c in state.colours if state.owners[c] == seat}
        actions = GAME.legal_actions(state, seat)
        for name, bot in GAME.bots.items():
            assert bot(view, actions, Rng.at(name, 1)) in actions
