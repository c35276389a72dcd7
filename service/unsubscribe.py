"""One-click unsubscribe (RFC 8058) for every notice mail (contract: v2 additions, Notices to
people): the signed tokens of ``List-Unsubscribe`` links, the two headers, and turning off
what a token names.

Each message carries ``List-Unsubscribe: <<public>/api/v1/unsubscribe?t=<token>>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``.  The token is ``<player>.<setting>.<hex
HMAC-SHA256(secret, "<player>:<setting>")>``; the secret is made once and kept in Redis
(``acct:secret``, ``SET NX``), so every process and every restart signs alike (invitation codes
are signed with it too: ``service.invitations``).  A POST with a valid token turns that setting
off (``all``: email altogether) without signing in (``service.http.notices``).  Without a public
address there are no headers: a path is no URI a mail program can POST to.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import redis

from domain.errors import BadAction
from service.accounts import Accounts

ALL = "all"
# what a token may turn off (a notice setting), and the value that turns it off
OFF: dict[str, Any] = {
    "your_turn": False,
    "game_over": False,
    "invitations": False,
    "digest": False,
    "reminders": None,
}
SECRET_KEY = "acct:secret"
PATH = "/api/v1/unsubscribe"
ONE_CLICK = "List-Unsubscribe=One-Click"


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


def unsubscribe_headers(r: redis.Redis, player: str, setting: str, base: str) -> dict[str, str]:
    """RFC 8058's two headers, turning ``setting`` off (none without a public address)."""
    if not base:
        return {}
    link = f"{base}{PATH}?t={unsubscribe_token(r, player, setting)}"
    return {"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": ONE_CLICK}
