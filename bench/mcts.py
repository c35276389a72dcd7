"""The strength and speed of the ``mcts`` bot: ``python -m bench.mcts --games 200``.

For each game (its default options), at 2 players and at its largest count, ``mcts`` at a level
(default ``normal``) plays against ``greedy`` and against ``random``: one ``mcts`` seat, every
other seat the opponent bot, the ``mcts`` seat rotating game by game.  Games are played in
memory through the engine exactly as the service plays them (each bot sees its seat's view
only; its ``Rng`` is the worker's ``bot:<seat>`` stream at the log position).

Printed per row: games, 2-player win rate of ``mcts`` (a tie counts half) with its 95% Wilson
interval, mean rank (1 = best; shared places take their mean) with a 95% normal interval, the
mean rank an equal bot would have ((n + 1) / 2), simulations per second of CPU time (iterations
of the search, and rules steps played in them) and the move time p50/p99 of ``mcts``, wall clock
and CPU time of the process (the CPU figure is the one that holds on a shared machine).

Targets (issue 14): wins >= 65% of 2-player games against greedy, a better mean rank than
(n + 1) / 2 in multiplayer games, wins >= 90% against random, move p99 < 1 s.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from domain import engine
from domain.engine import Config, Player
from domain.games import GAMES
from domain.rng import Rng
from domain.search.ismcts import SearchBot, Stats, search


@dataclass
class Outcome:
    rank: float  # of the mcts seat, 1 = best, ties share the mean place
    win: float  # 1 win, 0.5 shared first place, 0 loss
    moves_ms: list[float] = field(default_factory=list)  # wall clock
    cpu_ms: list[float] = field(default_factory=list)  # this process's CPU time
    iterations: int = 0
    steps: int = 0
    search_s: float = 0.0


def play(game_id: str, n: int, opponent: str, level: str, seed: str, me: int) -> Outcome:
    """One game in memory: seat ``me`` is ``mcts:<level>``, every other seat ``opponent``."""
    game = GAMES[game_id]
    bot = game.bots[f"mcts:{level}"]
    assert isinstance(bot, SearchBot)
    players = tuple(Player(f"p{s}", f"mcts:{level}" if s == me else opponent) for s in range(n))
    config = Config(game_id, {}, players)
    match = engine.fold(game, engine.create(game, config, Rng.at(seed, 1)))
    out = Outcome(0.0, 0.0)
    stats = Stats()
    while match.status(game) == engine.ACTIVE:
        seat = min(match.to_act(game))
        view = game.view(match.state, seat)
        actions = game.legal_actions(match.state, seat)
        rng = Rng.at(seed, match.version + 1, f"bot:{seat}")
        if seat == me:
            t, c = time.perf_counter(), time.process_time()
            action = search(bot.adapter, view, actions, rng, bot.budget, None, stats)
            took = time.perf_counter() - t
            out.cpu_ms.append((time.process_time() - c) * 1000)
            out.moves_ms.append(took * 1000)
            out.search_s += took
        else:
            action = game.bots[opponent](view, actions, rng)
        events = engine.decide(game, match, seat, action, Rng.at(seed, match.version + 1))
        match = engine.fold(game, events, match)
    scores = game.result(match.state)["scores"]
    mine = scores[str(me)]
    others = [v for k, v in scores.items() if k != str(me)]
    above = sum(1 for v in others if v > mine)
    tied = sum(1 for v in others if v == mine)
    out.rank = 1 + above + tied / 2
    out.win = 0.0 if above else 1.0 / (1 + tied)
    out.iterations, out.steps = stats.iterations, stats.steps
    return out


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def pct(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))] if s else 0.0


Key = tuple[str, int, str, str]  # game, players, opponent, level


def _job(args: tuple[str, int, str, str, str, int]) -> tuple[Key, dict[str, Any]]:
    o = play(*args)
    return (args[0], args[1], args[2], args[3]), {
        "rank": o.rank,
        "win": o.win,
        "moves_ms": o.moves_ms,
        "cpu_ms": o.cpu_ms,
        "iterations": o.iterations,
        "steps": o.steps,
    }


def jobs(key: Key, games: int, first: int = 0) -> list[tuple[str, int, str, str, str, int]]:
    game_id, n, opponent, level = key
    return [
        (game_id, n, opponent, level, f"bench-mcts-{game_id}-{n}-{opponent}-{i}", i % n)
        for i in range(first, first + games)
    ]


def summary(key: Key, outs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    game_id, n, opponent, level = key
    wins = sum(o["win"] for o in outs)
    ranks = [o["rank"] for o in outs]
    mean = sum(ranks) / len(ranks)
    var = sum((r - mean) ** 2 for r in ranks) / max(1, len(ranks) - 1)
    half = 1.96 * math.sqrt(var / len(ranks))
    moves = [m for o in outs for m in o["moves_ms"]]
    cpu = [m for o in outs for m in o["cpu_ms"]]
    search_s = sum(cpu) / 1000 or 1e-9
    lo, hi = wilson(wins, len(outs))
    return {
        "game": game_id,
        "players": n,
        "opponent": opponent,
        "level": level,
        "games": len(outs),
        "win_rate": wins / len(outs),
        "win_ci": [lo, hi],
        "mean_rank": mean,
        "rank_ci": [mean - half, mean + half],
        "equal_rank": (n + 1) / 2,
        "iterations_per_s": sum(o["iterations"] for o in outs) / search_s,
        "steps_per_s": sum(o["steps"] for o in outs) / search_s,
        "moves": len(moves),
        "move_p50_ms": pct(moves, 50),
        "move_p99_ms": pct(moves, 99),
        "move_max_ms": max(moves, default=0.0),
        "cpu_p50_ms": pct(cpu, 50),
        "cpu_p99_ms": pct(cpu, 99),
    }


def line(r: dict[str, Any]) -> str:
    return (
        f"| {r['game']} | {r['players']} | {r['opponent']} | {r['games']} | "
        f"{100 * r['win_rate']:.0f}% [{100 * r['win_ci'][0]:.0f}-{100 * r['win_ci'][1]:.0f}] | "
        f"{r['mean_rank']:.2f} [{r['rank_ci'][0]:.2f}-{r['rank_ci'][1]:.2f}] "
        f"vs {r['equal_rank']:.1f} | "
        f"{r['iterations_per_s']:,.0f} it/s ({r['steps_per_s']:,.0f} steps/s) | "
        f"{r['move_p50_ms']:.0f} / {r['move_p99_ms']:.0f} ms | "
        f"{r['cpu_p50_ms']:.0f} / {r['cpu_p99_ms']:.0f} ms |"
    )


HEADER = (
    "| game | players | vs | games | mcts wins [95%] | mcts mean rank [95%] vs equal | "
    "simulations/s (CPU) | move p50 / p99 (wall) | move p50 / p99 (CPU) |\n"
    "|---|--:|---|--:|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.mcts", description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=200, help="games per row (target: 200)")
    p.add_argument("--level", default="normal", choices=("easy", "normal", "hard"))
    p.add_argument("--game", action="append", help="only this game id (repeatable)")
    p.add_argument("--players", action="append", type=int, help="only this count (repeatable)")
    p.add_argument("--opponent", action="append", choices=("greedy", "random"))
    p.add_argument("--workers", type=int, default=1, help="processes playing games at once")
    p.add_argument("--first", type=int, default=0, help="index of the first game (its seed)")
    p.add_argument("--log", help="append each finished game here (JSON lines) as it ends")
    p.add_argument("--report", action="append", help="only print the table of --log files")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results: dict[Key, list[dict[str, Any]]] = {}
    for path in args.report or []:
        with open(path, encoding="utf-8") as f:
            for text in f:
                rec = json.loads(text)
                results.setdefault(tuple(rec["key"]), []).append(rec["out"])
    if not args.report:
        keys: list[Key] = []
        for gid in args.game or list(GAMES):
            g = GAMES[gid]
            for n in args.players or sorted({g.min_players, g.max_players}):
                keys.extend(
                    (gid, n, opp, args.level) for opp in args.opponent or ("greedy", "random")
                )
        # interleave the rows, so that a run stopped early has some games of every row
        planned = {k: jobs(k, args.games, args.first) for k in keys}
        todo = [planned[k][i] for i in range(args.games) for k in keys]
        log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
        with ProcessPoolExecutor(max(1, args.workers)) as pool:
            for done in as_completed([pool.submit(_job, j) for j in todo]):
                key, out = done.result()
                results.setdefault(key, []).append(out)
                if log:
                    log.write(json.dumps({"key": key, "out": out}) + "\n")
                    log.flush()
        if log:
            log.close()
    rows = [summary(k, v) for k, v in results.items()]
    print(HEADER)
    for r in rows:
        print(line(r))
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
