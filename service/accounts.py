"""Accounts: a person who keeps their seats across devices (optional; guests play with seat
tokens as before).  Kept in Redis beside the games, never in a game's log: a game's log names
an account only by its public id (``SeatClaimed {seat, player}``), never by its email.

Keys (prefix ``acct:``; single-key commands only, so a Redis Cluster holds them as it holds
anything else):

- ``acct:<id>``                 hash: name, email, created_at, locale, timezone, notifications;
- ``acct:email:<sha256>``       the account id of a normalised email address;
- ``acct:token:<sha256>``       hash: a session's or API token's player, id, name, scopes, kind;
- ``acct:<id>:tokens``          hash: token id -> the token's hash (listing and revoking);
- ``acct:code:<selector>``      hash: a pending email sign-in (address, verifier hash, misses);
- ``acct:<id>:games``           sorted set: the games the account holds a seat of, by creation;
- ``acct:<id>:blocks``          set: the players this account blocked;
- ``acct:rate:<what>:<key>``    counters of the sign-in limits (``RATES``).

Secrets are kept as SHA-256 hashes only (tokens, codes' verifiers).  An email code is two
parts, ``<selector>.<verifier>``: the selector finds the pending sign-in (so a wrong verifier
counts against that address: ``MISSES`` of them void it), the verifier is compared in constant
time.  Tokens start with ``acct_``, so a request's token is known to be an account's without a
lookup, and a seat token never costs one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from domain.errors import BadAction, Forbidden
from service import invisible
from service.errors import NotFound, RateLimited, Unauthorized

PREFIX = "acct_"
PLAY, READ = "play", "read"
SCOPES = (PLAY, READ)
SESSION, API = "session", "api"
CODE_SECONDS = 15 * 60
SESSION_SECONDS = 30 * 24 * 3600  # a browser session; API tokens live until revoked
MISSES = 5  # wrong verifiers before a pending code is void
MAX_NAME = 40
MAX_TOKENS = 20  # API tokens an account may hold at once
# (count, seconds): sign-in links asked per address and per client; wrong codes per client.
# CHRONICLE_SIGNIN_LIMITS changes any of them: ``email_client=200/3600,code_client=10/900``.
RATES = {"email": (5, 3600), "email_client": (20, 3600), "code_client": (10, 900)}


def rates(env: Mapping[str, str] = os.environ) -> dict[str, tuple[int, int]]:
    out = dict(RATES)
    for part in (env.get("CHRONICLE_SIGNIN_LIMITS") or "").split(","):
        name, _, value = part.strip().partition("=")
        count, _, seconds = value.partition("/")
        if name in out and count.isdigit() and seconds.isdigit():
            out[name] = (int(count), int(seconds))
    return out


# The notice settings of ``GET /me`` (contract: Notices to people), whole: an account stored
# with fewer (made before a setting existed) reads as these defaults plus what it stored.
DEFAULT_NOTIFICATIONS: dict[str, Any] = {
    "email": False,
    "push": False,
    "your_turn": True,
    "reminders": None,  # an ISO 8601 duration before a deadline, or None
    "digest": False,
    "game_over": True,
    "invitations": True,
    "quiet_hours": None,  # {"from": "22:00", "to": "08:00"} in the account's timezone
}


def notifications_of(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The whole settings: the defaults, then what was stored (a partial change merges)."""
    return {**DEFAULT_NOTIFICATIONS, **dict(stored or {})}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def normal_email(email: str) -> str | None:
    """The address as the account index keys it (trimmed, lower case), or None if it is not
    one: one ``@``, something on each side, no spaces or control characters, at most 254."""
    text = email.strip().lower()
    local, at, domain = text.partition("@")
    if not at or not local or "." not in domain or "@" in domain or len(text) > 254:
        return None
    if any(c.isspace() or ord(c) < 32 for c in text):
        return None
    return text


def is_account_token(token: str | None) -> bool:
    return bool(token and token.startswith(PREFIX))


def csrf_of(token: str) -> str:
    """The CSRF value of a browser session: derived from its secret, so nothing more is kept,
    and useless without the cookie it goes with."""
    return hmac.new(token.encode(), b"chronicle csrf", hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    email: str
    created_at: int
    locale: str | None = None
    timezone: str | None = None
    notifications: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_NOTIFICATIONS))

    def me(self) -> dict[str, Any]:
        """``GET /me``: the only document that holds the email."""
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "locale": self.locale,
            "timezone": self.timezone,
            "notifications": dict(self.notifications),
        }

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


# a token record's locale, only while the record lives (never one brought back without expiry)
KEEP_LOCALE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HSET', KEYS[1], 'locale', ARGV[1]) end
return 0
"""


@dataclass(frozen=True)
class Session:
    """Who an account token stands for, and the account's ``locale`` as the token's record
    keeps it ("" for none; None: a record from before it kept one, so the account says)."""

    player: str
    token_id: str
    scopes: tuple[str, ...]
    kind: str
    locale: str | None = None

    def may_write(self) -> bool:
        return PLAY in self.scopes


@dataclass(frozen=True)
class Pending:
    """An email sign-in asked for: the code to mail (shown once) and the address."""

    email: str
    code: str


def name_problem(name: str) -> str | None:
    text = name.strip()
    if not text:
        return "a name is needed"
    if len(text) > MAX_NAME:
        return f"at most {MAX_NAME} characters"
    return invisible.problem(text)


class Accounts:
    def __init__(self, r: redis.Redis, clock: Callable[[], int] = now_ms) -> None:
        self.r = r
        self.clock = clock
        self.rates = rates()
        self._keep_locale = r.register_script(KEEP_LOCALE)

    # ---- limits ---------------------------------------------------------------------------
    def _count(self, what: str, key: str) -> None:
        """Count one attempt; 429 once ``RATES[what]`` is spent in its window."""
        amount, seconds = self.rates[what]
        k = f"acct:rate:{what}:{digest(key)}"
        pipe = self.r.pipeline(transaction=False)
        pipe.set(k, 0, ex=seconds, nx=True)  # a fixed window, opened by its first attempt
        pipe.incr(k)
        pipe.ttl(k)
        _, n, ttl = pipe.execute()
        if int(n) > amount:
            raise RateLimited(
                "too many sign-in attempts; try again later",
                {"retry_after": max(int(ttl), 1)},
            )

    # ---- email sign-in --------------------------------------------------------------------
    def ask_code(self, email: str, client: str) -> Pending | None:
        """A one-time code for ``email`` (None: not an address; the caller answers 202
        whatever this returns, so nobody learns whether an account exists)."""
        address = normal_email(email)
        if address is None:
            raise BadAction("invalid email", {"email": ["an email address"]})
        self._count("email_client", client)
        self._count("email", address)
        selector, verifier = secrets.token_urlsafe(9), secrets.token_urlsafe(24)
        key = f"acct:code:{selector}"
        self.r.hset(key, mapping={"email": address, "verifier": digest(verifier), "misses": 0})
        self.r.expire(key, CODE_SECONDS)
        return Pending(address, f"{selector}.{verifier}")

    def verify_code(self, code: str, client: str, name: str | None = None) -> Account:
        """The account a mailed code signs in to (created by the first code of an address).
        A code works once; a wrong one counts against its client and its address."""
        selector, dot, verifier = code.strip().partition(".")
        key = f"acct:code:{selector}"
        stored = self.r.hgetall(key) if dot and selector else {}
        if not stored or not hmac.compare_digest(digest(verifier), _s(stored, "verifier")):
            self._count("code_client", client)
            if stored and self.r.hincrby(key, "misses", 1) >= MISSES:
                self.r.delete(key)
            raise Unauthorized("the code is not valid (it may have expired or been used)")
        if not self.r.delete(key):  # another request used it first
            raise Unauthorized("the code is not valid (it may have expired or been used)")
        address = _s(stored, "email")
        found = self.r.get(f"acct:email:{digest(address)}")
        if found is not None:
            account = self.get(found.decode() if isinstance(found, bytes) else str(found))
            if account is not None:
                return account
        return self._create(address, name)

    def _create(self, email: str, name: str | None) -> Account:
        player = secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")
        chosen = (name or "").strip()
        if not chosen or name_problem(chosen):
            chosen = f"player {player[:5]}"
        account = Account(player, chosen, email, self.clock())
        self.r.hset(
            f"acct:{player}",
            mapping={
                "name": account.name,
                "email": email,
                "created_at": account.created_at,
                "notifications": json.dumps(account.notifications),
            },
        )
        # the first verify of an address makes its account; a race keeps the first
        if not self.r.set(f"acct:email:{digest(email)}", player, nx=True):
            self.r.delete(f"acct:{player}")
            other = self.r.get(f"acct:email:{digest(email)}")
            existing = self.get(_text(other)) if other is not None else None
            if existing is None:  # pragma: no cover - deleted between the two reads
                raise Unauthorized("the code is not valid; ask for another")
            return existing
        return account

    # ---- accounts -------------------------------------------------------------------------
    def get(self, player: str) -> Account | None:
        return _account(player, self.r.hgetall(f"acct:{player}"))

    def get_many(self, players: Iterable[str]) -> dict[str, Account]:
        """The accounts of ``players`` that exist, read in one round trip (a batch of
        notices: ``service.notice_batch``)."""
        wanted = list(dict.fromkeys(players))
        with self.r.pipeline(transaction=False) as pipe:
            for player in wanted:
                pipe.hgetall(f"acct:{player}")
            found = pipe.execute()
        accounts = (_account(p, stored) for p, stored in zip(wanted, found, strict=True))
        return {a.id: a for a in accounts if a is not None}

    def require(self, player: str) -> Account:
        account = self.get(player)
        if account is None:
            raise Unauthorized("the account no longer exists")
        return account

    def update(self, player: str, changes: Mapping[str, Any]) -> Account:
        """``PATCH /me``: name, locale, timezone, notifications (validated by the schema)."""
        fields: dict[Any, Any] = {}
        if "name" in changes:
            problem = name_problem(str(changes["name"]))
            if problem:
                raise BadAction("invalid name", {"name": [problem]})
            fields["name"] = str(changes["name"]).strip()
        for key in ("locale", "timezone"):
            if key in changes:
                fields[key] = str(changes[key] or "")
        if "locale" in fields:  # each live token's record keeps it (``session``)
            hashes = [_text(h) for h in self.r.hvals(f"acct:{player}:tokens")]
            for hashed in hashes:
                self._keep_locale(keys=[f"acct:token:{hashed}"], args=[fields["locale"]])
        if "notifications" in changes:
            now = self.require(player).notifications  # the whole settings, defaults filled
            merged = notifications_of({**now, **dict(changes["notifications"])})
            fields["notifications"] = json.dumps(merged)
        if fields:
            self.r.hset(f"acct:{player}", mapping=fields)
        return self.require(player)

    def delete(self, player: str) -> None:
        """Delete the account: its email, tokens, blocks and index.  The games keep the seat's
        name and the public id in their logs, never the email."""
        account = self.get(player)
        if account is None:
            return
        hashes = [_text(h) for h in self.r.hvals(f"acct:{player}:tokens")]
        pipe = self.r.pipeline(transaction=False)
        for hashed in hashes:
            pipe.delete(f"acct:token:{hashed}")
        pipe.delete(f"acct:email:{digest(account.email)}")
        for suffix in ("", ":tokens", ":games", ":blocks", ":push"):
            pipe.delete(f"acct:{player}{suffix}")
        pipe.execute()

    # ---- tokens and sessions --------------------------------------------------------------
    def issue(
        self,
        player: str,
        kind: str = SESSION,
        name: str = "",
        scopes: Iterable[str] = SCOPES,
    ) -> tuple[str, str]:
        """A new token for ``player``: (its id, the token, shown this once)."""
        chosen = tuple(s for s in SCOPES if s in set(scopes))
        if kind == API and len(self.tokens(player)) >= MAX_TOKENS:
            raise Forbidden("too_many_tokens", f"at most {MAX_TOKENS} tokens; revoke one first")
        token_id = secrets.token_hex(6)
        token = PREFIX + secrets.token_urlsafe(32)
        hashed = digest(token)
        key = f"acct:token:{hashed}"
        locale = self.r.hget(f"acct:{player}", "locale")
        self.r.hset(
            key,
            mapping={
                "player": player,
                "id": token_id,
                "name": name,
                "scopes": ",".join(chosen),
                "kind": kind,
                "created_at": self.clock(),
                # the language of every answer to this token, without reading the account
                "locale": "" if locale is None else _text(locale),
            },
        )
        if kind == SESSION:
            self.r.expire(key, SESSION_SECONDS)
        self.r.hset(f"acct:{player}:tokens", token_id, hashed)
        return token_id, token

    def session(self, token: str | None) -> Session | None:
        """Who an account token stands for (None: not an account token, or not a live one)."""
        if not is_account_token(token):
            return None
        assert token is not None
        stored = self.r.hgetall(f"acct:token:{digest(token)}")
        if not stored:
            return None
        kept = "locale" in stored or b"locale" in stored
        return Session(
            player=_s(stored, "player"),
            token_id=_s(stored, "id"),
            scopes=tuple(s for s in _s(stored, "scopes").split(",") if s),
            kind=_s(stored, "kind"),
            locale=_s(stored, "locale") if kept else None,
        )

    def tokens(self, player: str) -> list[dict[str, Any]]:
        """The account's API tokens, without their secrets."""
        out = []
        for token_id, hashed in sorted(self.r.hgetall(f"acct:{player}:tokens").items()):
            stored = self.r.hgetall(f"acct:token:{_text(hashed)}")
            if not stored:  # an expired session
                self.r.hdel(f"acct:{player}:tokens", token_id)
                continue
            if _s(stored, "kind") != API:
                continue
            out.append(
                {
                    "id": _text(token_id),
                    "name": _s(stored, "name"),
                    "scopes": [s for s in _s(stored, "scopes").split(",") if s],
                    "created_at": int(_s(stored, "created_at") or 0),
                }
            )
        return out

    def revoke(self, player: str, token_id: str) -> bool:
        hashed = self.r.hget(f"acct:{player}:tokens", token_id)
        if hashed is None:
            return False
        self.r.delete(f"acct:token:{_text(hashed)}")
        self.r.hdel(f"acct:{player}:tokens", token_id)
        return True

    # ---- games and blocks -----------------------------------------------------------------
    def add_game(self, player: str, game_id: str, created_at: int) -> None:
        self.r.zadd(f"acct:{player}:games", {game_id: created_at})

    def games(self, player: str) -> list[str]:
        return [_text(g) for g in self.r.zrevrange(f"acct:{player}:games", 0, -1)]

    def count_games(self, player: str) -> int:
        return int(self.r.zcard(f"acct:{player}:games"))

    def block(self, player: str, other: str) -> None:
        if other == player:
            raise BadAction("you cannot block yourself", {"player": ["another player's id"]})
        if self.get(other) is None:
            raise NotFound(f"no player {other!r}")
        self.r.sadd(f"acct:{player}:blocks", other)

    def unblock(self, player: str, other: str) -> None:
        self.r.srem(f"acct:{player}:blocks", other)

    def blocks(self, player: str) -> set[str]:
        return {_text(p) for p in self.r.smembers(f"acct:{player}:blocks")}

    def blocked_by(self, player: str, other: str) -> bool:
        """Has ``player`` blocked ``other``?"""
        return bool(self.r.sismember(f"acct:{player}:blocks", other))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _account(player: str, stored: Mapping[Any, Any]) -> Account | None:
    if not stored:
        return None
    notes = _s(stored, "notifications")
    return Account(
        id=player,
        name=_s(stored, "name"),
        email=_s(stored, "email"),
        created_at=int(_s(stored, "created_at") or 0),
        locale=_s(stored, "locale") or None,
        timezone=_s(stored, "timezone") or None,
        notifications=notifications_of(json.loads(notes) if notes else None),
    )


def _s(stored: Mapping[Any, Any], key: str) -> str:
    value = stored.get(key, stored.get(key.encode(), b""))
    return _text(value)
