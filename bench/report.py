"""Rows of the benchmark table: a figure, the limit it is compared with, the ratio, the target."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Row:
    figure: str
    value: float
    unit: str
    limit: str  # what the figure is compared with (measured in the same run, or a budget)
    limit_value: float
    target: str  # e.g. "<= 15x", "<= 200 B", "-" (informative only)
    met: bool | None  # None: informative row
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.value / self.limit_value if self.limit_value else float("nan")


def pct(samples: Sequence[float], p: float) -> float:
    """The p-th percentile (nearest rank) of the samples."""
    ordered = sorted(samples)
    k = max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[k]


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def _num(v: float, unit: str) -> str:
    if unit == "ms":
        return f"{v:.3f} ms" if v < 1 else f"{v:.2f} ms"
    if unit in ("/s", "events/s"):
        return f"{v:,.0f} {unit}"
    return f"{v:,.0f} {unit}".rstrip()


def table(rows: Sequence[Row]) -> str:
    head = ("figure", "value", "limit (same run)", "limit value", "ratio", "target", "met")
    body = []
    for r in rows:
        met = {True: "yes", False: "NO", None: "-"}[r.met]
        body.append(
            (r.figure, _num(r.value, r.unit), r.limit, _num(r.limit_value, r.unit),
             f"{r.ratio:.2f}x", r.target, met)
        )  # fmt: skip
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]
    right = {1, 3, 4}

    def line(cells: Sequence[str]) -> str:
        out = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(out) + " |"

    dashes = ["-" * (w + 1) + ":" if i in right else "-" * (w + 2) for i, w in enumerate(widths)]
    sep = "|" + "|".join(dashes) + "|"
    lines = [line(head), sep, *(line(b) for b in body)]
    notes = [f"- {r.figure}: {r.note}" for r in rows if r.note]
    return "\n".join(lines + (["", *notes] if notes else []))


def to_json(rows: Sequence[Row], meta: dict[str, Any]) -> str:
    out = []
    for r in rows:
        d = asdict(r)
        d.update(ratio=r.ratio, met=r.met)
        out.append(d)
    return json.dumps({**meta, "rows": out}, indent=2)


def ratio_row(
    figure: str,
    value: float,
    unit: str,
    limit: str,
    limit_value: float,
    op: str,
    bound: float,
    note: str = "",
    **extra: Any,
) -> Row:
    """A row whose target bounds the ratio (``op`` is ``<=``, ``>=`` or ``-`` for none)."""
    row = Row(figure, value, unit, limit, limit_value, "-", None, note, extra)
    if op != "-":
        ratio = row.ratio
        row.met = ratio <= bound if op == "<=" else ratio >= bound
        row.target = f"{op} {bound:g}x"
    return row
