"""The table around a game: who sits where, who plays a seat (a person or a bot), the clock.

Every game, whatever its rules, is played at a table.  The table's facts are events of the
game's own log, decided by ``domain.seating`` and folded here, next to (never inside) the
game's state:

- ``SeatJoined {seat, name}``, ``SeatLeft {seat}``: an open seat taken or given back while
  the table waits; ``GameStarted {filled}``: the table starts (``filled``: the open seats the
  host gave to bots).  A table with open seats is ``waiting`` until it starts;
- ``SeatResigned {seat, bot}``: the seat's player gave up, ``bot`` plays the seat from then on;
- ``SeatClaimed {seat, player}``: an account (its public id, never its email) holds the seat
  from now on (``service.accounts``); it changes nothing in play, so it may come at any time,
  even after the end (a guest who signs up keeps the games they finished);
- ``SeatInvited {seat, player}``: the host invited an account to an open seat of a waiting
  table (``service.invitations``: a notice with the seat's invitation); nothing changes at
  the table until someone joins;
- ``GameAbandoned {}``: the host ended the game without a result (status ``abandoned``);
- ``TurnTimedOut {seat}``: the seat's clock ran out; the resign bot plays the rest of that
  turn.  After ``takeover_after`` of them in a row (turns in between played by the person reset
  the count), ``SeatTakenOver {seat, bot}`` hands the seat to the bot for good;
- ``VacationStarted {seat, until}``, ``VacationEnded {seat}``: the seat's clock stops until
  ``until`` or the early end (``domain.vacation``).

The clock needs time, and the domain has none: time comes in as data.  ``settle`` is called
at the end of every batch with the batch's recorded time (``at``), and notes when each seat
to act began its turn.  A deadline is that moment plus ``turn_time``, so a replay of the log
computes exactly the deadlines the service computed.  With a ``time_control`` bank, each seat
keeps the time it has left between turns (``_clock``); weekends off are counted from the UTC
offsets recorded at creation (``domain.calendar``).

``floor`` is the version below which undo may not reach: every table event is a barrier (a
join hands out a token, a timeout is time spent), and so is every event appended while a
timed-out turn is played by the bot (undo never gives a timed-out turn back).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from domain import calendar, clock
from domain import shapes as sh

SEAT_JOINED, SEAT_LEFT, GAME_STARTED = "SeatJoined", "SeatLeft", "GameStarted"
SEAT_RESIGNED, GAME_ABANDONED = "SeatResigned", "GameAbandoned"
TURN_TIMED_OUT, SEAT_TAKEN_OVER = "TurnTimedOut", "SeatTakenOver"
SEAT_CLAIMED = "SeatClaimed"
SEAT_INVITED = "SeatInvited"  # the host invited an account to an open seat (a notice)
VACATION_STARTED, VACATION_ENDED = clock.VACATION_STARTED, clock.VACATION_ENDED
EVENTS = frozenset(
    {
        VACATION_STARTED,
        VACATION_ENDED,
        SEAT_CLAIMED,
        SEAT_INVITED,
        SEAT_JOINED,
        SEAT_LEFT,
        GAME_STARTED,
        SEAT_RESIGNED,
        GAME_ABANDONED,
        TURN_TIMED_OUT,
        SEAT_TAKEN_OVER,
    }
)
# The data of the table's events as every caller sees them (the OpenAPI document's event
# components, ``domain/shapes.py``); a game's own event of the same name is its alternative.
EVENT_DATA: dict[str, sh.Shape] = {
    SEAT_JOINED: sh.record({"seat": sh.INT, "name": sh.STR}),
    SEAT_LEFT: sh.record({"seat": sh.INT}),
    GAME_STARTED: sh.record(
        {"filled": sh.map_of(sh.STR, sh.SEAT_MAP, "the bot now playing each open seat")}
    ),
    SEAT_RESIGNED: sh.record({"seat": sh.INT, "bot": sh.STR}),
    GAME_ABANDONED: sh.record({}),
    TURN_TIMED_OUT: sh.record({"seat": sh.INT}),
    SEAT_TAKEN_OVER: sh.record({"seat": sh.INT, "bot": sh.STR}),
    SEAT_CLAIMED: sh.record({"seat": sh.INT, "player": sh.STR}),
    SEAT_INVITED: sh.record({"seat": sh.INT, "player": sh.STR}),
    VACATION_STARTED: sh.record({"seat": sh.INT, "until": sh.INT}),
    VACATION_ENDED: sh.record({"seat": sh.INT}),
}
TIME_CONTROL: sh.Shape = sh.record(
    {
        "per_turn": sh.optional(sh.STR),
        "bank": sh.optional(sh.STR),
        "increment": sh.optional(sh.STR),
        "max": sh.optional(sh.STR),
        "weekends": sh.optional(sh.string(choices=("off", "on"))),
        "vacation": sh.optional(sh.STR),
    },
    "the clock: per turn, or a bank with an increment (and a cap); weekends, vacations",
)
# ``Rules.data()``: the ``table`` section of ``GameCreated``.
RULES_DATA: sh.Shape = sh.record(
    {
        "open": sh.INTS,
        "public": sh.BOOL,
        "turn_time": sh.nullable(sh.STR),
        "resign_bot": sh.STR,
        "timeouts_before_takeover": sh.INT,
        "rated": sh.optional(sh.BOOL),  # absent: false (logs from before ratings)
        "time_control": sh.optional(TIME_CONTROL),  # absent: turn_time alone
        "timezone": sh.optional(sh.STR),
        "utc_offsets": sh.optional(
            sh.list_of(sh.INTS, "[from (ms), offset (ms)]: the zone's offsets (domain.calendar)")
        ),
    },
    "how the table was set up (open seats, lobby, clock, rated)",
)
WAITING, ABANDONED = "waiting", "abandoned"


def is_event(kind: str, data: Mapping[str, Any]) -> bool:
    """Is this one of the table's events?  Artus's set-up event is also called ``GameStarted``
    (it was there first, and stored logs hold it); the table's ``GameStarted`` is the one with
    ``filled``."""
    return kind in EVENTS and (kind != GAME_STARTED or "filled" in data)


DEFAULT_RESIGN_BOT = "greedy"
DEFAULT_TAKEOVER_AFTER = 3

_DURATION = re.compile(
    r"P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?"
    r"(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d{1,3})?)S)?)?"
)


def duration_ms(text: str) -> int | None:
    """Milliseconds of an ISO 8601 duration of weeks, days, hours, minutes and seconds
    (``P3D``, ``PT2M``, ``PT1.5S``); None if it is not one.  Years and months are refused:
    their length depends on the calendar."""
    m = _DURATION.fullmatch(text)
    if m is None or text in ("P", "PT") or text.endswith("T"):
        return None
    w, d, h, mi = (int(m.group(k) or 0) for k in "wdhm")
    s = float(m.group("s") or 0)
    return round((((w * 7 + d) * 24 + h) * 60 + mi) * 60_000 + s * 1000)


@dataclass(frozen=True)
class Rules:
    """How the table was set up at creation (the ``table`` section of ``GameCreated``)."""

    open: tuple[int, ...] = ()  # seats anyone holding their invitation may take
    public: bool = False  # listed in the lobby; joins need no invitation
    turn_time: str | None = None  # ISO 8601 duration, None: no clock
    turn_ms: int | None = None
    resign_bot: str = DEFAULT_RESIGN_BOT
    takeover_after: int = DEFAULT_TAKEOVER_AFTER
    rated: bool = False  # the result counts for the players' ratings (``service.ratings``)
    # the time control (``time_control``, contract: Time controls), as recorded and parsed
    time_control: Mapping[str, str] | None = None
    bank_ms: int | None = None  # a bank per seat, instead of ``turn_ms``
    increment_ms: int = 0  # added to the bank after each of the seat's turns
    max_ms: int | None = None  # the bank's cap (None: none)
    vacation_ms: int = 0  # vacation each seat may take in the game
    timezone: str | None = None
    # weekends off: the zone's UTC offsets, recorded at creation (``domain.calendar``)
    offsets: tuple[tuple[int, int], ...] | None = None

    @property
    def clocked(self) -> bool:
        return self.turn_ms is not None or self.bank_ms is not None

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "open": list(self.open),
            "public": self.public,
            "turn_time": self.turn_time,
            "resign_bot": self.resign_bot,
            "timeouts_before_takeover": self.takeover_after,
        }
        if self.rated:  # absent when false: a log from before ratings is written as it was
            out["rated"] = True
        if self.time_control is not None:  # absent otherwise: older logs are written as they were
            out["time_control"] = dict(self.time_control)
            if self.timezone is not None:
                out["timezone"] = self.timezone
            if self.offsets is not None:
                out["utc_offsets"] = [list(o) for o in self.offsets]
        return out


def rules_from(data: Mapping[str, Any] | None) -> Rules:
    if not data:
        return Rules()
    turn_time = data.get("turn_time")
    return Rules(
        open=tuple(data.get("open") or ()),
        public=bool(data.get("public")),
        turn_time=turn_time,
        turn_ms=duration_ms(turn_time) if turn_time else None,
        resign_bot=data.get("resign_bot") or DEFAULT_RESIGN_BOT,
        takeover_after=int(data.get("timeouts_before_takeover") or DEFAULT_TAKEOVER_AFTER),
        rated=bool(data.get("rated")),
        **_control(data),
    )


def _control(data: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed ``time_control`` of a table section (checked at creation: ``service.lobby``)."""
    control = data.get("time_control")
    if not control:
        return {}
    bank, cap = control.get("bank"), control.get("max")
    offsets = data.get("utc_offsets")
    return {
        "time_control": dict(control),
        "bank_ms": duration_ms(bank) if bank else None,
        "increment_ms": duration_ms(control.get("increment") or "PT0S") or 0,
        "max_ms": duration_ms(cap) if cap else None,
        "vacation_ms": duration_ms(control.get("vacation") or "PT0S") or 0,
        "timezone": data.get("timezone"),
        "offsets": (
            tuple((int(a), int(b)) for a, b in offsets or ())
            if control.get("weekends") == "off"
            else None
        ),
    }


@dataclass(frozen=True)
class Table:
    rules: Rules
    names: tuple[str | None, ...]  # None: an open seat
    bots: tuple[str | None, ...]  # the bot playing each seat for good (None: a person)
    started: bool
    abandoned: bool = False
    declared: bool = False  # created with a table section (v1 additions)
    resigned: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()  # timed-out turns in a row, per seat
    timed_out: frozenset[int] = frozenset()  # seats whose current turn the bot plays
    acting: tuple[int, ...] = ()  # seats to act at the end of the last batch
    since: tuple[int | None, ...] = ()  # when each acting seat began its turn (ms)
    floor: int = 0  # undo may not truncate below this version
    players: tuple[str | None, ...] = ()  # the account holding each seat (SeatClaimed)
    # The clock of each seat (a clocked table; empty in snapshots from before banks: then
    # ``since`` and ``turn_ms`` say it all).  ``left``: the time the seat has, as of ``mark``
    # when it is to act (its clock runs from ``mark``, or from the end of its vacation), else
    # its bank between turns.  ``away``: the end of its vacation (ms), ``away_from`` its
    # start; ``taken``: the vacation time it used.  ``pending``: the vacation events of the
    # batch being folded, (type, seat, until), noted at its end (``settle``: its time).
    left: tuple[int, ...] = ()
    mark: tuple[int | None, ...] = ()
    away: tuple[int | None, ...] = ()
    away_from: tuple[int | None, ...] = ()
    taken: tuple[int, ...] = ()
    pending: tuple[tuple[str, int, int], ...] = ()

    def status(self) -> str | None:
        """``abandoned`` or ``waiting``, else None (the game's own status applies)."""
        if self.abandoned:
            return ABANDONED
        return None if self.started else WAITING

    def is_open(self, seat: int) -> bool:
        return self.names[seat] is None

    def open_seats(self) -> list[int]:
        return [s for s, n in enumerate(self.names) if n is None]

    def bot_of(self, seat: int) -> str | None:
        """The bot that plays ``seat`` now: its own for good, or the resign bot for the rest
        of a timed-out turn; None if a person plays it."""
        if self.bots[seat]:
            return self.bots[seat]
        return self.rules.resign_bot if seat in self.timed_out else None

    def deadlines(self) -> dict[int, int]:
        """When each seat to act that a person plays must have acted (ms since the epoch):
        its clock runs from ``runs_from`` (outside weekends, when they are off) for the time
        it has left.  A seat with no time left (a bank spent, no increment) is due at once."""
        if not self.rules.clocked:
            return {}
        out = {}
        for seat in self.acting:
            start, left = self.runs_from(seat), self.left_of(seat)
            if start is not None and self.bot_of(seat) is None:
                # nothing left: out of time at once, whatever the vacation or the weekend
                due = calendar.advance(self.rules.offsets, start, left)
                out[seat] = due if left else self.mark_of(seat) or start
        return out

    def left_of(self, seat: int) -> int:
        """The time ``seat`` has (ms): as of ``mark`` while it acts, else its bank."""
        if seat < len(self.left):
            return self.left[seat]
        return self.rules.turn_ms or self.rules.bank_ms or 0

    def mark_of(self, seat: int) -> int | None:
        return self.mark[seat] if seat < len(self.mark) else self.since[seat]

    def away_of(self, seat: int) -> int | None:
        return self.away[seat] if seat < len(self.away) else None

    def runs_from(self, seat: int) -> int | None:
        """When ``seat``'s running clock (re)started: ``mark``, or its vacation's end."""
        mark = self.mark_of(seat)
        if mark is None:
            return None
        return max(mark, self.away_of(seat) or mark)

    def remaining(self, seat: int, now: int) -> int:
        """The time ``seat`` has left at ``now`` (ms, never below 0)."""
        start = self.runs_from(seat) if seat in self.acting else None
        if start is None or self.bot_of(seat) is not None:
            return self.left_of(seat)
        return max(0, self.left_of(seat) - calendar.running(self.rules.offsets, start, now))

    def vacation_left(self, seat: int) -> int:
        """The vacation time ``seat`` may still take (ms)."""
        taken = self.taken[seat] if seat < len(self.taken) else 0
        return max(0, self.rules.vacation_ms - taken)

    def seats(self) -> list[dict[str, Any]]:
        """The summary's seats: ``{seat, open: true}`` or ``{seat, name, bot}``."""
        out: list[dict[str, Any]] = []
        for seat, name in enumerate(self.names):
            if name is None:
                out.append({"seat": seat, "open": True})
                continue
            doc: dict[str, Any] = {"seat": seat, "name": name, "bot": self.bots[seat]}
            if seat in self.resigned:
                doc["resigned"] = True
            out.append(doc)
        return out


class _Event(Protocol):
    """An event (``domain.engine.Event``; this module comes before the engine)."""

    @property
    def type(self) -> str: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def data(self) -> Mapping[str, Any]: ...


def initial(
    data: Mapping[str, Any] | None, players: Sequence[tuple[str | None, str | None]]
) -> Table:
    """The table of a new game: ``data`` is the ``table`` section of ``GameCreated`` (None for
    a game created with every seat named), ``players`` its (name, bot) pairs."""
    rules = rules_from(data)
    n = len(players)
    names = tuple(None if s in rules.open else name or "" for s, (name, _) in enumerate(players))
    return Table(
        rules=rules,
        names=names,
        bots=tuple(bot for _, bot in players),
        started=not rules.open,
        declared=data is not None,
        timeouts=(0,) * n,
        since=(None,) * n,
        players=(None,) * n,
        **clock.start_fields(rules, n),
    )


def evolve(table: Table, event: _Event, version: int) -> Table:
    """Apply one table event (``version`` is the event's own)."""
    seat, data = event.seat, event.data
    t = replace(table, floor=version)
    if event.type == SEAT_JOINED and seat is not None:
        return replace(t, names=_set(t.names, seat, str(data["name"])))
    if event.type == SEAT_LEFT and seat is not None:
        return replace(t, names=_set(t.names, seat, None))
    if event.type == GAME_STARTED:
        filled = {int(k): v for k, v in (data.get("filled") or {}).items()}
        names = tuple(f"{filled[s]} bot" if s in filled else n for s, n in enumerate(t.names))
        bots = tuple(filled.get(s, b) for s, b in enumerate(t.bots))
        return replace(t, started=True, names=names, bots=bots)
    if event.type in (SEAT_RESIGNED, SEAT_TAKEN_OVER) and seat is not None:
        resigned = (*t.resigned, seat) if event.type == SEAT_RESIGNED else t.resigned
        return replace(
            t,
            bots=_set(t.bots, seat, str(data["bot"])),
            resigned=resigned,
            timed_out=t.timed_out - {seat},
        )
    if event.type == TURN_TIMED_OUT and seat is not None:
        return replace(
            t,
            timeouts=_set(t.timeouts, seat, t.timeouts[seat] + 1),
            timed_out=t.timed_out | {seat},
        )
    if event.type == GAME_ABANDONED:
        return replace(t, abandoned=True)
    if event.type in (VACATION_STARTED, VACATION_ENDED) and seat is not None:
        until = int(data.get("until") or 0)
        return replace(t, pending=(*t.pending, (event.type, seat, until)))
    if event.type == SEAT_CLAIMED and seat is not None:
        players = t.players or (None,) * len(t.names)
        return replace(t, players=_set(players, seat, str(data["player"])))
    return t


def settle(table: Table, to_act: Sequence[int], at: int, version: int) -> Table:
    """The end of a batch recorded at ``at``: note whose turn began and whose ended.

    A seat whose turn ended after a timeout keeps its count of timeouts in a row; one whose
    turn a person finished starts again from zero.  While the bot plays a timed-out turn,
    every batch raises the undo floor."""
    acting = tuple(to_act)
    if acting == table.acting and not table.timed_out and not table.pending:
        return table
    if table.rules.clocked:
        table = clock.settled(table, acting, at)
    since = list(table.since)
    timeouts = list(table.timeouts)
    timed_out = set(table.timed_out)
    for seat in acting:
        if seat not in table.acting:
            since[seat] = at
    for seat in table.acting:
        if seat not in acting:
            since[seat] = None
            if seat in timed_out:
                timed_out.discard(seat)
            else:
                timeouts[seat] = 0
    return replace(
        table,
        acting=acting,
        since=tuple(since),
        timeouts=tuple(timeouts),
        timed_out=frozenset(timed_out),
        floor=version if table.timed_out else table.floor,
    )


def with_resigned(table: Table, result: Mapping[str, Any]) -> dict[str, Any]:
    """The final result with ``details.resigned`` (tables created with the v1 fields, or any
    game in which a seat resigned)."""
    out = dict(result)
    if table.declared or table.resigned:
        out["details"] = {**(result.get("details") or {}), "resigned": sorted(table.resigned)}
    return out


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])
