"""The creation fields of a time control (contract: Time controls), checked, and the time
zone's offsets the log records for weekends off.

``time_control`` is ``{"per_turn": D}`` (what ``turn_time`` means) or ``{"bank": D,
"increment": D, "max": D}`` (``increment`` and ``max`` optional), each with an optional
``"weekends": "off"`` and ``"vacation": D`` (durations in ISO 8601, weeks to seconds).  The
table section of ``GameCreated`` records it as given, with ``timezone`` and, for weekends off,
``utc_offsets`` (``domain.calendar``: the zone resolved here, once, so the log holds the
calendar it is judged by).

``CHRONICLE_MIN_BANK``: an operator's minimum bank (ISO 8601; default
``CHRONICLE_MIN_TURN_TIME``'s value, else ``PT1S``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain import table as tables
from service import clocks

OFFSET_YEARS = 5  # the offsets recorded for weekends off cover this many years ahead
MAX_VACATION = "P365D"
_STEP = timedelta(days=1)  # no zone changes its offset twice in a day


def min_bank(env: Mapping[str, str] = os.environ) -> str:
    return env.get("CHRONICLE_MIN_BANK") or clocks.min_turn_time(env)


def _duration(
    control: Mapping[str, Any], key: str, least: str, problems: dict[str, list[str]]
) -> int | None:
    """``control[key]`` in ms, checked: a duration of weeks to seconds, from ``least`` to
    ``MAX_TURN_TIME`` (a deadline stays a date); None (and a problem) if it is not."""
    text = control.get(key)
    if text is None:
        return None
    ms = tables.duration_ms(text)
    top = clocks.MAX_TURN_TIME if key != "vacation" else MAX_VACATION
    name = f"time_control.{key}"
    if ms is None:
        problems[name] = ["an ISO 8601 duration of weeks to seconds, e.g. P3D, PT2M"]
    elif ms < (tables.duration_ms(least) or 0):
        problems[name] = [f"at least {least}"]
    elif ms > (tables.duration_ms(top) or 0):
        problems[name] = [f"at most {top}"]
    else:
        return ms
    return None


def checked(
    body: Mapping[str, Any], problems: dict[str, list[str]]
) -> tuple[str | None, dict[str, Any]]:
    """(``turn_time``, the table section's time-control fields) of a creation request; what
    is wrong goes into ``problems``."""
    turn_time, control = body.get("turn_time"), body.get("time_control")
    zone = body.get("timezone")
    if control is None:
        if zone is not None:
            problems["timezone"] = ["only with a time_control"]
        return turn_time, {}
    if turn_time is not None:
        problems["turn_time"] = ["give either turn_time or time_control"]
    per_turn, bank = control.get("per_turn"), control.get("bank")
    if (per_turn is None) == (bank is None):
        problems["time_control"] = ["one of per_turn or bank"]
    if per_turn is not None and (control.get("increment") or control.get("max")):
        problems["time_control.per_turn"] = ["increment and max go with a bank"]
    _duration(control, "per_turn", clocks.min_turn_time(), problems)
    bank_ms = _duration(control, "bank", min_bank(), problems)
    _duration(control, "increment", "PT0S", problems)
    cap = _duration(control, "max", "PT1S", problems)
    _duration(control, "vacation", "PT0S", problems)
    vacation = control.get("vacation")
    if vacation is not None and (tables.duration_ms(vacation) or 0) % 86_400_000:
        problems["time_control.vacation"] = ["whole days, e.g. P14D"]
    if bank_ms is not None and cap is not None and cap < bank_ms:
        problems["time_control.max"] = ["at least the bank"]
    section: dict[str, Any] = {"time_control": dict(control), "timezone": zone or "UTC"}
    try:
        tz = ZoneInfo(section["timezone"])
    except (ZoneInfoNotFoundError, ValueError):
        problems["timezone"] = ["an IANA time zone, e.g. Europe/Paris"]
        return per_turn, section
    if control.get("weekends") == "off":
        section["utc_offsets"] = offsets(tz, time.time_ns() // 10**6)
    return per_turn, section


def offsets(tz: ZoneInfo, now_ms: int, years: int = OFFSET_YEARS) -> list[list[int]]:
    """The zone's offsets from a week before ``now_ms`` to ``years`` ahead: ``[from_ms,
    offset_ms]`` at the start and at every change (found day by day, then to the second)."""
    t = datetime.fromtimestamp(now_ms / 1000, UTC).replace(minute=0, second=0, microsecond=0)
    t -= timedelta(days=7)
    end = t + timedelta(days=366 * years)
    current = _offset(tz, t)
    out = [[_ms(t), current]]
    while t < end:
        nxt = t + _STEP
        if (offset := _offset(tz, nxt)) != current:
            low, high = t, nxt  # the change is in (low, high]
            while high - low > timedelta(seconds=1):
                mid = low + (high - low) / 2
                low, high = (mid, high) if _offset(tz, mid) == current else (low, mid)
            out.append([_ms(high), offset])
            current = offset
        t = nxt
    return out


def _offset(tz: ZoneInfo, t: datetime) -> int:
    delta = t.astimezone(tz).utcoffset()
    return 0 if delta is None else int(delta.total_seconds() * 1000)


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)
