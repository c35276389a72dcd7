"""The rules alone, per game: the legal-action list time over positions of random games (every
seat to act at every step), the time of a whole random game in memory (set-up, legal actions,
decide and evolve at every step) beside the fold of its events alone, and events per game."""

from __future__ import annotations

import itertools
import time

from bench.report import Row, median, pct
from bench.scripts import all_games, script, variants
from domain import engine

LIST_BUDGET_MS = 50.0


def rows(games: int) -> list[Row]:
    out = []
    for game in all_games():
        took: list[float] = []
        whole: list[float] = []
        folds: list[float] = []
        events: list[int] = []
        sizes: list[int] = []
        pool = list(variants(game))
        for i in range(games):
            start = time.perf_counter()
            sc = script(game, *pool[i % len(pool)], f"bench-rules-{game.id}-{i}")
            whole.append((time.perf_counter() - start) * 1000)
            events.append(sc.events)
            recorded = [e for step in sc.steps for e in step.events]
            t = time.perf_counter()
            engine.fold(game, recorded)
            folds.append((time.perf_counter() - t) * 1000)
            for before, _ in itertools.pairwise(sc.steps):
                state = before.match.state
                for seat in before.match.to_act(game):
                    t = time.perf_counter()
                    listed = game.legal_actions(state, seat)
                    took.append((time.perf_counter() - t) * 1000)
                    sizes.append(len(listed))
        p99 = pct(took, 99)
        out.append(
            Row(f"legal actions p99 [{game.id}]", p99, "ms", "budget", LIST_BUDGET_MS,
                f"< {LIST_BUDGET_MS:g} ms", p99 < LIST_BUDGET_MS,
                f"{len(took):,} positions; p50 {median(took):.3f} ms, max {max(took):.2f} ms; "
                f"list length p50 {median(sizes):.0f}, max {max(sizes)}")
        )  # fmt: skip
        out.append(
            Row(f"random game in memory p50 [{game.id}]", median(whole), "ms",
                "fold of its events", median(folds), "-", None,
                f"{games} games over every variant; events per game p50 {median(events):.0f}, "
                f"min {min(events)}, max {max(events)}")
        )  # fmt: skip
    return out
