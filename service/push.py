"""Notices to people by Web Push (contract: v2 additions, Notices to people; the push part).

**The keys (VAPID, RFC 8292).**  One P-256 key pair signs every push request of the service.
It is made by the first process that needs it and kept in Redis with the data (``push:vapid``
hash: ``private``, the raw 32-byte scalar in base64url, set with ``HSETNX`` so that processes
starting together agree on one; ``public``, the uncompressed point, derived from the private
key that won).  A browser subscribes with the public key (``GET /api/v1/push/key``), and a
push service refuses a request signed by another key, so the key must outlive restarts: it
lives wherever the games do (the embedded Redis persists).

**Subscriptions.**  ``acct:<player>:push`` hash: id -> JSON ``{endpoint, keys: {p256dh, auth},
created_at}``, the browser's ``PushSubscription.toJSON()``.  The id is a digest of the
endpoint, so a browser that subscribes again gets its old id back.  An endpoint must be an
``https`` URL on a public address (``service.webhooks.resolve``: loopback, private, link-local
and reserved addresses are refused, and so is plain ``http``) unless
``CHRONICLE_PUSH_ALLOW_PRIVATE=1``: the service POSTs to what a browser told it, so an endpoint
is a URL an attacker may choose.  The listing shows the endpoint's host only: the path is the
capability to push to that browser.

**Delivery.**  ``service.notices.notify`` decides once per notice (the kind on, not in quiet
hours, once per turn) and calls ``enqueue`` when the account has ``push`` on: one job per
subscription on the ``notices`` queue, retried with backoff (``BACKOFF``).  The job (``deliver``)
encrypts ``{title, body, url}`` for that subscription (``aes128gcm``, RFC 8291, by
``pywebpush``), signs a VAPID JWT whose ``aud`` is the endpoint's origin and whose ``sub`` is
``mailto:`` the sender of the service's mail (``CHRONICLE_MAIL_FROM``), else its public URL, and
POSTs it to the endpoint's checked address (``service.webhooks.post``: resolved once, connected
to the address that was checked, no redirect followed).  A 404 or 410 answer means the browser
unsubscribed or the subscription expired: it is dropped and the job succeeds; any other answer
that is not 2xx, or no answer, fails the job and RQ retries it.  Each attempt encrypts anew
(a fresh salt and key, a fresh JWT): the job's arguments hold the clear notice (the same
redacted text the mail has) and the subscription's id, never its keys, so a subscription
removed since is not pushed to.

No endpoint path, key or address is written to a log line or an error message.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import time
from collections.abc import Mapping
from email.utils import parseaddr
from typing import Any
from urllib.parse import urlsplit

import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPusher
from rq import Queue, Retry

from domain.errors import BadAction
from service import webhooks

QUEUE = "notices"
DELIVER = "workers.notices.push_one"  # the job (workers/notices.py)
VAPID_KEY = "push:vapid"
MAX_SUBSCRIPTIONS = 20  # per account: a browser per device, with room to spare
MAX_ENDPOINT = 2048
BACKOFF = [10, 30, 60, 120, 300]
TTL_SECONDS = 24 * 3600  # how long a push service keeps a message for a browser that is away
JWT_SECONDS = 12 * 3600  # a VAPID token's life (RFC 8292: at most 24 hours)
MAX_BODY = 1000  # characters of a notice's body: a push message carries at most 4 KB
GONE = (404, 410)


class PushFailed(Exception):
    """The push service did not take the message (the job fails and RQ retries it)."""


def allow_private(env: Mapping[str, str] = os.environ) -> bool:
    return env.get("CHRONICLE_PUSH_ALLOW_PRIVATE") == "1"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


# ---- the VAPID keys ------------------------------------------------------------------------
def vapid(r: redis.Redis) -> tuple[Vapid02, str]:
    """The service's signing key and its public key (base64url, uncompressed point), made
    by the first process that asks (``HSETNX``: a process that lost the race takes the
    winner's)."""
    found = r.hget(VAPID_KEY, "private")
    if found is None:
        key = ec.generate_private_key(ec.SECP256R1())
        r.hsetnx(VAPID_KEY, "private", b64(key.private_numbers().private_value.to_bytes(32)))
        found = r.hget(VAPID_KEY, "private")
    signer = Vapid02.from_raw(_text(found).encode())
    point = signer.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    public = b64(point)
    r.hsetnx(VAPID_KEY, "public", public)  # for an operator who looks; derived, never read
    return signer, public


def public_key(r: redis.Redis) -> str:
    return vapid(r)[1]


# ---- subscriptions -------------------------------------------------------------------------
def subs_key(player: str) -> str:
    return f"acct:{player}:push"


def subscription_id(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def _refused(why: str) -> BadAction:
    return BadAction(f"this push subscription is refused: {why}", {"subscription": [why]})


def check_endpoint(endpoint: str, allow: bool) -> webhooks.Target:
    """The endpoint resolved and checked (400 unless https on a public address, or
    ``allow``)."""
    if len(endpoint) > MAX_ENDPOINT:
        raise _refused(f"an endpoint is at most {MAX_ENDPOINT} characters")
    try:
        scheme = urlsplit(endpoint).scheme
    except ValueError:
        scheme = ""
    if scheme != "https" and not (allow and scheme == "http"):
        raise _refused("the endpoint is not an https URL")
    try:
        return webhooks.resolve(endpoint, allow)
    except BadAction as exc:  # its words are the webhooks': say them of a push endpoint
        why = "the endpoint is on a loopback, private or reserved address"
        if "resolve" in str(exc):
            why = "the endpoint's host does not resolve"
        elif "port" in str(exc):
            why = "the endpoint's port is not a number from 1 to 65535"
        raise _refused(why) from None


def _key(keys: Mapping[str, Any], name: str, size: int) -> bytes:
    value = keys.get(name)
    if not isinstance(value, str) or len(value) > 200:
        raise _refused(f"keys.{name} is missing")
    try:
        raw = unb64(value)
    except ValueError:
        raise _refused(f"keys.{name} is not base64url") from None
    if len(raw) != size:
        raise _refused(f"keys.{name} is not {size} bytes")
    return raw


def subscribe(
    r: redis.Redis, player: str, subscription: Mapping[str, Any], allow: bool | None = None
) -> str:
    """Keep a browser's subscription for ``player``; its id (the same for the same endpoint)."""
    endpoint = subscription.get("endpoint")
    keys = subscription.get("keys")
    if not isinstance(endpoint, str) or not isinstance(keys, Mapping):
        raise _refused("endpoint and keys are required")
    check_endpoint(endpoint, allow_private() if allow is None else allow)
    p256dh, auth = _key(keys, "p256dh", 65), _key(keys, "auth", 16)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
    except ValueError:
        raise _refused("keys.p256dh is not a P-256 public key") from None
    sid = subscription_id(endpoint)
    key = subs_key(player)
    if not r.hexists(key, sid) and r.hlen(key) >= MAX_SUBSCRIPTIONS:
        raise _refused(f"an account has at most {MAX_SUBSCRIPTIONS} devices")
    doc = {
        "endpoint": endpoint,
        "keys": {"p256dh": b64(p256dh), "auth": b64(auth)},
        "created_at": int(time.time() * 1000),
    }
    r.hset(key, sid, json.dumps(doc))
    return sid


def stored(r: redis.Redis, player: str) -> dict[str, dict[str, Any]]:
    """The account's subscriptions by id (a malformed one is left out)."""
    out = {}
    for sid, raw in r.hgetall(subs_key(player)).items():
        try:
            out[_text(sid)] = dict(json.loads(raw))
        except (ValueError, TypeError):
            continue
    return out


def listed(r: redis.Redis, player: str) -> list[dict[str, Any]]:
    """The account's subscriptions as shown to it: id, the endpoint's host, when."""
    rows = [
        {
            "id": sid,
            "host": urlsplit(doc["endpoint"]).hostname or "",
            "created_at": doc["created_at"],
        }
        for sid, doc in stored(r, player).items()
    ]
    return sorted(rows, key=lambda row: (row["created_at"], row["id"]))


def unsubscribe(r: redis.Redis, player: str, sid: str) -> bool:
    return bool(r.hdel(subs_key(player), sid))


def has_any(r: redis.Redis, player: str) -> bool:
    return bool(r.hlen(subs_key(player)))


# ---- the notice ----------------------------------------------------------------------------
def payload(title: str, lines: list[str], url: str) -> dict[str, str]:
    """The clear notice a service worker shows: ``{title, body, url}``."""
    body = " ".join(lines)
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 1] + "…"
    return {"title": title, "body": body, "url": url}


def enqueue(queue: Queue, r: redis.Redis, player: str, notice: Mapping[str, str], mark: str) -> int:
    """One delivery job per subscription of ``player``; how many.  ``mark`` names the notice
    (its job ids are ``<mark>-<subscription>``)."""
    count = 0
    for sid in sorted(stored(r, player)):
        queue.enqueue(
            DELIVER,
            player,
            sid,
            dict(notice),
            job_id=f"push-{mark}-{sid}",
            description="push",  # never the endpoint
            retry=Retry(max=len(BACKOFF), interval=BACKOFF),
            result_ttl=600,
            failure_ttl=24 * 3600,
        )
        count += 1
    return count


def subject_claim(env: Mapping[str, str] = os.environ) -> str:
    """The VAPID ``sub``: ``mailto:`` the service's mail sender, else its public URL."""
    sender = parseaddr(env.get("CHRONICLE_MAIL_FROM") or "")[1]
    if "@" in sender:
        return f"mailto:{sender}"
    public = (env.get("CHRONICLE_PUBLIC_URL") or "").rstrip("/")
    return public or "mailto:chronicle@localhost"


def request(
    r: redis.Redis, subscription: Mapping[str, Any], notice: Mapping[str, str]
) -> tuple[bytes, dict[str, str]]:
    """The encrypted body and the headers of one push request (RFC 8030, 8291, 8292)."""
    endpoint = str(subscription["endpoint"])
    parts = urlsplit(endpoint)
    signer, _ = vapid(r)
    signer.conf = {"no-strict": True}  # ``sub`` may be an http public URL (a test stack)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + JWT_SECONDS,
        "sub": subject_claim(),
    }
    data = json.dumps(dict(notice), separators=(",", ":")).encode()
    body = WebPusher(dict(subscription)).encode(data, "aes128gcm")["body"]
    headers = {
        **signer.sign(claims),
        "Content-Type": "application/octet-stream",
        "Content-Encoding": "aes128gcm",
        "TTL": str(TTL_SECONDS),
        "Urgency": "normal",
        "User-Agent": "Chronicle-Push/1",
    }
    return bytes(body), headers


def deliver(r: redis.Redis, player: str, sid: str, notice: Mapping[str, str]) -> str:
    """Push one notice to one subscription, if the account still has it: ``pushed``, ``gone``
    (404/410: dropped), ``no subscription``, ``refused endpoint``; ``PushFailed`` (RQ
    retries) for any other answer."""
    subscription = stored(r, player).get(sid)
    if subscription is None:
        return "no subscription"
    try:
        target = check_endpoint(str(subscription["endpoint"]), allow_private())
    except BadAction:
        return "refused endpoint"
    body, headers = request(r, subscription, notice)
    try:
        status = webhooks.post(target, body, headers, None)
    except (OSError, http.client.HTTPException) as exc:
        raise PushFailed(f"push {sid}: {type(exc).__name__}") from None
    if status in GONE:
        unsubscribe(r, player, sid)
        return "gone"
    if not 200 <= status < 300:
        raise PushFailed(f"push {sid}: HTTP {status}")
    return "pushed"
