"""The daily digest: one mail a day instead of single messages (contract: v2 additions,
Notices to people).

**What goes in.**  A notice job (``service.notices.notify``) that would mail an account whose
``digest`` is on, or one in its quiet hours, keeps the notice instead (``notices.keep``:
``{game, seat, kind, at}`` appended to ``acct:<player>:digest``, and the player put in
``acct:digests``, a sorted set scored by when to look at them next).  Quiet hours hold back
single messages of every account, digest or not: what they held goes out in the digest.

**When it goes.**  Once a day at ``SEND_AT`` local time (08:00 in the account's ``timezone``),
or at the end of its quiet hours when it has some: the scan (``scan``, run every few seconds by
one worker with the reminders', ``workers.notices``) takes the players whose time has come,
takes ``acct:<player>:digest:<local date>`` (``SET NX``: one digest per account per local day,
whatever the number of scans and workers) and enqueues the sending job; a player whose time
has not come is scored with it and not looked at before.

**What it says** (``send``, the RQ job): each game once, from that seat's redacted view now
(``notice_text.notice_lines``), and only what is still news: a turn that is still the seat's, a
deadline that still stands, a game that ended.  A seat that no longer belongs to the account
is left out.  The mail has the same one-click unsubscribe as the others (turning the digest
off; for a digest of quiet hours alone, email altogether), and is in the account's language
(``notice_text``), its date written the language's way.  A mail that fails keeps the kept
notices for RQ's retry; the ones read are removed only once sent.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue, Retry

from service import invitations, notice_text, notices, unsubscribe
from service.accounts import Account, notifications_of
from service.errors import NotFound
from service.i18n import N_

if TYPE_CHECKING:
    from service.chronicle import Chronicle

SEND_AT = "08:00"
SEND = "workers.notices.send_digest"
LIMIT = 1000  # players taken per scan
MAX_ITEMS = 100  # games listed in one digest
KEEP_MARK = 2 * 24 * 3600


def send_time(account: Account) -> time:
    """The local time of the account's digest: the end of its quiet hours, else ``SEND_AT``."""
    hours = notifications_of(account.notifications).get("quiet_hours")
    hh, _, mm = (hours["to"] if hours else SEND_AT).partition(":")
    return time(int(hh), int(mm))


def moments(account: Account, now: datetime) -> tuple[str, datetime, datetime]:
    """``(local date, today's moment, tomorrow's moment)`` of the account's digest."""
    zone = notice_text.zone(account.timezone)
    local = now.astimezone(zone)
    at = send_time(account)
    today = datetime.combine(local.date(), at, zone)
    tomorrow = datetime.combine(local.date() + timedelta(days=1), at, zone)
    return local.date().isoformat(), today, tomorrow


def mark_key(player: str, day: str) -> str:
    return f"acct:{player}:digest:{day}"


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def scan(r: redis.Redis, queue: Queue, accounts: Any, now: datetime | None = None) -> int:
    """Enqueue the digests whose time has come (each account once a local day); how many."""
    now = now or datetime.now(UTC)
    sent = 0
    for member in r.zrangebyscore(notices.DIGESTS, "-inf", _ms(now), start=0, num=LIMIT):
        player = member.decode() if isinstance(member, bytes) else str(member)
        account = accounts.get(player)
        if account is None:  # deleted since: nothing to send it
            r.zrem(notices.DIGESTS, player)
            r.delete(notices.digest_key(player))
            continue
        day, today, tomorrow = moments(account, now)
        if now < today:
            r.zadd(notices.DIGESTS, {player: _ms(today)})
            continue
        r.zadd(notices.DIGESTS, {player: _ms(tomorrow)})
        if not r.set(mark_key(player, day), 1, nx=True, ex=KEEP_MARK):
            continue  # today's went out: what came since waits for tomorrow's
        queue.enqueue(
            SEND,
            player,
            day,
            job_id=f"digest-{player}-{day}",
            description="digest",  # never the address
            retry=Retry(max=3, interval=[10, 60, 300]),
            result_ttl=600,
            failure_ttl=24 * 3600,
        )
        sent += 1
    return sent


def still_news(cur: Any, seat: int, kind: str, at: int) -> bool:
    """A kept notice worth listing now (the turn is the seat's, the deadline stands)."""
    match = cur.match
    if kind == notices.YOUR_TURN:
        return seat in match.to_act(cur.game)
    if kind == notices.REMINDER:
        return match.table is not None and match.table.deadlines().get(seat) == at
    return kind == notices.GAME_OVER


def entries(
    ch: Chronicle, account: Account, kept: list[Mapping[str, Any]], base: str
) -> list[tuple[str, list[str], str]]:
    """``(heading, lines, table link)`` per game still worth listing, the newest notice of
    each ``(game, seat)``, in the order they came, in the account's language."""
    lang = notice_text.language(account.locale)
    newest: dict[tuple[str, int], Mapping[str, Any]] = {}
    for item in kept:
        newest.pop((str(item["game"]), int(item["seat"])), None)
        newest[(str(item["game"]), int(item["seat"]))] = item
    out = []
    for (game_id, seat), item in list(newest.items())[-MAX_ITEMS:]:
        try:
            cur = ch.current(game_id)
        except NotFound:
            continue
        kind, at = str(item["kind"]), int(item["at"])
        if kind == notices.INVITATION:  # a seat of the table's, offered to this account
            if invitations.standing(ch, cur, seat, account.id, at):
                out.append(invitations.lines(ch, cur, seat, account.id, at, base, lang))
            continue
        players = cur.meta.players
        if seat >= len(players) or players[seat] != account.id:
            continue  # the seat is no longer this account's: nothing of it is shown
        if still_news(cur, seat, kind, at):
            said = notice_text.notice_lines(ch, cur, seat, kind, base, at, account.timezone, lang)
            out.append(said)
    return out


SUBJECT_ONE = N_("Your Chronicle digest: 1 game")
SUBJECT_MANY = N_("Your Chronicle digest: %(count)s games")  # Japanese and Chinese: one form
HELLO = N_("Hello %(name)s,")
OF_DAY = N_("Your digest of %(date)s.")
STOP = N_("Your mail program's Unsubscribe turns the digest off; so do your notice settings.")


def message(
    account: Account, listed: list[tuple[str, list[str], str]], day: str | None = None
) -> tuple[str, str, str]:
    """``(subject, text, html)`` of a digest of the local ``day``, in the account's language."""
    lang = notice_text.language(account.locale)
    say = notice_text.say
    count = len(listed)
    if count == 1:
        subject = say(lang, SUBJECT_ONE)
    else:
        subject = say(lang, SUBJECT_MANY, count=notice_text.number(lang, count))
    stop = say(lang, STOP)
    opening = [say(lang, HELLO, name=account.name)]
    if day:
        opening.append(say(lang, OF_DAY, date=notice_text.day(day, lang)))
    blocks = [
        "\n".join([heading, *lines, say(lang, notice_text.OPEN_TABLE_AT, link=link)])
        for heading, lines, link in listed
    ]
    text = "\n\n".join([*opening, *blocks, stop]) + "\n"
    parts = [f"<p>{html.escape(line)}</p>" for line in opening]
    for heading, lines, link in listed:
        parts.append(f"<h3>{html.escape(heading)}</h3>")
        parts += [f"<p>{html.escape(line)}</p>" for line in lines]
        words = html.escape(say(lang, notice_text.OPEN_TABLE))
        parts.append(f'<p><a href="{html.escape(link, quote=True)}">{words}</a></p>')
    parts.append(f"<p><small>{html.escape(stop)}</small></p>")
    return subject, text, notice_text.page(lang, parts)


def send(
    ch: Chronicle,
    player: str,
    day: str,
    public: str | None = None,
    sender: notices.Sender = notices._send_mail,
) -> str:
    """Mail the account's digest of ``day`` (what it did, for the job's result)."""
    accounts = ch.accounts
    if accounts is None:
        return "no accounts"
    account = accounts.get(player)
    if account is None:
        return "no account"
    key = notices.digest_key(player)
    raw = accounts.r.lrange(key, 0, -1)
    kept = [json.loads(v) for v in raw]
    settings = notifications_of(account.notifications)
    base = notices.public_url() if public is None else public.rstrip("/")
    listed = entries(ch, account, kept, base) if settings.get("email") else []
    if listed:
        subject, text, page = message(account, listed, day)
        setting = "digest" if settings.get("digest") else unsubscribe.ALL
        headers = notice_text.mail_headers(
            notice_text.language(account.locale),
            unsubscribe.unsubscribe_headers(accounts.r, player, setting, base),
        )
        sender(account.email, subject, text, page, headers)  # a failure: RQ retries
    accounts.r.ltrim(key, len(raw), -1)  # what came meanwhile stays for the next
    return f"sent {len(listed)}" if listed else "nothing"
