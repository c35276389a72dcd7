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
from service.admission import Admission

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


class Counters:
    def __init__(self, client: Any, prefix: str) -> None:
        self.prefix = prefix
        self.client = client  # the store's own client, where the move's append counts them
        self.single = isinstance(client, redis.Redis)  # else a Redis Cluster client
        self._hit = connections.script(client, HIT)
        self._windows: dict[tuple[str, Limit], tuple[tuple[str, int, int, str], ...]] = {}

    def admission(self, scoped: Sequence[tuple[str, Limit]]) -> Admission:
        """The counters of one request, one per (scope key, limit) and window, in order."""
        windows = [w for key, limit in scoped for w in self._counters(key, limit)]
        keys, expiries, amounts, labels = zip(*windows, strict=True)
        return Admission(keys, expiries, amounts, labels)

    def _counters(self, key: str, limit: Limit) -> tuple[tuple[str, int, int, str], ...]:
        """(counter key, window's seconds, amount, label) of each window of ``limit`` for the
        scope ``key``: kept for the scopes seen lately (a token's or an address's requests
        make the same keys again and again)."""
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
            self.count(self.admission(scoped))
        else:  # a cluster: one call per scope key, whose counters share its hash tag
            for one in scoped:
                self.count(self.admission([one]))

    def count(self, admission: Admission) -> None:
        """Count ``admission``'s counters in a call of their own (all of them in one slot);
        raise its ``RateLimited`` if one is over its amount."""
        admission.counted = True
        counts = self._hit(keys=admission.keys, args=admission.expiries)
        over = admission.first_over(counts)
        if over is not None:
            raise admission.refusal(over)


KEPT_SCOPES = 4096  # scope keys whose counters' keys are kept (cleared when full)


def _window(item: RateLimitItem) -> str:
    return f"{item.amount}/{item.multiples}/{item.GRANULARITY.name}"
