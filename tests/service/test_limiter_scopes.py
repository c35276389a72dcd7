"""``Limiter.check`` counts a request against exactly the scopes that are on for it, and where
none is (a move while only the creation quotas are on: the bench's "limits off", a server
with ``CHRONICLE_RATE_LIMIT=off``) it neither hashes the token nor works out the address."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.http.limits import Limiter, token_scope
from service.http.ratelimit import Counters, Limit

QUOTA = Limit.parse("5/hour")
RATE = Limit.parse("20/second")


class Hits(Counters):
    """The counters, recording what each request is counted against instead of counting."""

    def __init__(self) -> None:  # no Redis: nothing is counted
        self.calls: list[list[tuple[str, Limit]]] = []

    def hit(self, scoped: Sequence[tuple[str, Limit]]) -> None:
        self.calls.append(list(scoped))


def limiter(
    address: Limit | None = None,
    token: Limit | None = None,
    quota: Mapping[str, Limit] | None = None,
) -> tuple[Limiter, Hits]:
    hits = Hits()
    return Limiter(counters=hits, address=address, token=token, quota=quota or {}), hits


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
