"""The rate limits' counters: fixed windows in Redis, every counter of a request in one script
call (``service/http/limits.py`` says which limits apply to a request and configures them).

The ``limits`` package parses the limits and names their windows, but it counts each window
of each limit with a round trip of its own (its storages have no call that counts several
keys), and so does flask-limiter, built on it: four for the default per-token and
per-address limits of two windows each.  Here one Lua call, through redis-py's ``Script``,
increments all of a request's counters (a new window's counter gets its expiry in the same
call) and returns them; a counter over its amount refuses the request.  On a Redis Cluster
the counters of one scope key share a hash tag, and each scope is one call.

A counter's key: ``chronicle-rl:{<scope key>}:<amount>/<multiples>/<granularity>``; the scope
key is already a hash for tokens (``limits.token_scope``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis
from limits import RateLimitItem, parse_many

from service import connections
from service.errors import RateLimited

# KEYS: the counters; ARGV: their windows' lengths in seconds.  Returns the counts.
HIT = """
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ARGV[i]) end
  out[i] = n
end
return out
"""


@dataclass(frozen=True, eq=False)
class Limit:
    """One configured limit (``20/second;600/minute``): its windows, for one kind of key.
    Made once, when the app is built: compared and hashed by identity (the counters' keys are
    kept per scope key and limit, and ``limits``' items hash in Python, slowly)."""

    items: tuple[RateLimitItem, ...]

    @classmethod
    def parse(cls, text: str) -> Limit:
        return cls(tuple(parse_many(text)))


Window = tuple[str, int, int, str]  # (counter key, window's seconds, amount, label)


class Counters:
    def __init__(self, client: Any, prefix: str) -> None:
        self.prefix = prefix
        self.single = isinstance(client, redis.Redis)  # else a Redis Cluster client
        self._hit = connections.script(client, HIT)
        self._windows: dict[tuple[str, Limit], tuple[Window, ...]] = {}

    def _counters(self, key: str, limit: Limit) -> tuple[Window, ...]:
        """Each window of ``limit`` for the scope ``key``: kept for the scopes seen lately (a
        token's or an address's requests make the same keys again and again)."""
        found = self._windows.get((key, limit))
        if found is None:
            found = tuple(
                (f"{self.prefix}:{{{key}}}:{_window(i)}", int(i.get_expiry()), i.amount, str(i))
                for i in limit.items
            )
            if len(self._windows) >= KEPT_SCOPES:
                self._windows.clear()
            self._windows[(key, limit)] = found
        return found

    def hit(self, scoped: Sequence[tuple[str, Limit]]) -> None:
        """Count one request against each (scope key, limit); raise ``RateLimited`` naming
        the first window over its amount."""
        if self.single:
            self._count([w for key, limit in scoped for w in self._counters(key, limit)])
        else:  # a cluster: one call per scope key, whose counters share its hash tag
            for key, limit in scoped:
                self._count(self._counters(key, limit))

    def _count(self, windows: Sequence[Window]) -> None:
        counts = self._hit(keys=[w[0] for w in windows], args=[w[1] for w in windows])
        for (_, seconds, amount, label), n in zip(windows, counts, strict=True):
            if int(n) > amount:
                # ``retry_after``: the window's length, an upper bound (the window is fixed)
                raise RateLimited(
                    f"rate limit exceeded ({label}); retry later",
                    {"limit": label, "retry_after": seconds},
                )


KEPT_SCOPES = 4096  # scope keys whose counters' keys are kept (cleared when full)


def _window(item: RateLimitItem) -> str:
    return f"{item.amount}/{item.multiples}/{item.GRANULARITY.name}"
