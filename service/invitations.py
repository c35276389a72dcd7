"""Invitations: a signed-in host invites an account to an open seat (contract: v2 additions,
Notices to people; the request is ours, ``docs/contract.md``).

**The command** (``invite``).  ``POST /games/{id}/invitations {seat, player}`` with the host's
token, on a table that is waiting, for a seat that is open, from a host signed in when the
table was made (``GameMeta.host_player``: someone the invitee can know and block).  Refused:
403 ``forbidden`` (``not_host``; ``host_not_signed_in``; ``blocked``: either of the two blocked
the other), 404 ``not_found`` (no such account), 409 ``game_not_waiting`` / ``seat_taken``,
400 (no such seat; the account already holds a seat here; the host itself).  It appends
``SeatInvited {seat, player}`` (a table event: replay and audit show who was invited, by
public id, never an address) and gives the seat a new invitation code: the seat is the
invitee's from now on (the link handed out at creation for that seat no longer works; a
new invitation to the seat voids the one before).

**The code** is not kept anywhere: it is an HMAC of ``(game, seat, player, version of
SeatInvited)`` under the notices' secret (``service.unsubscribe.secret``); the meta keeps only its
hash, as for every invitation.  The notice job derives it again, so the code travels only in
the invitee's own mail and push, never in a job's arguments or a log line.

**The notice** (``notify``, the ``invitation`` kind): sent when the account has
``invitations`` on and email or push on; held for the digest in its quiet hours or when its
``digest`` is on, like the others; and only while the invitation still stands (the table
waiting, the seat open, its invitation still this one).  An invitee with ``invitations`` off
is invited all the same (202; the table's host learns nothing of their settings) and is sent
nothing: the seat waits, and the host may share a link another way.  The message names the
host by their public name and links ``<public>/join/<id>#invitation=<code>``, the page every
invitation link opens.  Its words are in the invitee's language (``service.notice_text``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rq import Queue, Retry
from rq.serializers import JSONSerializer

from domain import engine
from domain import table as tables
from domain.engine import Event
from domain.errors import BadAction, Forbidden, StateConflict
from projections.views import HOST, Caller
from service import auth, chat, mail, notice_text, notices, push, unsubscribe
from service.accounts import Account, notifications_of
from service.errors import NotFound, VersionConflict
from service.i18n import N_
from service.loading import Current

if TYPE_CHECKING:
    from service.chronicle import Chronicle

KIND = notices.INVITATION
SEND = "workers.notices.send_invitation"
RETRIES = 5


def code(r: Any, game_id: str, seat: int, player: str, version: int) -> str:
    """The invitation code of ``SeatInvited`` at ``version`` (128 bits, URL-safe)."""
    key = unsubscribe.secret(r)
    mac = hmac.new(key, f"invite:{game_id}:{seat}:{player}:{version}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:16]).rstrip(b"=").decode()


def decide(ch: Chronicle, cur: Current, caller: Caller, seat: int, player: str) -> list[Event]:
    """The checks of an invitation (module docstring), and its event."""
    if caller.role != HOST:
        raise Forbidden("not_host", "only the host's token may invite")
    host = cur.meta.host_player
    if host is None:
        raise Forbidden("host_not_signed_in", "invitations come from a host signed in")
    table = cur.match.table
    if table is None or table.status() != tables.WAITING:
        raise StateConflict("game_not_waiting", "the game has started; nobody is invited")
    if not 0 <= seat < len(table.names):
        raise BadAction(f"no seat {seat}", {"seat": ["a seat of this game"]})
    if not table.is_open(seat):
        raise StateConflict("seat_taken", f"seat {seat} is taken", {"seat": seat})
    if player == host or player in (cur.meta.players or ()):
        raise BadAction("that player is at this table already", {"player": ["someone else"]})
    accounts = ch.accounts_of()
    if accounts.get(player) is None:
        raise NotFound("no such player")
    if accounts.blocked_by(player, host) or accounts.blocked_by(host, player):
        raise Forbidden("blocked", "this player cannot be invited by you")
    return engine.normalized([Event(tables.SEAT_INVITED, seat, {"seat": seat, "player": player})])


def invite(
    ch: Chronicle, queue: Queue, game_id: str, caller: Caller, seat: int, player: str
) -> dict[str, Any]:
    """Append ``SeatInvited`` and enqueue its notice: ``{seat, player, version}``."""
    for _ in range(RETRIES):
        cur = ch.current(game_id)
        events = decide(ch, cur, caller, seat, player)
        version = cur.match.version + len(events)
        hashes = list(cur.meta.invitations or (None,) * len(cur.meta.tokens))
        hashes[seat] = auth.token_hash(code(ch.accounts_of().r, game_id, seat, player, version))
        command = {"command": "invite", "seat": seat, "player": player}
        try:
            ch.append_table(cur, events, None, command, changes={"invitations": tuple(hashes)})
        except VersionConflict:
            continue  # a join or a move came first: decide again
        queue.enqueue(
            SEND,
            game_id,
            seat,
            player,
            version,
            job_id=notices.job_id(game_id, seat, KIND, version),
            description="notice",  # never the address
            retry=Retry(max=3, interval=[10, 60, 300]),
            result_ttl=600,
            failure_ttl=24 * 3600,
        )
        return {"seat": seat, "player": player, "version": version}
    raise StateConflict("seat_taken", "the table is busy; try again")


def queue_of(ch: Chronicle) -> Queue:
    """The notices' queue, on the queue's Redis (else the store's)."""
    jobs = getattr(ch.jobs, "queue", None)
    connection = jobs.connection if jobs is not None else chat.redis_of(ch.store)
    return Queue(notices.QUEUE, connection=connection, serializer=JSONSerializer)


def standing(ch: Chronicle, cur: Current, seat: int, player: str, version: int) -> bool:
    """The invitation is still the seat's and the seat still open on a waiting table."""
    table = cur.match.table
    if table is None or table.status() != tables.WAITING or not table.is_open(seat):
        return False
    stored = cur.meta.invitations[seat] if seat < len(cur.meta.invitations) else None
    mine = auth.token_hash(code(ch.accounts_of().r, cur.game_id, seat, player, version))
    return stored is not None and hmac.compare_digest(stored, mine)


SUBJECT = N_("%(host)s invites you to %(game)s")
SAID = N_("%(host)s invites you to a game of %(game)s with %(players)s (seat %(seat)s).")
SAID_ALONE = N_("%(host)s invites you to a game of %(game)s (seat %(seat)s).")
A_HOST = N_("A host")
TAKE_SEAT = N_("Take the seat")
TAKE_SEAT_AT = N_("Take the seat: %(link)s")
STOP = N_("Your mail program's Unsubscribe turns invitation emails off.")


def lines(
    ch: Chronicle,
    cur: Current,
    seat: int,
    player: str,
    version: int,
    base: str,
    lang: str = notice_text.ENGLISH,
) -> tuple[str, list[str], str]:
    """``(subject, lines, join link)`` in ``lang``: public names only (the host's, the
    seats')."""
    accounts = ch.accounts_of()
    host = accounts.get(cur.meta.host_player or "")
    by = host.name if host is not None else notice_text.say(lang, A_HOST)
    title = notice_text.game_name(cur.game, lang)
    names = [str(s.get("name") or "") for s in cur.meta.seats]
    others = [n for i, n in enumerate(names) if i != seat and n]
    secret_code = code(accounts.r, cur.game_id, seat, player, version)
    link = f"{base}/join/{cur.game_id}#invitation={secret_code}"
    players = notice_text.listed(lang, others)
    said = notice_text.say(
        lang, SAID if others else SAID_ALONE, host=by, game=title, players=players, seat=seat + 1
    )
    return notice_text.say(lang, SUBJECT, host=by, game=title), [said], link


def notify(
    ch: Chronicle,
    game_id: str,
    seat: int,
    player: str,
    version: int,
    now: datetime | None = None,
    public: str | None = None,
    sender: notices.Sender = notices._send_mail,
    pusher: notices.Pusher | None = None,
) -> str:
    """Mail and/or push the invitation if it still stands (what was done, for the job)."""
    accounts = ch.accounts
    if accounts is None:
        return "no accounts"
    try:
        cur = ch.current(game_id)
    except NotFound:
        return "no game"
    account = accounts.get(player)
    if account is None:
        return "no account"
    settings = notifications_of(account.notifications)
    by_mail = bool(settings.get("email"))
    by_push = bool(settings.get("push")) and pusher is not None and push.has_any(accounts.r, player)
    if not (by_mail or by_push) or not settings.get(notices.SETTING[KIND]):
        return "off"
    if not standing(ch, cur, seat, player, version):
        return "taken"
    mark = notices.mark_key(game_id, seat, KIND, version)
    if not accounts.r.set(mark, 1, nx=True, ex=notices.ONCE_SECONDS):
        return "sent before"
    if settings.get("digest") or notices.quiet(
        settings.get("quiet_hours"), account.timezone, now or datetime.now(UTC)
    ):
        if by_mail:
            item = {"game": game_id, "seat": seat, "kind": KIND, "at": version}
            notices.keep(accounts.r, player, item)
        return "digest" if settings.get("digest") else "quiet hours"
    base = notices.public_url() if public is None else public.rstrip("/")
    lang = notice_text.language(account.locale)
    subject, said, link = lines(ch, cur, seat, player, version, base, lang)
    if by_push and pusher and accounts.r.set(f"{mark}:push", 1, nx=True, ex=notices.ONCE_SECONDS):
        pusher(player, push.payload(subject, said, link), mark.replace(":", "-"))
    if by_mail:
        _mail(accounts.r, account, (subject, said, link), base, sender, mark, lang)
    return "sent"


def _mail(
    r: Any,
    account: Account,
    notice: tuple[str, list[str], str],
    base: str,
    sender: notices.Sender,
    mark: str,
    lang: str,
) -> None:
    subject, said, link = notice
    stop = notice_text.say(lang, STOP)
    text = "\n\n".join([*said, notice_text.say(lang, TAKE_SEAT_AT, link=link), stop]) + "\n"
    page = notice_text.page(
        lang,
        [
            *(f"<p>{_escape(line)}</p>" for line in said),
            f'<p><a href="{_escape(link)}">{_escape(notice_text.say(lang, TAKE_SEAT))}</a></p>',
            f"<p><small>{_escape(stop)}</small></p>",
        ],
    )
    headers: Mapping[str, str] = notice_text.mail_headers(
        lang, unsubscribe.unsubscribe_headers(r, account.id, notices.SETTING[KIND], base)
    )
    try:
        sender(account.email, subject, text, page, headers)
    except mail.MailFailed:
        r.delete(mark)  # not sent: RQ's retry may send it
        raise


def _escape(text: str) -> str:
    return html.escape(text, quote=True)
