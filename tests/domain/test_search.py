"""The ``mcts`` bots of every game: the samplers deal worlds consistent with the seat's view and
nothing else, and the search is deterministic, bounded and plays only legal root actions."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from domain import simulate
from domain.engine import Config, Player
from domain.games import GAMES
from domain.rng import Rng
from domain.search.ismcts import FastRng, SearchBot, Stats, search
from tests.support.play import variant_id, variants

VARIANTS = list(variants())


def _positions(game_id: str, options: dict[str, str], n: int, every: int = 3):
    """(state, seat) of a random game: every ``every``-th step, each seat that may act."""
    game = GAMES[game_id]
    config = Config(game_id, dict(options), tuple(Player(f"p{i}") for i in range(n)))
    steps = simulate.playthrough(game, config, f"search-{game_id}-{n}-{options}")
    for i, step in enumerate(steps):
        state = step.match.state
        if i % every or step.match.status(game) != "active":
            continue
        for seat in game.to_act(state):
            yield state, seat


def _sampler(game_id: str):
    bot = GAMES[game_id].bots["mcts"]
    assert isinstance(bot, SearchBot)
    return bot.adapter.sample


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant_id(v) for v in VARIANTS])
def test_every_sample_is_consistent_with_the_seats_view(variant) -> None:
    """The sampled world shows the seat exactly its view, and the same legal actions."""
    game_id, options, n = variant
    game, sample = GAMES[game_id], _sampler(game_id)
    rng = FastRng(11)
    checked = 0
    for state, seat in _positions(game_id, options, n):
        view = game.view(state, seat)
        for _ in range(3):
            world = sample(view, rng)
            assert game.view(world, seat) == view
            assert game.to_act(world) == game.to_act(state)
            assert game.legal_actions(world, seat) == game.legal_actions(state, seat)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant_id(v) for v in VARIANTS])
def test_what_the_seat_cannot_see_does_not_change_the_samples(variant) -> None:
    """Two real states that differ only in what the seat cannot see (the second one is the
    first with its hidden information dealt anew) give the same samples from the same RNG."""
    game_id, options, n = variant
    game, sample = GAMES[game_id], _sampler(game_id)
    swapped = 0
    for k, (state, seat) in enumerate(_positions(game_id, options, n)):
        other = sample(game.view(state, seat), FastRng(1000 + k))
        assert game.view(other, seat) == game.view(state, seat)
        swapped += other != state
        a = [sample(game.view(state, seat), FastRng(k)) for _ in range(2)]
        b = [sample(game.view(other, seat), FastRng(k)) for _ in range(2)]
        assert a == b
    assert swapped > 0, "the hidden information was really swapped somewhere"


def _mid_positions(game_id: str, n: int, count: int = 4):
    states = list(_positions(game_id, {}, n, every=7))
    step = max(1, len(states) // count)
    return states[::step][:count]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_search_is_deterministic_and_plays_a_legal_root_action(game_id) -> None:
    game = GAMES[game_id]
    bot = game.bots["mcts:easy"]
    assert isinstance(bot, SearchBot)
    for state, seat in _mid_positions(game_id, game.max_players):
        view, actions = game.view(state, seat), game.legal_actions(state, seat)
        stats = Stats()
        rng = Rng.at("seed", 7, f"bot:{seat}")
        first = search(bot.adapter, view, actions, rng, bot.budget, None, stats)
        assert stats.failures == 0, "every sampled world is one the rules can play"
        again = bot(view, actions, Rng.at("seed", 7, f"bot:{seat}"))
        assert first == again and first in actions
        if len(actions) > 2:  # only the actions it is given, never others legal in a world
            allowed = actions[1:3]
            assert bot(view, allowed, Rng.at("seed", 7, f"bot:{seat}")) in allowed


def second_call() -> Callable[[], bool]:
    """A ``stop`` that lets the search run until its second check."""
    calls = itertools.count()
    return lambda: next(calls) > 0


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_stop_cuts_the_search_short(game_id: str) -> None:
    game = GAMES[game_id]
    bot = game.bots["mcts:hard"]
    assert isinstance(bot, SearchBot)
    for state, seat in _mid_positions(game_id, 2, 2):
        view, actions = game.view(state, seat), game.legal_actions(state, seat)
        if len(actions) < 2:
            continue
        stats = Stats()
        action = search(
            bot.adapter, view, actions, Rng.at("s", 1), bot.budget, second_call(), stats
        )
        assert action in actions
        assert stats.iterations <= 16 < bot.budget.iterations


def test_every_game_offers_the_levels() -> None:
    for game in GAMES.values():
        assert {"mcts", "mcts:easy", "mcts:normal", "mcts:hard"} <= set(game.bots)
        assert game.bots["mcts"] is game.bots["mcts:normal"]
        levels = [game.bots[f"mcts:{lv}"] for lv in ("easy", "normal", "hard")]
        assert all(isinstance(bot, SearchBot) for bot in levels)
        its = [bot.budget.iterations for bot in levels if isinstance(bot, SearchBot)]
        assert its == sorted(its) and len(set(its)) == 3
