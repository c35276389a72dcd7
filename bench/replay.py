"""Row 4: replay speed, folding the records of finished random games (``projections.fold``),
beside decoding the same events' stored JSON alone (``json.loads`` of each data field)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from bench.report import Row, ratio_row
from bench.scripts import all_games, scripts
from domain.engine import Game, Match
from domain.simulate import Step
from projections.fold import fold
from projections.records import Recorded

REPEATS = 9


def records(script_steps: list[Step]) -> list[Recorded]:
    out = []
    for step in script_steps:
        first = step.match.version - len(step.events) + 1
        for i, e in enumerate(step.events):
            command = step.action if i == 0 else None
            out.append(Recorded(first + i, e.type, e.seat, 0, step.seat, command, dict(e.data), ""))
    return out


def data_json(rec: Recorded) -> str:
    """The event's data as compact JSON (what an export or an API response carries)."""
    return json.dumps(rec.data, separators=(",", ":"), ensure_ascii=False)


def decode_all(stored: list[str]) -> list[Any]:
    return [json.loads(d) for d in stored]


def fold_all(game: Game, logs: list[list[Recorded]]) -> list[Match]:
    return [fold(game, log) for log in logs]


def best_rates(events: int, runs: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Events per second of each run, best of ``REPEATS``, the runs taking turns so that
    machine noise hits them alike."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: events / took for name, took in best.items()}


def rows(games: int) -> list[Row]:
    out = []
    for game in all_games():
        logs = [records(s.steps) for s in scripts(game, games, "replay")]
        stored = [data_json(r) for log in logs for r in log]
        events = len(stored)
        rates = best_rates(
            events,
            {
                "json": partial(decode_all, stored),
                "fold": partial(fold_all, game, logs),
            },
        )
        note = f"{events:,} events of {len(logs)} finished games, best of {REPEATS}"
        out.append(
            ratio_row(f"replay fold [{game.id}]", rates["fold"], "events/s", "json.loads of data",
                      rates["json"], ">=", 0.25, note)
        )  # fmt: skip
    return out
