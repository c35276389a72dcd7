"""The clocks of a table's seats (contract: Time controls), folded from the log's times.

``domain.table`` keeps each seat's clock in the ``Table`` (``left``, ``mark``, ``away``, ...)
and reads deadlines from it; this module starts the clocks, charges them at the end of each
batch (``settled``, called by ``table.settle`` with the batch's recorded time) and says them
for the meta and the summary (``clock_state``, ``figures``).  Pure: the time comes in as the
batches' recorded times, weekends as recorded UTC offsets (``domain.calendar``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from domain import calendar

if TYPE_CHECKING:  # ``domain.table`` imports this module
    from domain.table import Rules, Table

VACATION_STARTED, VACATION_ENDED = "VacationStarted", "VacationEnded"


def start_fields(rules: Rules, n: int) -> dict[str, Any]:
    """Every seat's clock at creation: the bank (or the turn's time), nothing taken."""
    if not rules.clocked:
        return {}
    none: tuple[int | None, ...] = (None,) * n
    full = rules.bank_ms if rules.bank_ms is not None else rules.turn_ms or 0
    return {"left": (full,) * n, "mark": none, "away": none, "away_from": none, "taken": (0,) * n}


def settled(table: Table, acting: tuple[int, ...], at: int) -> Table:
    """The seats' clocks at the end of a batch recorded at ``at``: a seat whose turn ends, or
    whose vacation starts or ends, is charged the time its clock ran since its mark; a seat
    whose turn begins starts from ``at`` (with the turn's time, or its bank); one whose turn
    ended gains the increment, up to the cap."""
    rules, n = table.rules, len(table.names)
    left = [table.left_of(s) for s in range(n)]
    mark = [table.mark_of(s) if s in table.acting else None for s in range(n)]
    away = [table.away_of(s) for s in range(n)]
    away_from = [table.away_from[s] if s < len(table.away_from) else None for s in range(n)]
    taken = [table.taken[s] if s < len(table.taken) else 0 for s in range(n)]
    touched = {seat for _, seat, _ in table.pending}
    for seat in table.acting:
        start = table.runs_from(seat)
        if start is not None and (seat not in acting or seat in touched):
            left[seat] = max(0, left[seat] - calendar.running(rules.offsets, start, at))
            mark[seat] = at
    for kind, seat, until in table.pending:
        if kind == VACATION_STARTED:
            away[seat], away_from[seat] = until, at
            taken[seat] += until - at
        elif (end := away[seat]) is not None:  # ended early: the time not used is given back
            taken[seat] -= max(0, end - at)
            away[seat] = away_from[seat] = None
    for seat in acting:
        if seat not in table.acting:
            mark[seat] = at
            if rules.bank_ms is None:
                left[seat] = rules.turn_ms or 0
    for seat in table.acting:
        if seat not in acting:
            mark[seat] = None
            if rules.bank_ms is not None:
                grown = left[seat] + rules.increment_ms
                left[seat] = grown if rules.max_ms is None else min(rules.max_ms, grown)
    return replace(
        table,
        left=tuple(left),
        mark=tuple(mark),
        away=tuple(away),
        away_from=tuple(away_from),
        taken=tuple(taken),
        pending=(),
    )


def clock_state(table: Table) -> dict[str, dict[str, int]]:
    """Each person's clock as the meta keeps it (the summary's ``clocks`` come from it, at the
    time they are read: ``figures``): ``left`` (as of ``from`` while it runs), ``from`` and
    ``deadline`` while the seat is to act, ``until`` during a vacation."""
    if not table.rules.clocked:
        return {}
    deadlines = table.deadlines()
    out: dict[str, dict[str, int]] = {}
    for seat, name in enumerate(table.names):
        if name is None or table.bots[seat]:
            continue
        doc = {"left": table.left_of(seat)}
        start = table.runs_from(seat)
        if seat in deadlines and start is not None:
            doc["from"], doc["deadline"] = start, deadlines[seat]
        if (away := table.away_of(seat)) is not None:
            doc["until"] = away
        out[str(seat)] = doc
    return out


def figures(
    rules: Rules, state: Mapping[str, Mapping[str, int]], now: int
) -> dict[str, dict[str, int]]:
    """The clocks at ``now`` from ``clock_state``: ``remaining`` (ms, never below 0), and the
    ``deadline`` and ``vacation_until`` that still stand."""
    out: dict[str, dict[str, int]] = {}
    for seat, doc in state.items():
        left = doc["left"]
        if "from" in doc:
            left = max(0, left - calendar.running(rules.offsets, doc["from"], now))
        fig = {"remaining": left}
        if "deadline" in doc:
            fig["deadline"] = doc["deadline"]
        if doc.get("until", 0) > now:
            fig["vacation_until"] = doc["until"]
        out[seat] = fig
    return out
