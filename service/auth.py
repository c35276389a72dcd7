"""Tokens and who is calling.

Seat and host tokens are 256-bit random strings handed out once, at creation; only their
SHA-256 hashes are stored.  A presented token is hashed and compared in constant time with
every stored hash of the game (a game has at most a handful), so neither the comparison nor
the lookup depends on where a wrong token differs.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from projections.views import ADMIN, HOST, SEAT, SPECTATOR, Caller
from service.errors import Unauthorized
from service.meta import GameMeta

__all__ = ["Unauthorized", "bearer", "new_token", "presented", "resolve", "token_hash"]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_invitation() -> str:
    """An open seat's invitation code: URL-safe (it travels in a link), 128 bits."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def presented(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None (no header, another
    scheme, no token).  The one parser of the header: the rate limiter counts by it."""
    scheme, _, token = (header or "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None: no header); any other
    header is refused."""
    if header is None:
        return None
    token = presented(header)
    if token is None:
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    return token


def is_admin(token: str | None, admin_token: str | None) -> bool:
    """Whether ``token`` is the operator's (compared in constant time; no admin token set:
    nobody is)."""
    return bool(
        token is not None
        and admin_token
        and hmac.compare_digest(token.encode(), admin_token.encode())
    )


def require_admin(header: str | None, admin_token: str | None) -> None:
    """Refuse (401) unless the header carries the operator's token (imports need it)."""
    if not is_admin(bearer(header), admin_token):
        raise Unauthorized(
            "imports need the admin token (the operator may open them: CHRONICLE_OPEN_IMPORT=1)"
        )


def resolve(meta: GameMeta, token: str | None, admin_token: str | None) -> Caller:
    """The caller a token stands for in this game; no token is a spectator."""
    if token is None:
        return Caller(SPECTATOR)
    if is_admin(token, admin_token):
        return Caller(ADMIN)
    presented = token_hash(token)
    found: Caller | None = None
    for seat, stored in enumerate(meta.tokens):
        if stored and hmac.compare_digest(presented, stored):
            found = Caller(SEAT, seat)
    if hmac.compare_digest(presented, meta.host):
        found = Caller(HOST)
    if found is None:
        raise Unauthorized("the token is not valid for this game")
    return found


def account_seat(meta: GameMeta, player: str) -> Caller:
    """The caller an account is in a game: the seat it holds (of several, the first to act,
    else the lowest), or a spectator."""
    seats = meta.seats_of(player)
    if not seats:
        return Caller(SPECTATOR)
    acting = [s for s in seats if s in meta.progress.to_act]
    return Caller(SEAT, (acting or seats)[0])
