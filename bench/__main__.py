"""``python -m bench [--quick] [--json]``: run every benchmark and print one table.

Benchmarks that start servers of their own run alone: ``python -m bench.edge`` (idle
connections), ``python -m bench.cluster`` (Redis Cluster), ``python -m bench.moves`` (a move's
CPU and latency on a real `chronicle serve`; ``--profile`` for where it goes),
``python -m bench.floors`` (one client's latency against the framework's floor); the notice
fan-out's row is the short one of ``python -m bench.notices --full`` (10,000 seats)."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench import bots, latency, load, memory, notices, replay, review, rules, throughput
from bench.report import Row, table, to_json
from bench.servers import Servers
from domain.games import GAMES


@dataclass(frozen=True)
class Scale:
    posts: int  # timed POSTs per latency figure
    threads: int  # client threads of the throughput row
    seconds: float  # its window
    loads: int  # loads per load figure
    replay_games: int  # finished games folded per game
    memory_games: int  # finished games measured per game
    bot_games: int  # random games whose positions the bots are timed on
    bot_turns: int  # bot turns through the worker per game
    live_games: int  # games stored for the many-games row
    rounds: int  # alternations of its two conditions


FULL = Scale(2000, 8, 10.0, 200, 30, 5, 20, 100, 10_000, 4)
QUICK = Scale(300, 8, 2.0, 30, 3, 1, 2, 15, 1_000, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a ~30 s smoke run (small samples)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    scale = QUICK if args.quick else FULL
    started = time.perf_counter()
    rows: list[Row] = []

    def section(name: str, run: Callable[[], list[Row]]) -> None:
        t = time.perf_counter()
        print(f"bench: {name} ...", file=sys.stderr, end="", flush=True)
        rows.extend(run())
        print(f" {time.perf_counter() - t:.1f}s", file=sys.stderr)

    with Servers() as env:
        redis_version = env.r.info("server")["redis_version"]
        section("append latency", lambda: latency.append_rows(env, scale.posts))
        section("latency floors", lambda: latency.floor_rows(env, scale.posts))
        section("throughput", lambda: throughput.rows(env, scale.threads, scale.seconds))
        section("load", lambda: load.rows(env, scale.loads))
        section("replay", lambda: replay.rows(scale.replay_games))
        section("memory", lambda: memory.rows(env, scale.memory_games))
        section("rules", lambda: rules.rows(scale.bot_games))
        section("bot moves", lambda: bots.move_rows(scale.bot_games))
        section("bot turns", lambda: bots.turn_rows(env, scale.bot_turns))
        section(  # the fewest players of each game; the whole figure: python -m bench.review
            "review",
            lambda: review.rows(True, review.QUICK_ITERATIONS if args.quick else None),
        )
        section(
            "many games",
            lambda: latency.many_games_rows(env, scale.posts, scale.live_games, scale.rounds),
        )
        section("reconciler", lambda: latency.reconciler_rows(env, scale.live_games))
        section("notice fan-out", lambda: notices.rows(env, scale.live_games // 10, 400))
    meta = {
        "mode": "quick" if args.quick else "full",
        "games": list(GAMES),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "redis": redis_version,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(to_json(rows, meta))
    else:
        print(
            f"Chronicle benchmarks ({meta['mode']}): {meta['cpus']} CPUs, Python "
            f"{meta['python']}, Redis {meta['redis']}, games {', '.join(meta['games'])}; "
            f"{meta['seconds']} s\n"
        )
        print(table(rows))
    missed = [r.figure for r in rows if r.met is False]
    if missed:
        print(f"bench: {len(missed)} targets missed", file=sys.stderr)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
