"""Row 4: replay speed, folding the records of finished random games (``projections.fold``),
beside decoding the same events' stored JSON alone (``json.loads`` of each data field)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from bench.report import Row, ratio_row
from bench.scripts import all_games, scripts
from domain.simulate import Step
from projections.fold import fold
from projections.records import Recorded
from service.store import encode_record

REPEATS = 5


def records(script_steps: list[Step]) -> list[Recorded]:
    out = []
    for step in script_steps:
        first = step.match.version - len(step.events) + 1
        for i, e in enumerate(step.events):
            command = step.action if i == 0 else None
            out.append(Recorded(first + i, e.type, e.seat, 0, step.seat, command, dict(e.data), ""))
    return out


def data_field(rec: Recorded) -> str:
    """The ``d`` field of the record as the store writes it."""
    fields = encode_record(rec)
    return dict(zip(fields[::2], fields[1::2], strict=True))["d"]


def best_rate(events: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return events / best


def rows(games: int) -> list[Row]:
    out = []
    for game in all_games():
        logs = [records(s.steps) for s in scripts(game, games, "replay")]
        stored = [data_field(r) for log in logs for r in log]
        events = len(stored)
        json_rate = best_rate(events, lambda stored=stored: [json.loads(d) for d in stored])
        fold_rate = best_rate(events, lambda g=game, logs=logs: [fold(g, log) for log in logs])
        note = f"{events:,} events of {len(logs)} finished games, best of {REPEATS}"
        out.append(
            ratio_row(f"replay fold [{game.id}]", fold_rate, "events/s", "json.loads of data",
                      json_rate, ">=", 0.25, note)
        )  # fmt: skip
    return out
