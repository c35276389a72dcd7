"""The speed of one game's ``mcts`` decision on fixed positions: ``python -m bench.mcts_speed``.

Why: ``bench.mcts`` plays whole games, so a faster search also changes which positions it
meets; this plays the same positions every time.  Positions come from seeded games of
``greedy`` bots (every seat); every ``--every``-th decision with more than one legal action is
kept, up to ``--positions`` per player count.  Each is searched by the ``mcts`` bot (its budget
and its ``Rng`` stream, as the worker would), CPU time per decision is timed, and a SHA-256
digest of the chosen actions is printed: a change that only makes the search faster must leave
the digest as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from typing import Any

from bench.mcts import pct
from domain import engine
from domain.engine import Config, Player
from domain.games import GAMES
from domain.rng import Rng
from domain.search.ismcts import SearchBot, Stats, search

Position = tuple[dict[str, Any], list[dict[str, Any]], str, int]  # view, actions, seed, at


def positions(game_id: str, n: int, count: int, every: int) -> list[Position]:
    """Positions of seeded ``greedy`` games, the ``Rng`` of each given by (seed, version)."""
    game = GAMES[game_id]
    out: list[Position] = []
    g = 0
    while len(out) < count:
        seed = f"bench-mcts-speed-{game_id}-{n}-{g}"
        config = Config(game_id, {}, tuple(Player(f"p{s}", "greedy") for s in range(n)))
        match = engine.fold(game, engine.create(game, config, Rng.at(seed, 1)))
        k = 0
        while match.status(game) == engine.ACTIVE and len(out) < count:
            seat = min(match.to_act(game))
            view = game.view(match.state, seat)
            actions = game.legal_actions(match.state, seat)
            rng = Rng.at(seed, match.version + 1, f"bot:{seat}")
            if len(actions) > 1:
                k += 1
                if k % every == 0:
                    out.append((view, actions, seed, match.version + 1))
            action = game.bots["greedy"](view, actions, rng)
            events = engine.decide(game, match, seat, action, Rng.at(seed, match.version + 1))
            match = engine.fold(game, events, match)
        g += 1
    return out


def run(game_id: str, n: int, count: int, every: int, level: str) -> dict[str, Any]:
    bot = GAMES[game_id].bots[f"mcts:{level}"]
    assert isinstance(bot, SearchBot)
    cases = positions(game_id, n, count, every)
    cpu: list[float] = []
    chosen: list[dict[str, Any]] = []
    stats = Stats()
    for view, actions, seed, at in cases:
        rng = Rng.at(seed, at, f"bot:{bot.adapter.seat(view)}")
        c = time.process_time()
        chosen.append(search(bot.adapter, view, actions, rng, bot.budget, None, stats))
        cpu.append((time.process_time() - c) * 1000)
    text = json.dumps(chosen, sort_keys=True, separators=(",", ":"))
    total_s = sum(cpu) / 1000 or 1e-9
    return {
        "game": game_id,
        "players": n,
        "positions": len(cases),
        "cpu_p50_ms": pct(cpu, 50),
        "cpu_p99_ms": pct(cpu, 99),
        "cpu_max_ms": max(cpu),
        "iterations_per_s": stats.iterations / total_s,
        "steps_per_s": stats.steps / total_s,
        "failures": stats.failures,
        "digest": hashlib.sha256(text.encode()).hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.mcts_speed", description=__doc__.split("\n")[0]
    )
    p.add_argument("--game", default="lancaster")
    p.add_argument("--players", action="append", type=int, help="repeatable (default 2 and max)")
    p.add_argument("--positions", type=int, default=40, help="positions per player count")
    p.add_argument("--every", type=int, default=10, help="keep every k-th decision")
    p.add_argument("--level", default="normal", choices=("easy", "normal", "hard"))
    args = p.parse_args(argv)
    game = GAMES[args.game]
    for n in args.players or sorted({game.min_players, game.max_players}):
        r = run(args.game, n, args.positions, args.every, args.level)
        print(
            f"{r['game']} {r['players']}p: {r['positions']} positions, CPU p50 "
            f"{r['cpu_p50_ms']:.0f} ms p99 {r['cpu_p99_ms']:.0f} ms max {r['cpu_max_ms']:.0f} ms, "
            f"{r['iterations_per_s']:,.0f} it/s ({r['steps_per_s']:,.0f} steps/s), "
            f"failures {r['failures']}, decisions digest {r['digest']}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
