"""Caps on concurrent waits (long-polls and streams), per client address and per token.

A wait costs no thread and no Redis connection (``service.stream``), but it does hold a socket,
a greenlet and some memory for as long as it lasts, and the rate limits count requests, not
how long they stay.  So the service caps how many waits one address and one token may hold at
once, and each API process how many it holds in all; one more is refused at once with 429
``rate_limited`` and ``Retry-After`` (the total with 503 ``unavailable``).

The caps per address and per token hold across all the API processes of the service: each wait
also takes a lease in Redis (``Leases``), a member of a sorted set per capped scope scored by
its expiry, checked and taken for both scopes in one Lua call.  A process keeps its leases
alive while its waits last (one refresher per process, every third of ``LEASE``), so a process
that dies leaves leases that expire within ``LEASE``.  Each process still counts its own waits
as well: that bounds one process, and it is all that is checked while Redis cannot be asked
(a wait is then never refused for it; the request answers 503 anyway if it needs Redis).  A
scope whose cap is off costs no Redis call at all.

Configuration (``off`` disables one), read when the app is built:
``CHRONICLE_WAITS_PER_ADDRESS`` (default 64: a household or an office behind one address),
``CHRONICLE_WAITS_PER_TOKEN`` (default 8: a seat's tabs and devices),
``CHRONICLE_WAITS_TOTAL`` (default 20,000 per process), ``CHRONICLE_WAITS_LEASE`` (seconds,
default 60).  As with the rate limits, the defaults apply to an app that configures itself from
the environment; an app built from explicit settings (the tests' in-process servers) is capped
only by the variables that are set.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import redis
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from service import connections

log = logging.getLogger(__name__)

DEFAULTS = {
    "CHRONICLE_WAITS_PER_ADDRESS": 64,
    "CHRONICLE_WAITS_PER_TOKEN": 8,
    "CHRONICLE_WAITS_TOTAL": 20_000,
}
OFF = frozenset({"off", "none", "0", "false", "no"})
RETRY_AFTER = 5
LEASE = 60.0  # seconds
# Every key shares the hash tag ``{w}``: one script checks and takes both scopes of a wait, on
# a Redis Cluster too (all the leases then live in one slot: two small calls per wait).
KEY_PREFIX = "waits{w}"
REFRESH_BATCH = 500  # leases re-scored by one script call

# The scores are expiries in ms by the Redis server's clock (TIME), so the processes' clocks
# never have to agree.  KEYS: the scopes' sets; ARGV: the lease (ms), the member, each scope's
# cap.  Returns 0 (taken) or the 1-based index of the first scope at its cap.
ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[i + 2]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[2])
  redis.call('PEXPIRE', key, lease)
end
return 0
"""
# KEYS: the scopes' sets; ARGV[1]: the member to give back.
RELEASE = """
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0
"""
# KEYS[i] holds the member ARGV[i + 1]; ARGV[1]: the lease (ms).  XX: a lease given back (or
# already expired) is not brought back by a refresh that raced with it.
REFRESH = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', key, lease)
end
return 0
"""


def _cap(env: Mapping[str, str], name: str, defaults: bool) -> int | None:
    value = (env.get(name) or (str(DEFAULTS[name]) if defaults else "off")).strip().lower()
    if value in OFF:
        return None
    try:
        cap = int(value)
    except ValueError:
        raise RuntimeError(f"{name}={value!r} is not a number of waits (or off)") from None
    if cap < 1:
        raise RuntimeError(f"{name} must be at least 1 (or off)")
    return cap


def _lease(env: Mapping[str, str]) -> float:
    text = (env.get("CHRONICLE_WAITS_LEASE") or str(LEASE)).strip()
    try:
        seconds = float(text)
    except ValueError:
        raise RuntimeError(f"CHRONICLE_WAITS_LEASE={text!r} is not a number of seconds") from None
    if not seconds >= 0.1:
        raise RuntimeError("CHRONICLE_WAITS_LEASE must be at least 0.1 seconds")
    return seconds


class Leases:
    """The waits of this process as leases in Redis, shared by every process of the service."""

    def __init__(self, client: Any, lease: float) -> None:
        self.lease_ms = max(1, round(lease * 1000))
        self._acquire = connections.script(client, ACQUIRE)
        self._release = connections.script(client, RELEASE)
        self._refresh = connections.script(client, REFRESH)
        self._lock = threading.Lock()
        self._live: dict[str, Sequence[str]] = {}  # member -> its keys
        self._counter = itertools.count()
        self._pid = -1  # set (with a fresh prefix) on first use in each process
        self._prefix = ""
        self._refresher: threading.Thread | None = None
        self._down = False

    def take(self, scoped: Sequence[tuple[str, int]]) -> str | int | None:
        """Take a lease on each (key, cap): its member when taken, the index of the first scope
        at its cap when refused, None when Redis could not be asked (nothing was taken)."""
        with self._lock:
            if self._pid != os.getpid():  # first use, or a fork: nothing of the parent's is ours
                self._pid, self._prefix = os.getpid(), f"{os.getpid()}:{secrets.token_hex(4)}"
                self._live, self._refresher = {}, None
            member = f"{self._prefix}:{next(self._counter)}"
        keys = [key for key, _ in scoped]
        try:
            refused = int(
                self._acquire(keys=keys, args=[self.lease_ms, member, *(c for _, c in scoped)])
            )
        except (redis.RedisError, OSError) as exc:
            if not self._down:
                log.warning(
                    "waits: Redis unavailable (%s); capping per process", type(exc).__name__
                )
            self._down = True
            return None
        if self._down:
            log.info("waits: Redis reachable again; capping across processes")
            self._down = False
        if refused:
            return refused - 1
        with self._lock:
            self._live[member] = keys
            if self._refresher is None:
                self._refresher = threading.Thread(
                    target=self._keep_alive, name="waits-leases", daemon=True
                )
                self._refresher.start()
        return member

    def give(self, member: str) -> None:
        """Give a lease back (if Redis cannot be told, it expires within the lease)."""
        with self._lock:
            keys = self._live.pop(member, ())
        if keys:
            with suppress(redis.RedisError, OSError):
                self._release(keys=keys, args=[member])

    def _keep_alive(self) -> None:
        """Re-score every live lease every third of the lease; end when none is left (the next
        lease taken starts another)."""
        while True:
            time.sleep(self.lease_ms / 3000)
            with self._lock:
                if not self._live:
                    self._refresher = None
                    return
                pairs = [(k, m) for m, keys in self._live.items() for k in keys]
            for i in range(0, len(pairs), REFRESH_BATCH):
                batch = pairs[i : i + REFRESH_BATCH]
                try:
                    self._refresh(
                        keys=[k for k, _ in batch], args=[self.lease_ms, *(m for _, m in batch)]
                    )
                except (redis.RedisError, OSError):
                    break  # the next round tries again; the leases last a lease meanwhile


class Waits:
    def __init__(
        self, env: Mapping[str, str] = os.environ, defaults: bool = True, client: Any = None
    ) -> None:
        self.per_address = _cap(env, "CHRONICLE_WAITS_PER_ADDRESS", defaults)
        self.per_token = _cap(env, "CHRONICLE_WAITS_PER_TOKEN", defaults)
        self.total_cap = _cap(env, "CHRONICLE_WAITS_TOTAL", defaults)
        capped = self.per_address is not None or self.per_token is not None
        self.leases = Leases(client, _lease(env)) if client is not None and capped else None
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self.total = 0

    @contextmanager
    def slot(self, address: str | None, identity: str | None) -> Iterator[None]:
        """Hold one wait for ``address`` and ``identity`` (a token or a ticket's seat) while
        the block runs; refuse at once if either is at its cap, in this process or in all."""
        keys = [f"a:{address or 'unknown'}"]
        if identity:
            keys.append("t:" + hashlib.sha256(identity.encode()).hexdigest()[:32])
        capped = [
            (key, cap, who)
            for key, cap, who in (
                (keys[0], self.per_address, "this address"),
                (keys[-1] if identity else None, self.per_token, "this token"),
            )
            if key is not None and cap is not None
        ]
        with self._lock:
            if self.total_cap is not None and self.total >= self.total_cap:
                raise ServiceUnavailable(
                    "this server holds as many waiting requests as it may; retry shortly",
                    retry_after=RETRY_AFTER,
                )
            for key, cap, who in capped:
                if self._held[key] >= cap:
                    raise _too_many(who, cap)
            for key in keys:
                self._held[key] += 1
            self.total += 1
        member = None
        try:
            if self.leases is not None and capped:
                got = self.leases.take([(f"{KEY_PREFIX}:{k}", cap) for k, cap, _ in capped])
                if isinstance(got, int):
                    raise _too_many(capped[got][2], capped[got][1])
                member = got
            yield
        finally:
            if member is not None and self.leases is not None:
                self.leases.give(member)
            with self._lock:
                for key in keys:
                    self._held[key] -= 1
                    if not self._held[key]:
                        del self._held[key]
                self.total -= 1


def _too_many(who: str, cap: int) -> TooManyRequests:
    return TooManyRequests(
        f"{who} already holds {cap} waiting requests (long-polls, streams)",
        retry_after=RETRY_AFTER,
    )
