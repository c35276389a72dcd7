"""Notices to people by email and push (contract: v2 additions, Notices to people).

**The hook.**  After an append (``service.hooks``), a game whose seats no account holds costs
nothing (``GameMeta.players`` is empty: no Redis call).  Otherwise a notice is owed for each
seat an account holds whose turn *began* in that append (to act now, not before it; a seat a
bot plays is left out), kind ``your_turn``, and for each such seat when the append ended the
game, kind ``game_over``; after an undo, for each seat it handed a turn back to (to act after
it, not before), ``your_turn`` at the undo's version.  The owed notices go to ``PENDING``,
a sorted set scored by when each is due: ``CHRONICLE_NOTICE_GRACE`` seconds (``GRACE``) after
the append, so that a person playing at the table, who moves within it, is not mailed at every
turn (when the grace is over the notice is no longer news: ``turn over``).  A worker's loop
takes the due ones every tenth of a second, settles in one go what the games' metas and the
accounts decide, and makes RQ jobs of the rest on the ``notices`` queue (``service.notice_batch``,
``workers.notices``).  A notice's id names the game, the seat, the kind and the version at which
the turn began (the *turn marker*), so the appends of one turn owe one notice at most.
Reminders (``service.reminders``), the digest (``service.digest``) and
invitations (``service.invitations``) are the other kinds.

**The job** (run by the worker) sends nothing unless the account has that kind on and
``email`` or ``push`` (with a subscription: ``service.push``) on.  It checks again that the
notice is still news (``owed``: the seat still to act and not acted since, a deadline still
standing; a move may have come since), leaves out the seat whose own undo handed it its turn,
and takes ``acct:notice:<game>:<seat>:<kind>:<marker>`` (``SET NX``, seven days) so that a job
run twice mails once.  In the account's quiet hours (its ``timezone``, UTC by default; a range
may cross midnight), or always when its ``digest`` is on, the notice is kept for the daily
digest (``keep``) instead of being sent.  The message is made from the seat's redacted view
only (``service.notice_text``), in the account's ``locale`` (none: English; the mail says
it in ``Content-Language`` and ``<html lang>``); ``<public>`` is ``CHRONICLE_PUBLIC_URL``,
without it the links are paths.  Every mail has RFC 8058's one-click unsubscribe
(``service.unsubscribe``).

**Push.**  The same decision, mark and message serve both: one notice event is a mail and/or
one push job per subscription of the account (``service.push.enqueue``), with ``{title, body,
url}`` made of the message's subject and lines.  The push jobs are enqueued once per notice
(their own mark, ``<mark>:push``), so a retry after a mail failure does not push twice.

No address, code or token is ever written to a log line or an error message.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue

from domain.engine import Match
from projections.records import Recorded
from projections.views import revealed
from service import mail, push
from service.accounts import Account, notifications_of
from service.deferred import Deferred
from service.errors import NotFound
from service.loading import Current
from service.notice_text import GAME_OVER as GAME_OVER
from service.notice_text import INVITATION as INVITATION
from service.notice_text import REMINDER as REMINDER
from service.notice_text import YOUR_TURN as YOUR_TURN
from service.notice_text import language, mail_headers, message, notice_lines, zone
from service.unsubscribe import unsubscribe_headers

if TYPE_CHECKING:
    from service.chronicle import Chronicle

QUEUE = "notices"
SEND = "workers.notices.send"  # one notice (jobs queued before batches; workers/notices.py)
SEND_MANY = "workers.notices.send_many"  # a batch of notices (``notice_batch.queue_due``)
# the setting that switches a kind on and off, where it is not the kind's own name
SETTING = {REMINDER: "reminders", INVITATION: "invitations"}
# sorted set: the notices owed, not yet settled or jobs, scored by when each is due (ms)
PENDING = "chronicle:notices:due"
QUEUEING = "chronicle:notices:queueing"  # held by the worker making them jobs
GRACE = 60.0  # seconds a turn's notice waits for the seat to play (CHRONICLE_NOTICE_GRACE)
ONCE_SECONDS = 7 * 24 * 3600  # how long a sent notice's mark keeps a second copy away
MAX_SINCE = 200  # records after a turn began beyond which its notice is stale


# ---- the hook ------------------------------------------------------------------------------
def due(cur: Current, match: Match) -> list[tuple[int, str]]:
    """The notices an append owes: ``(seat, kind)`` for the seats an account holds.  ``cur``
    is the game before the append (at a creation: the game after it, so nothing began)."""
    players = cur.meta.players
    if not any(players):
        return []
    game = cur.game
    before = set(cur.match.to_act(game))
    out = [
        (seat, YOUR_TURN)
        for seat in match.to_act(game)
        if seat not in before and seat < len(players) and players[seat] and match.bot(seat) is None
    ]
    if revealed(match.status(game)) and not revealed(cur.match.status(game)):
        out += [(seat, GAME_OVER) for seat, held in enumerate(players) if held]
    return out


def turn_began(match: Match, seat: int) -> int | None:
    """When ``seat``'s current turn began (ms, the batch's time), as the table noted it."""
    table = match.table
    if table is None or seat >= len(table.since):
        return None
    return table.since[seat]


def job_id(game_id: str, seat: int, kind: str, marker: int) -> str:
    return f"notice-{game_id}-{seat}-{kind}-{marker}"


def entry(
    game_id: str, seat: int, kind: str, marker: int, began: int | None, undone: bool = False
) -> str:
    """A notice owed, as ``PENDING`` keeps it (the job's arguments)."""
    return json.dumps([game_id, seat, kind, marker, began, *((True,) if undone else ())])


class Notices:
    """The hook that notes a notice owed for each turn that began for an account's seat, for
    ``PENDING`` (on the queue's Redis) due ``grace`` seconds on, sent after the answer
    (``service.deferred``); the workers settle them or make them jobs
    (``notice_batch.queue_due``).  An RQ job made here cost the move more than the rest of
    its hooks together (RQ writes a hash of some twenty fields, in several round trips), and
    even one write a tenth of a millisecond: the fan-out benchmark (``bench.notices``)
    measures it."""

    def __init__(self, queue: Queue, grace: float | None = None) -> None:
        self.queue = queue
        self.owed = Deferred(queue.connection, PENDING)
        self.grace_ms = int(1000 * (grace_seconds() if grace is None else grace))

    def _owe(self, owed: list[str]) -> None:
        self.owed.push(owed, time.time_ns() // 10**6 + self.grace_ms)

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        owed = [
            entry(cur.game_id, seat, kind, match.version, turn_began(match, seat))
            if kind == YOUR_TURN
            else entry(cur.game_id, seat, kind, match.version, None)
            for seat, kind in due(cur, match)
        ]
        if owed:
            self._owe(owed)

    def undone(self, cur: Current, target: int) -> None:
        """A turn handed back by an undo (the seat to act now and not before it: ``cur.meta``
        is the game's meta before the undo) is a turn that begins at ``target``; the job
        leaves out the seat whose own undo it was."""
        players = cur.meta.players
        if not any(players):
            return
        before = set(cur.meta.progress.to_act)
        owed = [
            entry(cur.game_id, seat, YOUR_TURN, target, turn_began(cur.match, seat), True)
            for seat in cur.match.to_act(cur.game)
            if seat < len(players)
            and players[seat]
            and seat not in before
            and cur.match.bot(seat) is None
        ]
        if owed:
            self._owe(owed)

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None


def notice_id(args: Sequence[Any]) -> str:
    """The id of the notice of ``args`` (``entry``'s): its game, seat, kind and marker (a turn
    an undo handed back has its own: the turn's first notice may be under way)."""
    game_id, seat, kind, marker = args[:4]
    undone = len(args) > 5 and args[5]
    return job_id(game_id, seat, kind, marker) + ("-undone" if undone else "")


def done_key(notice: str) -> str:
    """Where a notice's outcome is kept for ten minutes (``sent``, ``off``, ``quiet hours``...):
    what RQ's result of a job would say, for operators and tests."""
    return f"chronicle:notices:done:{notice}"


def grace_seconds(env: Mapping[str, str] = os.environ) -> float:
    """``CHRONICLE_NOTICE_GRACE``: how long the notices of an append wait before they are
    looked at (``GRACE`` by default; 0: at once)."""
    raw = env.get("CHRONICLE_NOTICE_GRACE")
    return GRACE if raw in (None, "") else max(0.0, float(raw))


# ---- quiet hours ---------------------------------------------------------------------------
def _minutes(hhmm: str) -> int:
    hours, _, minutes = hhmm.partition(":")
    return int(hours) * 60 + int(minutes)


def quiet(hours: Mapping[str, str] | None, timezone: str | None, now: datetime) -> bool:
    """Whether ``now`` is in the quiet hours ``{from, to}`` (HH:MM in ``timezone``): from
    ``from`` included to ``to`` excluded, across midnight when ``to`` comes first; an empty
    range (``from`` equal to ``to``) is never quiet."""
    if not hours:
        return False
    start, end = _minutes(hours["from"]), _minutes(hours["to"])
    local = now.astimezone(zone(timezone))
    at = local.hour * 60 + local.minute
    if start <= end:
        return start <= at < end
    return at >= start or at < end


# ---- the digest's inbox (service.digest sends it) -------------------------------------------
DIGESTS = "acct:digests"  # sorted set: player -> when to look at their digest next (ms)


def digest_key(player: str) -> str:
    return f"acct:{player}:digest"


def keep(r: redis.Redis, player: str, item: Mapping[str, Any]) -> None:
    """Hold a notice for the account's daily digest (the digest's scan looks at it soon and
    decides when it goes)."""
    with r.pipeline(transaction=False) as pipe:
        pipe.rpush(digest_key(player), json.dumps(item, sort_keys=True))
        pipe.expire(digest_key(player), 3 * ONCE_SECONDS)
        pipe.zadd(DIGESTS, {player: 0}, nx=True)
        pipe.execute()


# ---- the job -------------------------------------------------------------------------------
def public_url(env: Mapping[str, str] = os.environ) -> str:
    """``CHRONICLE_PUBLIC_URL`` without its trailing slash ("" when unset: links are paths)."""
    return (env.get("CHRONICLE_PUBLIC_URL") or "").rstrip("/")


def mark_key(game_id: str, seat: int, kind: str, marker: int) -> str:
    return f"acct:notice:{game_id}:{seat}:{kind}:{marker}"


Sender = Callable[[str, str, str, str, Mapping[str, str]], None]
# (player, notice {title, body, url}, mark) -> how many push jobs were enqueued
Pusher = Callable[[str, Mapping[str, str], str], int]


def _send_mail(to: str, subject: str, text: str, page: str, headers: Mapping[str, str]) -> None:
    mail.send_message(to, subject, text, page, headers)


def notify(
    ch: Chronicle,
    game_id: str,
    seat: int,
    kind: str,
    marker: int,
    began: int | None,
    now: datetime | None = None,
    public: str | None = None,
    sender: Sender = _send_mail,
    pusher: Pusher | None = None,
    undone: bool = False,
    known: Account | None = None,
) -> str:
    """Mail and/or push one notice if it is still owed; what was done (for the job's result).
    Without ``pusher`` nothing is pushed.  ``undone``: a turn handed back by an undo, not
    sent to the seat that asked for it (it is there).  ``known``: the seat's account as a
    batch read it (``service.notice_batch``), used if it still holds the seat."""
    accounts = ch.accounts
    if accounts is None:
        return "no accounts"
    try:
        cur = ch.current(game_id)
    except NotFound:
        return "no game"
    players = cur.meta.players
    player = players[seat] if seat < len(players) else None
    account = None
    if player:
        account = known if known is not None and known.id == player else accounts.get(player)
    if account is None:
        return "no account"
    settings = notifications_of(account.notifications)
    by_mail = bool(settings.get("email"))
    by_push = (
        bool(settings.get("push")) and pusher is not None and push.has_any(accounts.r, account.id)
    )
    setting = SETTING.get(kind, kind)
    if not (by_mail or by_push) or not settings.get(setting):
        return "off"
    if not owed(ch, cur, seat, kind, marker, began):
        return "turn over"
    if undone and (ch.store.last_undone(game_id) or {}).get("by") == f"seat:{seat}":
        return "own undo"
    mark = mark_key(game_id, seat, kind, marker)
    if not accounts.r.set(mark, 1, nx=True, ex=ONCE_SECONDS):
        return "sent before"
    if settings.get("digest") or quiet(
        settings.get("quiet_hours"), account.timezone, now or datetime.now(UTC)
    ):
        if by_mail:  # kept for the daily mail (a push is not kept)
            item = {"game": game_id, "seat": seat, "kind": kind, "at": marker}
            keep(accounts.r, account.id, item)
        return "digest" if settings.get("digest") else "quiet hours"
    base = public_url() if public is None else public.rstrip("/")
    lang = language(account.locale)
    subject, lines, table = notice_lines(ch, cur, seat, kind, base, marker, account.timezone, lang)
    if (
        pusher is not None
        and by_push
        and accounts.r.set(f"{mark}:push", 1, nx=True, ex=ONCE_SECONDS)
    ):
        pusher(account.id, push.payload(subject, lines, table), mark.replace(":", "-"))
    if not by_mail:
        return "sent"
    text, page = message(subject, lines, table, lang)
    headers = mail_headers(lang, unsubscribe_headers(accounts.r, account.id, setting, base))
    try:
        sender(account.email, subject, text, page, headers)
    except mail.MailFailed:
        accounts.r.delete(mark)  # not sent: RQ's retry may send it
        raise
    return "sent"


def owed(ch: Chronicle, cur: Current, seat: int, kind: str, marker: int, b: int | None) -> bool:
    """Whether the notice is still news: a turn not yet played (``still_owed``), a deadline
    that still stands (a reminder's marker is the deadline)."""
    table = cur.match.table
    if kind == YOUR_TURN:
        return still_owed(ch, cur, seat, marker, b)
    if kind == REMINDER:
        return table is not None and table.deadlines().get(seat) == marker
    return True


def still_owed(ch: Chronicle, cur: Current, seat: int, marker: int, began: int | None) -> bool:
    """The turn that began at version ``marker`` is still running and untouched: the seat is
    to act, since the same moment where the table notes it (a clocked table), and it has not
    acted since (a seat that played part of its turn is at the table; one whose turn ended
    and began again has its newer notice)."""
    if seat not in cur.match.to_act(cur.game):
        return False
    if began is not None and turn_began(cur.match, seat) != began:
        return False
    since = cur.match.version - marker
    if since < 0 or since > MAX_SINCE:  # undone below it, or long past
        return False
    records = ch.store.read(cur.game_id, marker, since) if since else []
    return all(r.actor != seat for r in records)
