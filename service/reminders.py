"""Reminders: a notice when a seat's deadline is nearer than its account's ``reminders``
(contract: v2 additions, Notices to people).

**Where deadlines come from.**  The clocks' index (``service.clocks.DEADLINES``: each running
deadline's check job id, scored by the deadline) holds every seat's current deadline; an entry
leaves it only when its deadline passes.  So a look at the entries scored between now and
``HORIZON`` finds every deadline that may be owed a reminder, without folding any game.  An
entry may be stale (the seat acted since: its check stays until due); the game's meta holds
each seat's *current* deadline (``GameMeta.progress.deadlines``), so a stale entry is dropped
with one meta read per game, read in bulk.

**The scan** (``scan``, run by one worker every ``EVERY`` seconds: ``workers.notices``; the
workers take turns with a short lock, ``LOCK``) adds one ``reminder`` notice to the pending
ones (``notices.PENDING``) per ``(game, seat, deadline)`` whose account wants it: an account
holds the seat, its ``reminders`` is set, and the deadline is nearer than that.
``acct:remind:<game>:<seat>:<deadline>`` (``SET NX``, until the deadline has passed) makes it
once per deadline, whatever the number of scans and workers; the job itself takes the notices'
own mark (``service.notices``) and checks again that the deadline still stands, so a reminder
never follows a move made in the meantime.

A window longer than ``HORIZON`` (seven days) reminds ``HORIZON`` before the deadline: the
scan looks no further.  Nothing here reads an address; the job finds it by the seat.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from domain.engine import Job
from domain.table import duration_ms
from service import clocks, notices
from service.accounts import notifications_of

if TYPE_CHECKING:
    from service.chronicle import Chronicle

KIND = notices.REMINDER
HORIZON_MS = 7 * 24 * 3600 * 1000
EVERY = 30.0  # seconds between two scans (CHRONICLE_REMINDER_SECONDS)
LOCK = "chronicle:reminders:scan"  # held by the worker that scans this period
LIMIT = 10_000  # entries looked at per scan, soonest first


def window_ms(settings: dict[str, Any]) -> int | None:
    """How long before a deadline the account wants its reminder (None: not at all)."""
    wanted = settings.get("reminders")
    return duration_ms(wanted) if isinstance(wanted, str) else None


def mark_key(game_id: str, seat: int, deadline: int) -> str:
    return f"acct:remind:{game_id}:{seat}:{deadline}"


def upcoming(connection: Any, now_ms: int, horizon_ms: int = HORIZON_MS) -> list[Job]:
    """The deadline checks in the index due from now to ``now + horizon`` (not taken out)."""
    members = connection.zrangebyscore(
        clocks.DEADLINES, now_ms, now_ms + horizon_ms, start=0, num=LIMIT
    )
    return [job for m in members if (job := clocks.check_of(m)) is not None]


def owed(ch: Chronicle, checks: Iterable[Job], now_ms: int) -> list[tuple[str, int, int]]:
    """``(game, seat, deadline)`` of the checks whose deadline still stands and whose seat's
    account wants a reminder by now."""
    accounts = ch.accounts
    if accounts is None:
        return []
    by_game: dict[str, list[tuple[int, int]]] = {}
    for check in checks:
        if check.seat is not None:
            by_game.setdefault(check.game_id, []).append((check.seat, check.version))
    ids = list(by_game)
    windows: dict[str, int | None] = {}
    out: list[tuple[str, int, int]] = []
    for game_id, meta in zip(ids, ch.store.metas(ids), strict=True):
        if meta is None or not any(meta.players):
            continue
        standing = meta.progress.deadlines or {}
        for seat, deadline in by_game[game_id]:
            player = meta.players[seat] if seat < len(meta.players) else None
            if not player or standing.get(str(seat)) != deadline:
                continue
            if player not in windows:
                account = accounts.get(player)
                windows[player] = (
                    window_ms(notifications_of(account.notifications)) if account else None
                )
            window = windows[player]
            if window is not None and deadline - now_ms <= window:
                out.append((game_id, seat, deadline))
    return out


def scan(ch: Chronicle, connection: Any, now_ms: int) -> int:
    """Add the reminders owed now to the pending notices (``notices.PENDING``, on the queue's
    Redis ``connection``), each once per deadline; how many."""
    accounts = ch.accounts
    if accounts is None:
        return 0
    sent = 0
    for game_id, seat, deadline in owed(ch, upcoming(connection, now_ms), now_ms):
        keep = max(1, (deadline - now_ms) // 1000 + 3600)
        if not accounts.r.set(mark_key(game_id, seat, deadline), 1, nx=True, ex=keep):
            continue
        notice = notices.entry(game_id, seat, KIND, deadline, None)
        connection.zadd(notices.PENDING, {notice: now_ms}, nx=True)  # due now: no grace
        sent += 1
    return sent


def take_turn(connection: Any, every: float) -> bool:
    """Whether this worker scans this period (one worker does: a lock that expires)."""
    return bool(connection.set(LOCK, 1, nx=True, px=max(1, int(every * 900))))
