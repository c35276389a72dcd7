"""``Limiter.check`` counts a request against exactly the scopes that are on for it, and where
none is (a move while only the creation quotas are on: the bench's "limits off", a server
with ``CHRONICLE_RATE_LIMIT=off``) it neither hashes the token nor works out the address."""

from __future__ import annotations

from typing import Any

from service.http.limits import Limiter, token_scope
from service.http.ratelimit import Limit

QUOTA = Limit.parse("5/hour")
RATE = Limit.parse("20/second")


class Hits:
    def __init__(self) -> None:
        self.calls: list[list[tuple[str, Limit]]] = []

    def hit(self, scoped: list[tuple[str, Limit]]) -> None:
        self.calls.append(list(scoped))


def limiter(**given: Any) -> tuple[Limiter, Hits]:
    hits = Hits()
    options = {"address": None, "token": None, "quota": {}} | given
    return Limiter(counters=hits, **options), hits  # type: ignore[arg-type]


def never_asked() -> str:
    raise AssertionError("the address was worked out for nothing")


def test_a_move_under_quotas_only_is_counted_nowhere_and_costs_nothing() -> None:
    lim, hits = limiter(quota={"create": QUOTA, "import": QUOTA})
    lim.check("POST", "/api/v1/games/g1/actions", "Bearer secret-token", never_asked)
    assert hits.calls == []


def test_a_creation_under_quotas_is_counted_per_address_and_per_token() -> None:
    lim, hits = limiter(quota={"create": QUOTA})
    lim.check("POST", "/api/v1/games", "Bearer secret-token", lambda: "10.0.0.7")
    scope = token_scope("secret-token")
    assert hits.calls == [[("create:addr:10.0.0.7", QUOTA), (f"create:{scope}", QUOTA)]]


def test_rate_limits_count_every_request_per_address_and_per_token() -> None:
    lim, hits = limiter(address=RATE, token=RATE, quota={"create": QUOTA})
    lim.check("POST", "/api/v1/games/g1/actions", "Bearer secret-token", lambda: "10.0.0.7")
    lim.check("GET", "/api/v1/games/g1", None, lambda: "10.0.0.8")
    scope = token_scope("secret-token")
    assert hits.calls == [
        [("addr:10.0.0.7", RATE), (scope, RATE)],
        [("addr:10.0.0.8", RATE)],
    ]
