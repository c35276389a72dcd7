"""The event store's contract, against a real Redis server started by the fixtures."""

from __future__ import annotations

import secrets
from dataclasses import replace

import pytest
import redis

from projections import chain
from projections.records import Recorded
from service.store import Conflict, EventStore, keys

KEY = chain.chain_key("seed")


def records(start: int, n: int, head: str = "") -> list[Recorded]:
    out = []
    for v in range(start, start + n):
        rec = Recorded(
            v,
            "Thing",
            v % 2,
            1_700_000_000_000 + v,
            0,
            {"n": v} if v == start else None,
            {"v": v},
            "",
        )
        head = chain.link(KEY, head, rec)
        out.append(replace(rec, hash=head))
    return out


@pytest.fixture
def store(redis_client: redis.Redis) -> EventStore:
    return EventStore(redis_client)


def gid() -> str:
    return secrets.token_hex(6)


def test_append_is_conditional_on_version_and_head(store: EventStore) -> None:
    g = gid()
    first = records(1, 3)
    assert store.append(g, 0, "", first, {"status": "active"}) == 3
    with pytest.raises(Conflict) as stale:
        store.append(g, 2, first[1].hash, records(3, 1, first[1].hash), {})
    assert stale.value.current == 3
    with pytest.raises(Conflict):  # right version, wrong head: the log was rewritten meanwhile
        store.append(g, 3, "not-the-head", records(4, 1, first[2].hash), {})
    loaded = store.load(g)
    assert loaded is not None
    assert [r.version for r in loaded.records] == [1, 2, 3]
    assert loaded.records == first
    assert loaded.meta["version"] == "3" and loaded.meta["head"] == first[-1].hash


def test_stream_ids_are_versions(store: EventStore, redis_client: redis.Redis) -> None:
    g = gid()
    store.append(g, 0, "", records(1, 4), {})
    ids = [i.decode() for i, _ in redis_client.xrange(keys(g)["log"])]
    assert ids == ["1-0", "2-0", "3-0", "4-0"]


def test_keys_share_one_cluster_slot() -> None:
    tags = {k.split("}")[0] for k in keys("abc").values()}
    assert tags == {"{g:abc"}


def test_truncate_moves_events_to_the_audit_and_allows_reappending(store: EventStore) -> None:
    g = gid()
    log = records(1, 5)
    store.append(g, 0, "", log, {})
    store.truncate(g, 5, log[-1].hash, 3, {"by": "seat:0", "events": [4, 5]}, {"head": log[2].hash})
    loaded = store.load(g)
    assert loaded is not None and [r.version for r in loaded.records] == [1, 2, 3]
    assert store.undone(g) == [{"by": "seat:0", "events": [4, 5]}]
    # Redis keeps a stream's last id after XDEL; the rewrite lets version 4 be appended again.
    again = records(4, 2, log[2].hash)
    assert store.append(g, 3, log[2].hash, again, {}) == 5
    loaded = store.load(g)
    assert loaded is not None and loaded.records[3:] == again


def test_truncate_is_conditional(store: EventStore) -> None:
    g = gid()
    log = records(1, 3)
    store.append(g, 0, "", log, {})
    with pytest.raises(Conflict):
        store.truncate(g, 2, log[1].hash, 1, {}, {"head": log[0].hash})
    loaded = store.load(g)
    assert loaded is not None and len(loaded.records) == 3 and store.undone(g) == []


def test_truncate_drops_snapshots_past_the_target(store: EventStore) -> None:
    g = gid()
    log = records(1, 6)
    store.append(g, 0, "", log, {}, snapshot=(5, "blob5"))
    assert store.load(g).snapshot == "blob5"  # type: ignore[union-attr]
    store.truncate(g, 6, log[-1].hash, 4, {}, {"head": log[3].hash})
    assert store.load(g).snapshot is None  # type: ignore[union-attr]


def test_load_from_snapshot_or_base_reads_only_the_tail(store: EventStore) -> None:
    g = gid()
    log = records(1, 10)
    store.append(g, 0, "", log, {}, snapshot=(6, "blob6"))
    loaded = store.load(g)
    assert loaded is not None and loaded.snapshot == "blob6"
    assert [r.version for r in loaded.records] == [6, 7, 8, 9, 10]
    based = store.load(g, base=9)
    assert based is not None and [r.version for r in based.records] == [9, 10]
    at = store.load(g, target=4, snapshot=False)
    assert at is not None and [r.version for r in at.records] == [1, 2, 3, 4]


def test_idempotency_value_is_stored_with_the_append(store: EventStore) -> None:
    g = gid()
    store.append(g, 0, "", records(1, 1), {}, idem=("0:k", '{"version": 1}'))
    assert store.idempotent(g, "0:k") == {"version": 1}
    assert store.idempotent(g, "1:k") is None


def test_unknown_game_loads_none(store: EventStore) -> None:
    assert store.load("nope-" + gid()) is None


def test_wait_returns_when_an_event_arrives(store: EventStore) -> None:
    g = gid()
    store.append(g, 0, "", records(1, 1), {})
    assert store.wait(g, 0, 100) is True
    assert store.wait(g, 1, 50) is False
