"""The append script counts a request's rate-limit counters first (``service.admission``):
each counter incremented once, with its window's expiry set when it opens; one over its amount
raises ``OverLimit`` and appends nothing; an admission counted already is not counted again;
stores that cannot count (a cluster, memory) say so and refuse one."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
import redis

from service.admission import Admission, OverLimit
from service.connections import connect
from service.memory_store import MemoryEventStore
from service.redis_store import RedisEventStore, keys
from service.store import Conflict
from tests.store.test_event_store import ACTIVE, new_meta, records


def admission(scope: str, amounts: tuple[int, int] = (3, 10)) -> Admission:
    return Admission((f"rl:{{{scope}}}:s", f"rl:{{{scope}}}:m"), (1, 60), amounts, ("3/s", "10/m"))


def test_the_append_counts_the_counters_first_and_refuses_over_an_amount(
    redis_url: str,
) -> None:
    r = redis.Redis.from_url(redis_url)
    store = RedisEventStore(r)
    assert store.admits
    g, scope = secrets.token_hex(6), secrets.token_hex(6)
    log = records(1, 4)
    assert store.append(g, 0, "", log[:1], new_meta(), admit=admission(scope)) == 1
    first = admission(scope)
    assert store.append(g, 1, log[0].hash, log[1:2], ACTIVE, admit=first) == 2
    assert first.counted
    assert [int(r.get(k) or 0) for k in first.keys] == [2, 2]
    assert 0 < r.ttl(first.keys[0]) <= 1 and 1 < r.ttl(first.keys[1]) <= 60
    # a conflict still counts (the request was made), and appends nothing
    stale = admission(scope)
    with pytest.raises(Conflict):
        store.append(g, 1, log[0].hash, log[1:2], ACTIVE, admit=stale)
    assert stale.counted and [int(r.get(k) or 0) for k in stale.keys] == [3, 3]
    # the fourth request in the second: over 3/s, refused, counted, nothing appended
    over = admission(scope)
    with pytest.raises(OverLimit) as refused:
        store.append(g, 2, log[1].hash, log[2:3], ACTIVE, admit=over)
    assert refused.value.refusal.details == {"limit": "3/s", "retry_after": 1}
    assert [int(r.get(k) or 0) for k in over.keys] == [4, 4]
    assert r.xlen(keys(g)["log"]) == 2 and r.hget(keys(g)["meta"], "version") == b"2"
    # counted already (by the limiter's own call, or an earlier attempt): not counted again
    again = admission(scope)
    again.counted = True
    assert store.append(g, 2, log[1].hash, log[2:3], ACTIVE, admit=again) == 3
    assert [int(r.get(k) or 0) for k in again.keys] == [4, 4]


def test_an_amount_of_the_second_window_refuses_as_well(redis_url: str) -> None:
    store = RedisEventStore(redis.Redis.from_url(redis_url))
    g, scope = secrets.token_hex(6), secrets.token_hex(6)
    with pytest.raises(OverLimit) as refused:
        store.append(g, 0, "", records(1, 1), new_meta(), admit=admission(scope, (5, 0)))
    assert refused.value.refusal.details == {"limit": "10/m", "retry_after": 60}
    assert store.meta(g) is None


def test_stores_that_cannot_count_refuse_an_admission(cluster_url: str) -> None:
    stores: list[Any] = [RedisEventStore(connect(cluster_url)), MemoryEventStore()]
    for store in stores:
        assert not store.admits
        with pytest.raises(ValueError):
            store.append(
                secrets.token_hex(6), 0, "", records(1, 1), new_meta(), admit=admission("x")
            )
        counted = admission("x")
        counted.counted = True  # counted by the limiter's own call: nothing for the store
        assert store.append(secrets.token_hex(6), 0, "", records(1, 1), new_meta(), admit=counted)
