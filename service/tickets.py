"""Stream tickets: a browser's ``EventSource`` cannot send an ``Authorization`` header, and a
token must never travel in a URL (it would end up in logs, histories and referrers).  So a
seat trades its token (in the header of a POST) for a short ticket that may go in the URL of
``GET .../stream?ticket=``: it names the game and the seat, expires after ``TICKET_SECONDS``
and is signed with HMAC-SHA256 keyed by that seat's stored token hash, which only the service
holds.  It needs no storage, so any API process checks a ticket another one gave out; it
stops working as soon as it expires.  Its only power is to read that seat's stream.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import time

from projections.views import SEAT, Caller
from service.auth import Unauthorized
from service.meta import GameMeta

TICKET_SECONDS = 60


def lifetime() -> int:
    return int(os.environ.get("CHRONICLE_STREAM_TICKET_SECONDS") or TICKET_SECONDS)


def _mac(stored_hash: str, game_id: str, seat: int, expires: int) -> str:
    key = hashlib.sha256(b"chronicle-stream-ticket:" + stored_hash.encode()).digest()
    msg = f"{game_id}.{seat}.{expires}".encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:40]


def issue(meta: GameMeta, game_id: str, caller: Caller, now: float | None = None) -> dict:
    if caller.role != SEAT or caller.seat is None:
        raise Unauthorized("a stream ticket is for a seat: send its token")
    seconds = lifetime()
    # rounded up: a ticket lives at least ``expires_in`` seconds (rounded down, one issued at
    # x.9 s with a lifetime of 1 s lived a tenth of a second)
    expires = math.ceil(now if now is not None else time.time()) + seconds
    stored = meta.tokens[caller.seat]
    assert stored is not None  # a seat with a token
    ticket = f"{caller.seat}.{expires}.{_mac(stored, game_id, caller.seat, expires)}"
    return {"ticket": ticket, "expires_in": seconds}


def redeem(meta: GameMeta, game_id: str, ticket: str, now: float | None = None) -> Caller:
    """The seat a ticket stands for; 401 if it is malformed, expired or not this game's."""
    parts = ticket.split(".")
    stored = meta.tokens
    try:
        seat, expires = int(parts[0]), int(parts[1])
        valid = len(parts) == 3 and 0 <= seat < len(stored) and stored[seat] is not None
    except (ValueError, IndexError):
        valid = False
    hashed = stored[seat] if valid else None
    if hashed is not None:
        expected = _mac(hashed, game_id, seat, expires)
        valid = hmac.compare_digest(expected, parts[2]) and expires > (now or time.time())
    if not valid:
        raise Unauthorized("the stream ticket is not valid (expired, or not for this game)")
    return Caller(SEAT, seat)
