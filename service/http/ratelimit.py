"""The rate limits' counters: fixed windows in Redis, every counter of a request in one script
call (``service/http/limits.py`` says which limits apply to a request and configures them).

flask-limiter checks each window of each limit with a round trip of its own: four for the
default per-token and per-address limits of two windows each, more than the move they guard
costs.  Here one Lua call increments all of a request's counters (a new window's counter gets
its expiry in the same call) and returns them; a counter over its amount refuses the request.
On a Redis Cluster the counters of one scope key share a hash tag, and each scope is one call.

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
from service.chat import RateLimited

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


@dataclass(frozen=True)
class Limit:
    """One configured limit (``20/second;600/minute``): its windows, for one kind of key."""

    items: tuple[RateLimitItem, ...]

    @classmethod
    def parse(cls, text: str) -> Limit:
        return cls(tuple(parse_many(text)))


class Counters:
    def __init__(self, client: Any, prefix: str) -> None:
        self.prefix = prefix
        self.single = isinstance(client, redis.Redis)  # else a Redis Cluster client
        self._hit = connections.script(client, HIT)

    def hit(self, scoped: Sequence[tuple[str, Limit]]) -> None:
        """Count one request against each (scope key, limit); raise ``RateLimited`` naming
        the first window over its amount."""
        groups: list[list[tuple[str, RateLimitItem]]] = []
        for key, limit in scoped:
            entries = [(f"{self.prefix}:{{{key}}}:{_window(i)}", i) for i in limit.items]
            if self.single and groups:
                groups[0] += entries
            else:
                groups.append(entries)
        for entries in groups:
            counts = self._hit(
                keys=[k for k, _ in entries], args=[i.get_expiry() for _, i in entries]
            )
            for (_, item), n in zip(entries, counts, strict=True):
                if int(n) > item.amount:
                    retry_after = int(item.get_expiry())  # the window's length: an upper bound
                    raise RateLimited(
                        f"rate limit exceeded ({item}); retry later",
                        {"limit": str(item), "retry_after": retry_after},
                    )


def _window(item: RateLimitItem) -> str:
    return f"{item.amount}/{item.multiples}/{item.GRANULARITY.name}"
