"""Turn notifications by webhook: a seat registers a URL and is told of every change it can see.

``PUT /games/{id}/webhook`` (seat token) stores ``{url, secret}`` in ``{g:ID}:hooks`` (one field
per seat; the secret must be kept to sign, so it is stored as is, never shown again) and
flags the game's meta (``hooks``), so that a game without webhooks costs nothing more.

After every append, undo and chat line (``service.hooks``) one fan-out job is enqueued on the
``chronicle-hooks`` queue (never on the way of a move: the worker serves the move queue
first).  The fan-out renders, for each seat with a webhook, **that seat's own redacted view of
the change** -- ``{delivery, game, seat, version, events, to_act, status}``, the events redacted
for the seat exactly as ``GET .../events`` would show them to it (everything once the game is
over), plus ``chat: [line]`` for a chat line or ``undo: {to_version}`` for an undo -- and
enqueues one delivery job per seat.  The delivery id is a digest of the game, the seat and the
change (its version and head hash, or its chat line), the same however often it is sent.

A delivery POSTs the JSON with ``Chronicle-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(
secret, "<t>." + body)>`` (signed at each attempt, so ``t`` is fresh) and ``Chronicle-Delivery:
<id>``.  Anything but a 2xx answer within ``TIMEOUT`` seconds fails the job and RQ retries it
after ``CHRONICLE_WEBHOOK_BACKOFF`` seconds (comma-separated, default ``10,30,60,120,240,480``:
seven tries over more than fifteen minutes).  Redirects are not followed.

Targets must be ``http(s)`` URLs whose host resolves only to public addresses; loopback,
private, link-local, multicast and reserved addresses are refused, at registration and again
before every delivery (DNS may change), unless ``CHRONICLE_WEBHOOK_ALLOW_PRIVATE=1``.  An IPv6
address that carries an IPv4 one (NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo
``2001::/32``, IPv4-mapped ``::ffff:0:0/96``, IPv4-compatible ``::/96``) is judged by that
IPv4 address too, since a translator or a tunnel delivers to it; the local-use NAT64 prefix
``64:ff9b:1::/48`` is never public.  A port outside 1-65535 (port 0 included) is refused
whatever ``CHRONICLE_WEBHOOK_ALLOW_PRIVATE`` says: nothing listens there.  A
delivery resolves the host once and connects to exactly the addresses it checked (``_Pinned``,
an ``http.client`` connection whose ``connect`` opens a socket to the checked IP): letting an
HTTP library resolve the name again would let a DNS-rebinding server answer the check with a
public address and the connection with ``127.0.0.1`` or ``169.254.169.254``.  The request
still names the URL's host (``Host`` header; for https, SNI and certificate verification), and
no proxy from the environment is used.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import os
import secrets
import socket
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis
from rq import Queue, Retry

from domain.engine import Match
from domain.errors import BadAction, Forbidden
from projections.records import Recorded
from projections.views import SEAT, Caller, events_for, revealed
from service import chat
from service.chronicle import Chronicle
from service.loading import Current

QUEUE = "chronicle-hooks"
FAN_OUT = "workers.webhooks.fan_out"
DELIVER = "workers.webhooks.deliver"
DEFAULT_BACKOFF = (10, 30, 60, 120, 240, 480)
TIMEOUT = 5.0
MAX_URL = 2048


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx (the job fails and RQ retries it)."""


def backoff(env: Mapping[str, str] = os.environ) -> list[int]:
    raw = env.get("CHRONICLE_WEBHOOK_BACKOFF")
    return [int(x) for x in raw.split(",")] if raw else list(DEFAULT_BACKOFF)


def allow_private(env: Mapping[str, str] = os.environ) -> bool:
    return env.get("CHRONICLE_WEBHOOK_ALLOW_PRIVATE") == "1"


def hooks_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:hooks"


Address = tuple[socket.AddressFamily, socket.SocketKind, int, str, Any]  # getaddrinfo's item


@dataclass(frozen=True)
class Target:
    """A webhook URL resolved once: its ``addresses`` were checked, and are what is connected to."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[Address, ...]


def resolve(url: str, allow: bool) -> Target:
    """Refuse (400) a URL that is not http(s), has a port outside 1-65535, or whose host
    resolves to an address that is not ``public`` (unless ``allow``)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise BadAction("a webhook is an http or https URL", {"url": ["malformed"]}) from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadAction("a webhook is an http or https URL", {"url": ["http(s)://host/..."]})
    try:
        given = parts.port
    except ValueError:
        given = 0  # not a number, or out of 0-65535
    if given == 0:  # ``0 or 443`` would have turned port 0 into the default one
        raise BadAction("a webhook's port is a number from 1 to 65535", {"url": ["bad port"]})
    port = given or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(
            parts.hostname, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (socket.gaierror, ValueError, UnicodeError) as exc:
        raise BadAction("the webhook's host does not resolve", {"url": ["unresolvable"]}) from exc
    if not infos:
        raise BadAction("the webhook's host does not resolve", {"url": ["unresolvable"]})
    for info in infos:
        if not allow and not public(ipaddress.ip_address(info[4][0])):
            raise BadAction(
                "webhook targets on loopback, private or reserved addresses are refused",
                {"url": ["not a public address"]},
            )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path, tuple(infos))


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: a network's own translator
COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291's deprecated IPv4-compatible form


def carried(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 one leads to through a translator or a tunnel (``is_global``
    judges only the IPv6 prefix, which is public for NAT64 and 6to4 whatever they carry)."""
    out = [v4 for v4 in (ip.ipv4_mapped, ip.sixtofour) if v4 is not None]
    out += ip.teredo or ()  # the Teredo server and the client behind it
    if ip in NAT64 or ip in COMPATIBLE:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a webhook may be delivered to ``ip``: a global unicast address, and so is every
    IPv4 address it carries."""
    if not ip.is_global or ip.is_multicast:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        return ip not in NAT64_LOCAL and all(public(v4) for v4 in carried(ip))
    return True


def register(ch: Chronicle, game_id: str, caller: Caller, url: str) -> dict[str, str]:
    seat = _seat(caller)
    if len(url) > MAX_URL:
        raise BadAction(f"a URL is at most {MAX_URL} characters", {"url": ["too long"]})
    resolve(url, allow_private())
    secret = secrets.token_urlsafe(32)
    pipe = chat.redis_of(ch.store).pipeline(transaction=False)
    pipe.hset(hooks_key(game_id), str(seat), json.dumps({"url": url, "secret": secret}))
    pipe.hset(f"{{g:{game_id}}}:meta", "hooks", "1")
    pipe.execute()
    return {"secret": secret}


def remove(ch: Chronicle, game_id: str, caller: Caller) -> dict[str, Any]:
    seat = _seat(caller)
    chat.redis_of(ch.store).hdel(hooks_key(game_id), str(seat))
    return {"seat": seat, "removed": True}


def _seat(caller: Caller) -> int:
    if caller.role != SEAT or caller.seat is None:
        raise Forbidden("not_a_player", "only a seat's token may set its webhook")
    return caller.seat


def registered(r: redis.Redis, game_id: str) -> dict[int, dict[str, str]]:
    return {int(k): json.loads(v) for k, v in r.hgetall(hooks_key(game_id)).items()}


def delivery_id(game_id: str, seat: int, change: str) -> str:
    return hashlib.sha256(f"{game_id}|{seat}|{change}".encode()).hexdigest()[:32]


class Webhooks:
    """The hook that enqueues a fan-out after each change of a game with webhooks."""

    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        if cur.meta.hooks:
            after, last = records[0].version - 1, records[-1]
            self._enqueue(cur.game_id, "events", after, last.version, last.hash)

    def undone(self, cur: Current, target: int) -> None:
        if cur.meta.hooks:
            self._enqueue(cur.game_id, "undo", target, target, cur.head)

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        if cur.meta.hooks:
            self._enqueue(cur.game_id, "chat", int(line["id"]), cur.match.version, cur.head)

    def _enqueue(self, game_id: str, kind: str, after: int, version: int, head: str) -> None:
        self.queue.enqueue(
            FAN_OUT,
            game_id,
            kind,
            after,
            version,
            head,
            job_id=f"fan-{game_id}-{kind}-{after}-{version}-{head[:16]}",
            retry=Retry(max=3, interval=[1, 2, 4]),
            result_ttl=600,
            failure_ttl=86400,
        )


def bodies(
    ch: Chronicle,
    game_id: str,
    kind: str,
    after: int,
    version: int,
    head: str,
    seats: Sequence[int],
) -> dict[int, dict[str, Any]]:
    """Each seat's notice of one change (none if the change was undone since)."""
    cur = ch.current(game_id)
    line: dict[str, Any] | None = None
    records: list[Recorded] = []
    if kind == "chat":
        found = chat.lines(chat.redis_of(ch.store), game_id, chat.ROOMS, after - 1)
        line = found[0] if found and found[0]["id"] == after else None
        if line is None:
            return {}
        at = cur
        change = f"chat:{after}"
    else:
        if kind == "events":
            records = ch.store.read(game_id, after, version - after)
            if not records or records[-1].version != version or records[-1].hash != head:
                return {}  # undone since: the undo's own notice tells
        at = (
            cur if cur.match.version == version and cur.head == head else ch.at(game_id, version)[0]
        )
        if at.head != head:
            return {}
        change = f"{kind}:{version}:{head}"
    status = at.match.status(at.game)
    out: dict[int, dict[str, Any]] = {}
    for seat in seats:
        if line is not None and line["seat"] == seat:
            continue  # its own line
        caller = Caller(SEAT, seat)
        delivery = delivery_id(game_id, seat, change)
        doc: dict[str, Any] = {
            "delivery": delivery,
            "game": game_id,
            "seat": seat,
            "version": at.match.version,
            "events": events_for(
                at.game, records, caller, reveal=revealed(status), config=at.match.config
            ),
            "to_act": list(at.match.to_act(at.game)),
            "status": status,
        }
        if line is not None:
            doc["chat"] = [line]
        if kind == "undo":
            doc["undo"] = {"to_version": version}
        out[seat] = doc
    return out


def fan_out(
    ch: Chronicle, queue: Queue, game_id: str, kind: str, after: int, version: int, head: str
) -> int:
    """Enqueue one delivery per seat with a webhook; returns how many."""
    hooks = registered(chat.redis_of(ch.store), game_id)
    if not hooks:
        return 0
    docs = bodies(ch, game_id, kind, after, version, head, sorted(hooks))
    intervals = backoff()
    for seat, doc in docs.items():
        body = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        queue.enqueue(
            DELIVER,
            game_id,
            seat,
            doc["delivery"],
            body,
            job_id=f"hook-{doc['delivery']}",
            retry=Retry(max=len(intervals), interval=intervals),
            result_ttl=600,
            failure_ttl=7 * 86400,
        )
    return len(docs)


def signature(secret: str, body: bytes, t: int) -> str:
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


class _Pinned(http.client.HTTPConnection):
    """A connection to one checked address, never to what the name resolves to by now."""

    def __init__(self, target: Target, address: Address, tls: ssl.SSLContext | None) -> None:
        super().__init__(target.host, target.port, timeout=TIMEOUT)
        self.address, self.tls = address, tls

    def connect(self) -> None:
        family, kind, proto, _, sockaddr = self.address
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.connect(sockaddr)
            if self.tls is not None:  # SNI and certificate checks are for the URL's host
                sock = self.tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class _PinnedTLS(_Pinned):
    default_port = 443  # so that the Host header leaves out the port as the URL did


def post(
    target: Target, data: bytes, headers: Mapping[str, str], context: ssl.SSLContext | None
) -> int:
    """POST ``data`` to the first of the target's checked addresses that accepts; its status.

    http.client follows no redirect: a 3xx is just an answer that is not 2xx."""
    tls = None
    if target.scheme == "https":
        tls = context if context is not None else ssl.create_default_context()
    kind = _Pinned if tls is None else _PinnedTLS
    refused: OSError = ConnectionError("no address")
    for address in target.addresses:
        connection = kind(target, address, tls)
        try:
            try:
                connection.connect()
            except OSError as exc:
                refused = exc
                continue
            connection.request("POST", target.path, body=data, headers=dict(headers))
            return connection.getresponse().status
        finally:
            connection.close()
    raise refused


def deliver(r: redis.Redis, game_id: str, seat: int, delivery: str, body: str) -> str:
    """POST one notice to the seat's webhook, if it still has one (see ``send``)."""
    hook = registered(r, game_id).get(seat)
    if hook is None:
        return "no webhook"
    return send(hook["url"], hook["secret"], delivery, body)


def send(
    url: str, secret: str, delivery: str, body: str, context: ssl.SSLContext | None = None
) -> str:
    """POST one notice, signed; raise ``DeliveryFailed`` (RQ retries) unless answered 2xx.

    The host is resolved once, here: every address is checked and the connection goes to a
    checked address, so a name that resolves elsewhere by then (DNS rebinding) is never
    followed.  ``context`` is the TLS context for https (default: the system's CAs)."""
    try:
        target = resolve(url, allow_private())
    except BadAction:
        return "refused target"
    data = body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Chronicle-Webhook/1",
        "Chronicle-Delivery": delivery,
        "Chronicle-Signature": signature(secret, data, int(time.time())),
    }
    try:
        status = post(target, data, headers, context)
    except (OSError, http.client.HTTPException) as exc:
        raise DeliveryFailed(f"delivery {delivery}: {type(exc).__name__}") from None
    if not 200 <= status < 300:
        raise DeliveryFailed(f"delivery {delivery}: HTTP {status}")
    return "delivered"
