"""Time controls (contract: Time controls; ``domain.table``, ``domain.calendar``,
``domain.vacation``): banks with increments and a cap, weekends off in the table's zone,
vacations, simultaneous turns; and, for random schedules, the folded deadlines agree with a
clock that counts hour by hour (so no timeout fires early and none is missed)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import calendar, engine, seating, vacation
from domain import table as tables
from domain.engine import Config, Event, Player
from domain.errors import BadAction, Forbidden, StateConflict
from domain.games import GAMES
from domain.rng import Rng
from projections.clock_audit import audit
from projections.records import CREATE
from projections.replay import replay
from service.commands import chained

HOUR = 3_600_000
DAY = 24 * HOUR
MONDAY = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)  # a Monday, 00:00 UTC


def section(**control: str) -> dict[str, Any]:
    rules = tables.Rules().data()
    return {**rules, "time_control": control, "timezone": "UTC"}


def new_table(data: dict[str, Any], seats: int = 3) -> tables.Table:
    return tables.initial(data, [(f"p{s}", None) for s in range(seats)])


def vacation_event(table: tables.Table, seat: int, until: int | None) -> tables.Table:
    kind = tables.VACATION_ENDED if until is None else tables.VACATION_STARTED
    data = {"seat": seat} if until is None else {"seat": seat, "until": until}
    return tables.evolve(table, Event(kind, seat, data), 1)


def test_a_bank_runs_only_while_the_seat_acts_and_grows_by_the_increment_to_the_cap() -> None:
    t = new_table(section(bank="PT10H", increment="PT3H", max="PT12H"), seats=2)
    t = tables.settle(t, [0], MONDAY, 1)
    assert t.deadlines() == {0: MONDAY + 10 * HOUR}
    t = tables.settle(t, [1], MONDAY + 4 * HOUR, 2)  # seat 0 used 4h: 6h + 3h
    assert t.left_of(0) == 9 * HOUR and t.deadlines() == {1: MONDAY + 14 * HOUR}
    t = tables.settle(t, [0], MONDAY + 5 * HOUR, 3)  # seat 1: 10h - 1h + 3h, capped at 12h
    assert t.left_of(1) == 12 * HOUR and t.deadlines() == {0: MONDAY + 14 * HOUR}
    assert t.remaining(0, MONDAY + 7 * HOUR) == 7 * HOUR
    assert t.remaining(1, MONDAY + 7 * HOUR) == 12 * HOUR, "a waiting seat's bank stands"


def test_simultaneous_turns_run_every_voters_bank_at_once() -> None:
    t = new_table(section(bank="PT10H"), seats=3)
    t = tables.settle(t, [0, 1, 2], MONDAY, 1)
    t = tables.settle(t, [1, 2], MONDAY + 2 * HOUR, 2)  # seat 0 voted
    t = tables.settle(t, [2], MONDAY + 5 * HOUR, 3)  # seat 1 voted
    assert (t.left_of(0), t.left_of(1)) == (8 * HOUR, 5 * HOUR)
    assert t.deadlines() == {2: MONDAY + 10 * HOUR}, "seat 2's bank ran from the start"


def test_per_turn_is_a_bank_that_starts_full_every_turn() -> None:
    t = new_table(section(per_turn="PT2H") | {"turn_time": "PT2H"}, seats=2)
    t = tables.settle(t, [0], MONDAY, 1)
    t = tables.settle(t, [1], MONDAY + HOUR, 2)
    t = tables.settle(t, [0], MONDAY + 90 * 60_000, 3)
    assert t.deadlines() == {0: MONDAY + 90 * 60_000 + 2 * HOUR}


def test_weekends_off_stop_the_clock_in_the_tables_zone() -> None:
    tokyo = 9 * HOUR  # Friday 20:00 in Tokyo is Friday 11:00 UTC
    data = section(bank="PT10H", weekends="off") | {"utc_offsets": [[0, tokyo]]}
    t = new_table(data, seats=2)
    friday_20_tokyo = MONDAY + 4 * DAY + 11 * HOUR
    t = tables.settle(t, [0], friday_20_tokyo, 1)
    # 4h to Saturday 00:00 Tokyo, then none until Monday 00:00 Tokyo, then 6h
    monday_tokyo = MONDAY + 7 * DAY - tokyo
    assert t.deadlines() == {0: monday_tokyo + 6 * HOUR}
    assert t.remaining(0, monday_tokyo) == 6 * HOUR
    assert calendar.running(data["utc_offsets"], friday_20_tokyo, monday_tokyo) == 4 * HOUR


def test_weekends_follow_a_change_of_offset() -> None:
    offsets = [(0, HOUR), (MONDAY + 2 * DAY, 2 * HOUR)]  # summer time from Wednesday
    begin, end = next(calendar.weekends(offsets, MONDAY))
    assert (begin, end) == (MONDAY + 5 * DAY - 2 * HOUR, MONDAY + 7 * DAY - 2 * HOUR)


def test_a_vacation_stops_the_clock_and_an_early_end_gives_the_rest_back() -> None:
    t = new_table(section(bank="PT10H", vacation="P3D"), seats=2)
    t = tables.settle(t, [0], MONDAY, 1)
    t = tables.settle(vacation_event(t, 0, MONDAY + 2 * HOUR + 2 * DAY), [0], MONDAY + 2 * HOUR, 2)
    assert t.deadlines() == {0: MONDAY + 2 * DAY + 10 * HOUR}
    assert t.vacation_left(0) == DAY
    back = MONDAY + 2 * HOUR + DAY
    t = tables.settle(vacation_event(t, 0, None), [0], back, 3)
    assert t.deadlines() == {0: back + 8 * HOUR} and t.vacation_left(0) == 2 * DAY


def test_vacations_are_refused_when_not_allowed_or_beyond_the_allowance() -> None:
    game = GAMES["artus"]
    for control, days, code in (({}, 1, "vacations_off"), ({"vacation": "P2D"}, 3, None)):
        m = artus(section(bank="P1D", **control))
        with pytest.raises(StateConflict if code else BadAction) as err:
            vacation.start(m, game, 0, days, MONDAY + HOUR)
        assert code is None or err.value.code == code
    m = artus(section(bank="P1D", vacation="P2D"))
    with pytest.raises(StateConflict, match="not on vacation"):
        vacation.end(m, game, 0, MONDAY + HOUR)


def artus(data: dict[str, Any]) -> engine.Match:
    game = GAMES["artus"]
    config = Config(
        "artus", {"rules": "basic", "undo": "none"}, (Player("a"), Player("b")), table=data
    )
    return engine.settle(
        game, engine.fold(game, engine.create(game, config, Rng.at("t", 1))), MONDAY
    )


# Random schedules: a table of three seats whose turns (one or several seats at once) end at
# random hours, with vacations and their early ends, on a bank or per-turn clock, weekends on
# or off in a zone of whole hours.  A live service times a seat out at its deadline; here a
# timeout comes at exactly the deadline the table folds, and the oracle (an hour-by-hour
# count, with datetime's calendar) must agree that the time ran out then, never before.

STEP = st.tuples(
    st.integers(1, 40),  # hours until this step
    st.sampled_from(["turn", "vacation", "back"]),
    st.sets(st.integers(0, 2), min_size=1),  # who acts next (a turn), the seat (else: min)
    st.integers(1, 3),  # vacation days
)


class Oracle:
    """Each seat's time counted hour by hour: an hour counts if the seat is to act, is not
    on vacation and (weekends off) the hour is not on a Saturday or Sunday in the zone."""

    def __init__(self, bank: int, inc: int, cap: int | None, per_turn: bool, off: int | None):
        self.bank, self.inc, self.cap, self.per_turn, self.off = bank, inc, cap, per_turn, off
        self.left = [bank] * 3
        self.acting: set[int] = set()
        self.away = [0, 0, 0]

    def counts(self, seat: int, t: int) -> bool:
        if t < self.away[seat]:
            return False
        if self.off is None:
            return True
        return datetime.fromtimestamp((t + self.off) / 1000, UTC).weekday() < 5

    def run(self, start: int, end: int) -> None:
        for t in range(start, end, HOUR):
            for seat in self.acting:
                if self.counts(seat, t):
                    self.left[seat] -= HOUR

    def deadline(self, seat: int, now: int) -> int:
        left, t = self.left[seat], now
        while left > 0:
            left -= HOUR if self.counts(seat, t) else 0
            t += HOUR
        return t

    def turns(self, acting: set[int]) -> None:
        for seat in acting - self.acting:
            if self.per_turn:
                self.left[seat] = self.bank
        for seat in self.acting - acting:
            if not self.per_turn:
                grown = max(0, self.left[seat]) + self.inc
                self.left[seat] = grown if self.cap is None else min(self.cap, grown)
        self.acting = set(acting)


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(STEP, min_size=1, max_size=25),
    bank=st.integers(1, 60),
    inc=st.integers(0, 10),
    cap=st.one_of(st.none(), st.integers(60, 90)),
    per_turn=st.booleans(),
    weekends=st.booleans(),
    zone=st.integers(-11, 14),
)
def test_folded_deadlines_agree_with_an_hourly_count(
    steps: list[tuple[int, str, set[int], int]],
    bank: int,
    inc: int,
    cap: int | None,
    per_turn: bool,
    weekends: bool,
    zone: int,
) -> None:
    control = {"per_turn": f"PT{bank}H"} if per_turn else {"bank": f"PT{bank}H"}
    if not per_turn:
        control |= {"increment": f"PT{inc}H"} | ({"max": f"PT{cap}H"} if cap else {})
    control |= {"vacation": "P30D"} | ({"weekends": "off"} if weekends else {})
    data = section(**control) | ({"turn_time": f"PT{bank}H"} if per_turn else {})
    data["utc_offsets"] = [[0, zone * HOUR]]
    t = new_table(data)
    oracle = Oracle(
        bank * HOUR,
        inc * HOUR,
        cap * HOUR if cap else None,
        per_turn,
        zone * HOUR if weekends else None,
    )
    now, version = MONDAY, 1
    t = tables.settle(t, [0, 1, 2], now, version)
    oracle.turns({0, 1, 2})
    for hours, kind, seats, days in steps:
        later = now + hours * HOUR
        # the live service's timeouts: each at its deadline, earliest first, before `later`
        while (due := [(d, s) for s, d in t.deadlines().items() if d <= later]) != []:
            deadline, seat = min(due)
            assert deadline >= now
            oracle.run(now, deadline)
            now = deadline
            assert oracle.left[seat] <= 0, "timed out early"
            assert oracle.deadline(seat, now) == now
            t = tables.evolve(t, Event(tables.TURN_TIMED_OUT, seat, {"seat": seat}), version)
            t = tables.settle(t, t.acting, now, version)
            assert seat not in t.deadlines(), "a timed-out turn is the bot's"
        oracle.run(now, later)
        now = later
        version += 1
        seat = min(seats)
        if kind == "turn":
            t = tables.settle(t, sorted(seats), now, version)
            oracle.turns(seats)
        elif kind == "vacation" and (t.away_of(seat) or 0) <= now:
            t = tables.settle(vacation_event(t, seat, now + days * DAY), t.acting, now, version)
            oracle.away[seat] = now + days * DAY
        elif kind == "back" and (t.away_of(seat) or 0) > now:
            t = tables.settle(vacation_event(t, seat, None), t.acting, now, version)
            oracle.away[seat] = now
        for s, deadline in t.deadlines().items():
            assert deadline == oracle.deadline(s, now), (s, "deadline missed or early")
            assert t.remaining(s, now) == oracle.left[s]


def test_a_replay_re_derives_each_timeout_and_vacation_from_the_recorded_times() -> None:
    """A log of moves, a vacation and timeouts, decided at recorded times, replays; the same
    log with a timeout moved before its deadline is refused."""
    game = GAMES["artus"]
    data = section(bank="PT1H", increment="PT10M", vacation="P1D")
    config = Config(
        "artus", {"rules": "basic", "undo": "none"}, (Player("a"), Player("b")), table=data
    )
    records = chained("s", 0, "", engine.create(game, config, Rng.at("s", 1)), None, CREATE, MONDAY)
    match = replay(game, "s", records)
    now = MONDAY

    def append(events: list[Event], actor: int | None, command: Any, at: int) -> None:
        nonlocal match, records
        more = chained("s", match.version, records[-1].hash, events, actor, command, at)
        records = [*records, *more]
        match = replay(game, "s", records)

    for step in range(12):
        seat = match.to_act(game)[0]
        table = match.table
        assert table is not None
        if step == 2:
            now += 5 * 60_000
            cmd = seating.command("vacation", seat=seat, days=1)
            append(vacation.start(match, game, seat, 1, now), seat, cmd, now)
            continue
        if step % 3 == 1 and seat in table.deadlines():
            now = table.deadlines()[seat]
            cmd = seating.command("timeout", seat=seat)
            append(seating.time_out(match, game, seat, now), None, cmd, now)
        while seat in match.to_act(game):
            now += 60_000
            action = game.legal_actions(match.state, seat)[0]
            append(
                engine.decide(game, match, seat, action, Rng.at("s", match.version + 1)),
                seat,
                action,
                now,
            )
    kinds = [r.type for r in records]
    assert "VacationStarted" in kinds and kinds.count("TurnTimedOut") >= 2
    found = audit(game, records)
    assert len(found.timeouts) == kinds.count("TurnTimedOut") and found.timeouts[0].late == 0
    assert found.missed == () and found.early == ()
    # the rules refuse that timeout a millisecond before its deadline (so replay would)
    cut = next(i for i, r in enumerate(records) if r.type == "TurnTimedOut")
    before = replay(game, "s", records[:cut])
    late_seat = records[cut].seat
    assert late_seat is not None and before.table is not None
    deadline = before.table.deadlines()[late_seat]
    with pytest.raises(Forbidden, match="has time until"):
        seating.time_out(before, game, late_seat, deadline - 1)
    # the same game where that seat moves instead, 5 minutes late: a missing timeout
    action = game.legal_actions(before.state, late_seat)[0]
    events = engine.decide(game, before, late_seat, action, Rng.at("s", before.version + 1))
    late = chained(
        "s", before.version, records[cut - 1].hash, events, late_seat, action, deadline + 300_000
    )
    found = audit(game, [*records[:cut], *late])
    assert [(m.seat, m.deadline, m.late) for m in found.missed] == [(late_seat, deadline, 300_000)]


def test_lancasters_votes_run_every_voters_bank_at_once() -> None:
    """LA votes: several seats to act at once, each one's bank runs from when its vote began;
    one that votes stops its own clock only."""
    game = GAMES["lancaster"]
    players = tuple(Player(n) for n in ("a", "b", "c"))
    config = Config("lancaster", {}, players, table=section(bank="P1D", increment="PT1H"))
    match = engine.settle(game, engine.fold(game, engine.create(game, config, Rng.at("v", 1))), 0)
    rng = random.Random(7)
    now = 0
    for _ in range(5000):  # to the first vote (the start's building is simultaneous too)
        if match.state.phase == "vote" and len(match.to_act(game)) == 3:
            break
        seat = rng.choice(match.to_act(game))
        action = rng.choice(game.legal_actions(match.state, seat))
        now += 60_000
        events = engine.decide(game, match, seat, action, Rng.at("v", match.version + 1))
        match = engine.settle(game, engine.fold(game, events, match), now)
    assert match.state.phase == "vote", "no vote came"
    table = match.table
    assert table is not None
    voters = match.to_act(game)
    # a seat to act before the vote and in it (its turn never ended) kept its own start
    began = {s: table.mark_of(s) or 0 for s in voters}
    assert table.deadlines() == {s: began[s] + table.left_of(s) for s in voters}
    first = voters[0]
    banks = {s: table.left_of(s) for s in voters}
    action = game.legal_actions(match.state, first)[0]
    events = engine.decide(game, match, first, action, Rng.at("v", match.version + 1))
    match = engine.settle(game, engine.fold(game, events, match), now + 3_600_000)
    table = match.table
    assert table is not None
    assert any(s in match.to_act(game) for s in voters[1:]), "the others still decide"
    for s in voters[1:]:
        if s in match.to_act(game):  # still to vote: its clock kept running from the start
            assert table.deadlines()[s] == began[s] + banks[s]
            assert table.remaining(s, now + 3_600_000) == banks[s] - (now + 3_600_000 - began[s])
    if first not in match.to_act(game):
        spent = now + 3_600_000 - began[first]
        assert table.left_of(first) == banks[first] - spent + 3_600_000  # + the increment
