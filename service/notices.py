"""Notices to people by email (contract: v2 additions, Notices to people; the email part).

**The hook.**  After an append (``service.hooks``), a game whose seats no account holds costs
nothing (``GameMeta.players`` is empty: no Redis call).  Otherwise one job is enqueued on the
``notices`` queue for each seat an account holds whose turn *began* in that append (to act now,
not before it; a seat a bot plays is left out), kind ``your_turn``, and for each such seat when
the append ended the game, kind ``game_over``.  The job's id names the game, the seat, the kind
and the version at which the turn began (the *turn marker*), so the appends of one turn enqueue
one job at most.

**The job** (run by the worker) sends nothing unless the account has that kind on and
``email`` or ``push`` (with a subscription: ``service.push``) on, and nothing in its quiet hours
(in its ``timezone``, UTC by default; a range may cross midnight; the digest of what quiet
hours held back is a later slice).  It takes
``acct:notice:<game>:<seat>:<kind>:<marker>`` (``SET NX``, seven days) so that a job run twice
mails once, and checks again that the turn it was told of is still owed (``still_owed``: the
seat still to act and not acted since; a move may have come since).  The message is made
from the seat's redacted view only (the view ``GET .../view`` gives that seat) and the
public names of the table: the game, the other players, the version, the seat's own hand where
the game has one, and the table's link ``<public>/play/<id>`` (no token: the account's cookie
plays it).  ``<public>`` is ``CHRONICLE_PUBLIC_URL``; without it the links are paths and the
message has no ``List-Unsubscribe`` (a path is no URI a mail program can POST to).

**One-click unsubscribe** (RFC 8058).  Each message carries ``List-Unsubscribe:
<<public>/api/v1/unsubscribe?t=<token>>`` and ``List-Unsubscribe-Post:
List-Unsubscribe=One-Click``.  The token is ``<player>.<kind>.<hex HMAC-SHA256(secret,
"<player>:<kind>")>``; the secret is made once and kept in Redis (``acct:secret``, ``SET NX``),
so every process and every restart signs alike.  A POST with a valid token turns that kind off
(``all``: email altogether) without signing in (``service.http.notices``).

**Push.**  The same decision, mark and message serve both: one notice event is a mail and/or
one push job per subscription of the account (``service.push.enqueue``), with ``{title, body,
url}`` made of the message's subject and lines.  The push jobs are enqueued once per notice
(their own mark, ``<mark>:push``), so a retry after a mail failure does not push twice.

No address, code or token is ever written to a log line or an error message.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import redis
from rq import Queue, Retry

from domain.engine import Match
from domain.errors import BadAction
from projections.records import Recorded
from projections.views import SEAT, Caller, revealed
from service import mail, push
from service.accounts import Accounts, notifications_of
from service.errors import NotFound
from service.loading import Current

if TYPE_CHECKING:
    from service.chronicle import Chronicle

QUEUE = "notices"
SEND = "workers.notices.send"  # the job (workers/notices.py: the worker's service)
YOUR_TURN, GAME_OVER = "your_turn", "game_over"
ALL = "all"
# what an unsubscribe token may turn off, and the value that turns it off
OFF: dict[str, Any] = {
    YOUR_TURN: False,
    GAME_OVER: False,
    "invitations": False,
    "digest": False,
    "reminders": None,
}
SECRET_KEY = "acct:secret"
ONCE_SECONDS = 7 * 24 * 3600  # how long a sent notice's mark keeps a second copy away
MAX_SINCE = 200  # records after a turn began beyond which its notice is stale
UNSUBSCRIBE_PATH = "/api/v1/unsubscribe"
ONE_CLICK = "List-Unsubscribe=One-Click"


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


class Notices:
    """The hook that enqueues a notice job for each turn that began for an account's seat."""

    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        for seat, kind in due(cur, match):
            began = turn_began(match, seat) if kind == YOUR_TURN else None
            self.queue.enqueue(
                SEND,
                cur.game_id,
                seat,
                kind,
                match.version,
                began,
                job_id=job_id(cur.game_id, seat, kind, match.version),
                description="notice",  # never the address: the job finds it by the seat
                retry=Retry(max=3, interval=[10, 60, 300]),
                result_ttl=600,
                failure_ttl=24 * 3600,
            )

    def undone(self, cur: Current, target: int) -> None:
        return None

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None


# ---- quiet hours ---------------------------------------------------------------------------
def zone(name: str | None) -> ZoneInfo:
    """The account's time zone; UTC when it has none (or one this process does not know)."""
    if name:
        try:
            return ZoneInfo(name)
        except (KeyError, ValueError, OSError):  # not found (a KeyError), malformed, a folder
            pass
    return ZoneInfo("UTC")


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


# ---- unsubscribe tokens --------------------------------------------------------------------
def secret(r: redis.Redis) -> bytes:
    """The signing secret of unsubscribe links, made by the first process that needs it."""
    r.set(SECRET_KEY, secrets.token_hex(32), nx=True)
    value = r.get(SECRET_KEY)
    return value if isinstance(value, bytes) else str(value).encode()


def _mac(key: bytes, player: str, kind: str) -> str:
    return hmac.new(key, f"{player}:{kind}".encode(), hashlib.sha256).hexdigest()


def unsubscribe_token(r: redis.Redis, player: str, kind: str) -> str:
    return f"{player}.{kind}.{_mac(secret(r), player, kind)}"


def token_of(r: redis.Redis, token: str) -> tuple[str, str] | None:
    """``(player, kind)`` of a valid unsubscribe token, else None."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    player, kind, mac = parts
    if not player or (kind not in OFF and kind != ALL):
        return None
    expected = _mac(secret(r), player, kind)
    if not hmac.compare_digest(mac.encode(), expected.encode()):
        return None
    return player, kind


def verified(r: redis.Redis, token: str) -> tuple[str, str]:
    """``(player, kind)`` of an unsubscribe token; 400 if it does not verify."""
    found = token_of(r, token)
    if found is None:
        raise BadAction("this unsubscribe link is not valid", {"t": ["not a valid link"]})
    return found


def unsubscribe(accounts: Accounts, token: str) -> dict[str, Any]:
    """Turn off what a token names (400 for a token that does not verify)."""
    player, kind = verified(accounts.r, token)
    account = accounts.get(player)
    if account is None:  # deleted since: nothing is mailed to it any more
        return {"kind": kind, "email": False}
    change = {"email": False} if kind == ALL else {kind: OFF[kind]}
    updated = accounts.update(player, {"notifications": change})
    return {"kind": kind, "email": bool(updated.notifications.get("email"))}


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
) -> str:
    """Mail and/or push one notice if it is still owed; what was done (for the job's result).
    Without ``pusher`` nothing is pushed."""
    accounts = ch.accounts
    if accounts is None:
        return "no accounts"
    try:
        cur = ch.current(game_id)
    except NotFound:
        return "no game"
    players = cur.meta.players
    player = players[seat] if seat < len(players) else None
    account = accounts.get(player) if player else None
    if account is None:
        return "no account"
    settings = notifications_of(account.notifications)
    by_mail = bool(settings.get("email"))
    by_push = (
        bool(settings.get("push")) and pusher is not None and push.has_any(accounts.r, account.id)
    )
    if not (by_mail or by_push) or not settings.get(kind):
        return "off"
    if quiet(settings.get("quiet_hours"), account.timezone, now or datetime.now(UTC)):
        return "quiet hours"
    mark = mark_key(game_id, seat, kind, marker)
    if not accounts.r.set(mark, 1, nx=True, ex=ONCE_SECONDS):
        return "sent before"
    if kind == YOUR_TURN and not still_owed(ch, cur, seat, marker, began):
        return "turn over"
    base = public_url() if public is None else public.rstrip("/")
    subject, lines, table = notice_lines(ch, cur, seat, kind, base)
    if (
        pusher is not None
        and by_push
        and accounts.r.set(f"{mark}:push", 1, nx=True, ex=ONCE_SECONDS)
    ):
        pusher(account.id, push.payload(subject, lines, table), mark.replace(":", "-"))
    if not by_mail:
        return "sent"
    subject, text, page = message(ch, cur, seat, kind, base)
    headers: dict[str, str] = {}
    if base:
        link = f"{base}{UNSUBSCRIBE_PATH}?t={unsubscribe_token(accounts.r, account.id, kind)}"
        headers = {"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": ONE_CLICK}
    try:
        sender(account.email, subject, text, page, headers)
    except mail.MailFailed:
        accounts.r.delete(mark)  # not sent: RQ's retry may send it
        raise
    return "sent"


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


# ---- the message ---------------------------------------------------------------------------
def notice_lines(
    ch: Chronicle, cur: Current, seat: int, kind: str, base: str
) -> tuple[str, list[str], str]:
    """``(subject, lines, table link)`` of a notice, from the seat's redacted view and the
    table's public names only (the mail's and the push's words)."""
    view = ch.view(cur, Caller(SEAT, seat), None, False)
    title = cur.game.name
    names = [str(s.get("name") or f"seat {i}") for i, s in enumerate(cur.meta.seats)]
    others = [n for i, n in enumerate(names) if i != seat]
    table = f"{base}/play/{cur.game_id}"
    with_whom = ", ".join(others) or "nobody else"
    lines: list[str] = []
    if kind == YOUR_TURN:
        subject = f"Your turn in {title}"
        lines.append(f"It is your turn in {title} with {with_whom} (version {view['version']}).")
        hand = (view.get("state") or {}).get("hand")
        if isinstance(hand, list) and hand:
            lines.append(f"Your hand: {', '.join(str(c) for c in hand)}.")
    else:
        subject = f"{title} is over"
        lines.append(f"Your game of {title} with {with_whom} is over.")
        lines.append(_result(view.get("result"), names))
    return subject, lines, table


def message(ch: Chronicle, cur: Current, seat: int, kind: str, base: str) -> tuple[str, str, str]:
    """``(subject, text, html)`` of a notice (``notice_lines``)."""
    subject, lines, table = notice_lines(ch, cur, seat, kind, base)
    lines.append(f"Open the table: {table}")
    stop = "Your mail program's Unsubscribe turns these emails off; so do your notice settings."
    text = "\n\n".join([*lines, stop]) + "\n"
    paragraphs = [f"<p>{html.escape(line)}</p>" for line in lines[:-1]]
    link = html.escape(table, quote=True)
    paragraphs.append(f'<p><a href="{link}">Open the table</a></p>')
    paragraphs.append(f"<p><small>{html.escape(stop)}</small></p>")
    page = "<!doctype html>\n<html><body>\n" + "\n".join(paragraphs) + "\n</body></html>\n"
    return subject, text, page


def _result(result: Any, names: Sequence[str]) -> str:
    if not isinstance(result, Mapping):
        return "It ended without a result."
    seats = range(len(names))
    winners = [names[w] for w in result.get("winners") or () if w in seats]
    scores = result.get("scores") or {}
    said = ", ".join(f"{names[int(s)]} {v}" for s, v in scores.items() if _seat(s) in seats)
    won = f"Won by {' and '.join(winners)}." if winners else "Nobody won."
    return f"{won} Scores: {said}." if said else won


def _seat(key: Any) -> int:
    return int(key) if str(key).isdigit() else -1
