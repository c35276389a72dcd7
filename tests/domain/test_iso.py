"""``projections.records.iso``: the time of an event as the contract shows it, ISO 8601 in
UTC to the millisecond, from the second's text kept between calls."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.records import iso

YEAR_1900, YEAR_2200 = -2_208_988_800_000, 7_258_118_400_000


def reference(ms: int) -> str:
    """What ``iso`` wrote before it kept a second's text (exact in these years; past about
    2240 the float ``ms / 1000`` can lose the last millisecond)."""
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(YEAR_1900, YEAR_2200), min_size=1, max_size=8))
def test_iso_writes_what_datetime_writes_whatever_came_before(times: list[int]) -> None:
    for ms in times:  # consecutive calls: the kept second must never leak into the next
        assert iso(ms) == reference(ms)
        assert iso(ms + 1) == reference(ms + 1)


@settings(max_examples=300, deadline=None)
@given(st.integers(-62_135_596_800_000, 253_402_300_799_999))  # years 1 to 9999
def test_iso_reads_back_as_its_millisecond(ms: int) -> None:
    text = iso(ms)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    back = (parsed - datetime(1970, 1, 1, tzinfo=UTC)) // datetime.resolution // 1000
    assert back == ms and len(text) == 24
