"""The clock's calendar: how much of a span of time counts, with weekends off.

A table with ``"weekends": "off"`` runs no clock on Saturday and Sunday in its time zone.  The
domain has no time-zone database (``datetime``/``zoneinfo`` read the machine's tz data, and
the rules of a zone change with its releases: a replay on another machine, or years later,
could draw other weekends and disagree about a timeout).  So the service resolves the zone
once, at creation, into its UTC offsets (``utc_offsets``: ``[[from_ms, offset_ms], ...]``,
every change of offset for the years ahead), and records them in ``GameCreated``'s table
section.  The log then holds the calendar it is judged by, and every deadline is arithmetic
on recorded numbers.  After the last recorded change the last offset holds.

Times are milliseconds since the epoch (UTC); 1970-01-01 was a Thursday.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

DAY = 86_400_000
WEEK = 7 * DAY
_THURSDAY = 3  # the weekday (Monday 0) of day 0, 1970-01-01
_SATURDAY = 5

Offsets = Sequence[tuple[int, int]]  # (from this UTC time on, this offset), ascending


def offset_at(offsets: Offsets, t: int) -> int:
    """The zone's offset from UTC (ms) at UTC time ``t`` (0 without recorded offsets)."""
    out = offsets[0][1] if offsets else 0
    for start, offset in offsets:
        if start > t:
            break
        out = offset
    return out


def _local_to_utc(offsets: Offsets, local: int) -> int:
    """The UTC time whose local time is ``local`` (around a change, the first that fits)."""
    utc = local - offset_at(offsets, local)
    return local - offset_at(offsets, utc)


def weekends(offsets: Offsets, start: int) -> Iterator[tuple[int, int]]:
    """The weekends (UTC ``[begin, end)``, Saturday 00:00 to Monday 00:00 local time) that
    end after ``start``, in order, without end."""
    day = (start + offset_at(offsets, start)) // DAY
    saturday = day - (day + _THURSDAY) % 7 + _SATURDAY - 7  # the weekend before, to be sure
    while True:
        begin = _local_to_utc(offsets, saturday * DAY)
        end = _local_to_utc(offsets, (saturday + 2) * DAY)
        if end > start:
            yield begin, end
        saturday += 7


def running(offsets: Offsets | None, start: int, end: int) -> int:
    """How much of ``[start, end)`` the clock runs: all of it, or (``offsets`` given: weekends
    off) all but the weekends."""
    if end <= start:
        return 0
    if offsets is None:
        return end - start
    total = end - start
    for begin, stop in weekends(offsets, start):
        if begin >= end:
            break
        total -= max(0, min(stop, end) - max(begin, start))
    return total


def advance(offsets: Offsets | None, start: int, amount: int) -> int:
    """The first time at which the clock, running from ``start``, has run ``amount`` (the
    inverse of ``running``): a deadline."""
    if offsets is None or amount <= 0:
        return start + max(0, amount)
    t, left = start, amount
    for begin, stop in weekends(offsets, start):
        if begin > t:
            if left <= begin - t:
                return t + left
            left -= begin - t
        t = max(t, stop)
    raise AssertionError("weekends never end")  # pragma: no cover
