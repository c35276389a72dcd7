"""The event store's contract.  Every contract test runs on each implementation: in memory
(``MemoryEventStore``), a real single Redis server and a local 3-master Redis Cluster (the same
``RedisEventStore``), started by the fixtures.  Tests of the Redis stored form (``rstore`` and
``client``) run on the two Redis setups."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis

from projections import chain
from projections.records import Recorded
from service import meta as meta_codec
from service import redis_store as store_module
from service.connections import connect
from service.memory_store import MemoryEventStore
from service.meta import GameMeta, Progress
from service.redis_store import (
    DICT_ID,
    DICT_SHA256,
    FIELD,
    RedisEventStore,
    decode_entry,
    encode_record,
    keys,
)
from service.store import Batch, Conflict, EventStore
from tests.support.redis_cluster import RedisClusterServer

KEY = chain.chain_key("seed")
ACTIVE = Progress("active", (0,), (), 1_700_000_000_000)


def new_meta(seed: str = "seed", created: int = 1_700_000_000_000) -> GameMeta:
    """A new game's meta (what the store keeps is opaque to it but for version and head)."""
    return GameMeta(
        game="store-test",  # no game offered: listings filtered by game never show it
        seed=seed,
        seed_commitment=hashlib.sha256(seed.encode()).hexdigest(),
        tokens=("t0", None),
        host="h",
        created_at=created,
        setup_version=1,
        options={"rules": "basic"},
        seats=({"seat": 0, "name": "a", "bot": None}, {"seat": 1, "name": "b", "bot": "random"}),
        progress=ACTIVE,
    )


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


@pytest.fixture(params=["single", "cluster"])
def client(request: pytest.FixtureRequest) -> Any:
    """A client of a single Redis server, or of the local Redis Cluster."""
    if request.param == "single":
        return redis.Redis.from_url(request.getfixturevalue("redis_url"))
    return connect(request.getfixturevalue("cluster_url"))


@pytest.fixture
def rstore(client: Any) -> RedisEventStore:
    return RedisEventStore(client)


@pytest.fixture(params=["memory", "single", "cluster"])
def store(request: pytest.FixtureRequest) -> EventStore:
    """Each implementation of the contract."""
    if request.param == "memory":
        return MemoryEventStore()
    if request.param == "single":
        return RedisEventStore(redis.Redis.from_url(request.getfixturevalue("redis_url")))
    return RedisEventStore(connect(request.getfixturevalue("cluster_url")))


def gid() -> str:
    return secrets.token_hex(6)


def test_append_is_conditional_on_version_and_head(store: EventStore) -> None:
    g = gid()
    first = records(1, 3)
    assert store.append(g, Batch(first, new_meta())) == 3
    with pytest.raises(Conflict) as stale:
        store.append(g, Batch(records(3, 1, first[1].hash), ACTIVE, 2, first[1].hash))
    assert stale.value.current == 3
    with pytest.raises(Conflict):  # right version, wrong head: the log was rewritten meanwhile
        store.append(g, Batch(records(4, 1, first[2].hash), ACTIVE, 3, "not-the-head"))
    loaded = store.load(g)
    assert loaded is not None
    assert [r.version for r in loaded.records] == [1, 2, 3]
    assert loaded.records == first
    assert loaded.meta.version == 3 and loaded.meta.head == first[-1].hash
    assert loaded.meta == replace(new_meta(), version=3, head=first[-1].hash)


def test_append_can_be_conditional_on_the_webhook_flag(store: EventStore) -> None:
    """A move decided on a cached meta names the webhook flag it saw: set since, a conflict."""
    g = gid()
    first = records(1, 2)
    store.append(g, Batch(first, replace(new_meta(), hooks=True)))
    with pytest.raises(Conflict) as stale:
        store.append(g, Batch(records(3, 1, first[1].hash), ACTIVE, 2, first[1].hash, hooks=False))
    assert stale.value.current == 2
    assert (
        store.append(g, Batch(records(3, 1, first[1].hash), ACTIVE, 2, first[1].hash, hooks=True))
        == 3
    )
    third = records(3, 1, first[1].hash)[0].hash
    assert store.append(g, Batch(records(4, 1, third), ACTIVE, 3, third)) == 4  # unchecked
    h = gid()
    store.append(h, Batch(first, new_meta()))
    assert store.append(
        h, Batch(records(3, 1, first[1].hash), ACTIVE, 2, first[1].hash, hooks=False)
    )


def test_stream_ids_are_versions(rstore: RedisEventStore, client: Any) -> None:
    g = gid()
    rstore.append(g, Batch(records(1, 4), new_meta()))
    ids = [i.decode() for i, _ in client.xrange(keys(g)["log"])]
    assert ids == ["1-0", "2-0", "3-0", "4-0"]


def test_keys_share_one_cluster_slot() -> None:
    tags = {k.split("}")[0] for k in keys("abc").values()}
    assert tags == {"{g:abc"}


def test_truncate_moves_events_to_the_audit_and_allows_reappending(store: EventStore) -> None:
    g = gid()
    log = records(1, 5)
    store.append(g, Batch(log, new_meta()))
    store.truncate(g, 5, log[-1].hash, 3, log[2].hash, {"by": "seat:0", "events": [4, 5]}, ACTIVE)
    loaded = store.load(g)
    assert loaded is not None and [r.version for r in loaded.records] == [1, 2, 3]
    assert store.undone(g) == [{"by": "seat:0", "events": [4, 5]}]
    # Redis keeps a stream's last id after XDEL; the rewrite lets version 4 be appended again.
    again = records(4, 2, log[2].hash)
    assert store.append(g, Batch(again, ACTIVE, 3, log[2].hash)) == 5
    loaded = store.load(g)
    assert loaded is not None and loaded.records[3:] == again


def test_truncate_is_conditional(store: EventStore) -> None:
    g = gid()
    log = records(1, 3)
    store.append(g, Batch(log, new_meta()))
    with pytest.raises(Conflict):
        store.truncate(g, 2, log[1].hash, 1, log[0].hash, {}, ACTIVE)
    loaded = store.load(g)
    assert loaded is not None and len(loaded.records) == 3 and store.undone(g) == []


def test_truncate_drops_snapshots_past_the_target(store: EventStore) -> None:
    g = gid()
    log = records(1, 6)
    store.append(g, Batch(log, new_meta(), snapshot=(5, "blob5")))
    loaded = store.load(g)
    assert loaded is not None and loaded.snapshot == "blob5"
    store.truncate(g, 6, log[-1].hash, 4, log[3].hash, {}, ACTIVE)
    loaded = store.load(g)
    assert loaded is not None and loaded.snapshot is None


def test_load_from_snapshot_or_base_reads_only_the_tail(store: EventStore) -> None:
    g = gid()
    log = records(1, 10)
    store.append(g, Batch(log, new_meta(), snapshot=(6, "blob6")))
    loaded = store.load(g)
    assert loaded is not None and loaded.snapshot == "blob6"
    assert [r.version for r in loaded.records] == [6, 7, 8, 9, 10]
    based = store.load(g, base=9)
    assert based is not None and [r.version for r in based.records] == [9, 10]
    at = store.load(g, target=4, snapshot=False)
    assert at is not None and [r.version for r in at.records] == [1, 2, 3, 4]


def test_idempotency_value_is_stored_with_the_append(store: EventStore) -> None:
    g = gid()
    store.append(g, Batch(records(1, 1), new_meta(), idem=("0:k", '{"version": 1}')))
    assert store.idempotent(g, "0:k") == {"version": 1}
    assert store.idempotent(g, "1:k") is None


def test_an_append_whose_idempotency_key_holds_an_answer_is_a_conflict(store: EventStore) -> None:
    """The caller replays the stored answer instead (``Commands.act``): a keyed move needs
    no read of its key before the append."""
    g = gid()
    first = records(1, 1)
    store.append(g, Batch(first, new_meta(), idem=("0:k", '{"version": 1}')))
    with pytest.raises(Conflict) as conflict:
        store.append(
            g, Batch(records(2, 1, first[-1].hash), ACTIVE, 1, first[-1].hash, idem=("0:k", "{}"))
        )
    assert conflict.value.current == 1
    assert store.idempotent(g, "0:k") == {"version": 1}
    loaded = store.load(g)
    assert loaded is not None and [r.version for r in loaded.records] == [1]
    assert (
        store.append(
            g, Batch(records(2, 1, first[-1].hash), ACTIVE, 1, first[-1].hash, idem=("0:j", "{}"))
        )
        == 2
    )


def test_unknown_game_loads_none(store: EventStore) -> None:
    assert store.load("nope-" + gid()) is None


def test_wait_returns_when_an_event_arrives(store: EventStore) -> None:
    g = gid()
    store.append(g, Batch(records(1, 1), new_meta()))
    assert store.wait(g, 0, 100) is True
    assert store.wait(g, 1, 50) is False


def test_the_index_and_metas_of_many_games(store: EventStore) -> None:
    """The index is one key of its own; metas are read by one pipeline over many slots."""
    made = [gid() for _ in range(12)]
    for i, g in enumerate(made):
        store.append(g, Batch(records(1, 1), new_meta(seed=f"s{i}")))
        # older than any other game (other tests share the server): listings are unchanged
        store.index(g, -1_000_000 + i)
    assert store.list_ids(store.count() - 12, 12) == made[::-1]
    metas = store.metas([*made, "nope-" + gid()])
    assert [m.seed if m else None for m in metas] == [f"s{i}" for i in range(12)] + [None]


def test_records_round_trip_in_the_compact_format(rstore: RedisEventStore, client: Any) -> None:
    """One packed field per entry; every shape of record comes back equal."""
    g = gid()
    odd = [
        Recorded(1, "GameCreated", None, 1_700_000_000_000, None, "create", {"a": [1, None]}, ""),
        Recorded(2, "Noté", 3, 0, 2, {"type": "x", "ü": "ß"}, {"deep": {"k": [True, 1.5]}}, ""),
        Recorded(3, "Other", 0, -1_000, None, None, {}, ""),
    ]
    head, log = "", []
    for rec in odd:
        head = chain.link(KEY, head, rec)
        log.append(replace(rec, hash=head))
    rstore.append(g, Batch(log, new_meta()))
    loaded = rstore.load(g)
    assert loaded is not None and loaded.records == log
    assert rstore.read(g, 1, 10) == log[1:]
    entries = client.xrange(keys(g)["log"])
    assert all(list(fields) == [FIELD] for _, fields in entries)
    assert chain.first_break(KEY, loaded.records) is None


def test_a_hash_that_is_not_hex_is_kept_as_is() -> None:
    rec = Recorded(7, "T", None, 1, None, None, {}, "not-a-sha256")
    assert decode_entry(b"7-0", {FIELD: encode_record(rec)}) == rec
    upper = replace(rec, hash="AB" * 32)
    assert decode_entry("7-0", [FIELD, encode_record(upper)]) == upper


def test_entries_of_the_first_format_are_still_read(rstore: RedisEventStore, client: Any) -> None:
    g = gid()
    old = records(1, 2)
    for rec in old:
        fields = {"t": rec.type, "s": str(rec.seat), "a": str(rec.at), "c": str(rec.actor)}
        fields |= {"d": json.dumps(rec.data), "h": rec.hash}
        if rec.command is not None:
            fields["x"] = json.dumps(rec.command)
        client.xadd(keys(g)["log"], fields, id=f"{rec.version}-0")
    client.hset(keys(g)["meta"], mapping={**meta_codec.encode(new_meta()), "version": 2})
    client.hset(keys(g)["meta"], "head", old[-1].hash)
    loaded = rstore.load(g)
    assert loaded is not None and loaded.records == old
    new = records(3, 1, old[-1].hash)
    assert rstore.append(g, Batch(new, ACTIVE, 2, old[-1].hash)) == 3
    assert rstore.read(g, 0, 10) == old + new


def test_snapshots_are_stored_deflated_and_read_back(rstore: RedisEventStore, client: Any) -> None:
    g = gid()
    blob = json.dumps({"state": ["x" * 40] * 50})
    rstore.append(g, Batch(records(1, 3), new_meta(), snapshot=(3, blob)))
    stored = client.hget(keys(g)["snap"], "blob")
    assert len(stored) < len(blob) / 4
    loaded = rstore.load(g)
    assert loaded is not None and loaded.snapshot == blob


def test_the_deflate_dictionary_is_frozen() -> None:
    """Stored events depend on its exact bytes: the store refuses a changed file."""
    zdict = store_module._dictionary(DICT_ID)
    assert hashlib.sha256(zdict).hexdigest() == DICT_SHA256[DICT_ID]
    assert 16_000 < len(zdict) <= 32_768


def test_a_long_poll_wakes_when_another_thread_appends(store: EventStore) -> None:
    g = gid()
    log = records(1, 2)
    store.append(g, Batch(log[:1], new_meta()))
    timer = threading.Timer(0.05, lambda: store.append(g, Batch(log[1:], ACTIVE, 1, log[0].hash)))
    timer.start()
    started = time.monotonic()
    assert store.wait(g, 1, 5000) is True
    assert time.monotonic() - started < 4
    timer.join()


def test_the_import_undo_trail_is_kept_in_order(store: EventStore) -> None:
    g = gid()
    store.append(g, Batch(records(1, 1), new_meta()))
    store.add_undone(g, [{"n": 1}, {"n": 2}])
    store.add_undone(g, [])
    assert store.undone(g) == [{"n": 1}, {"n": 2}]


def test_progress_updates_the_meta_and_keeps_the_rest(store: EventStore) -> None:
    g = gid()
    log = records(1, 2)
    store.append(g, Batch(log[:1], new_meta()))
    done = Progress("scoring", (), (("score", None),), 1_700_000_000_999)
    store.append(g, Batch(log[1:], done, 1, log[0].hash))
    meta = store.meta(g)
    assert meta == replace(new_meta(), progress=done, version=2, head=log[1].hash)
    assert meta is not None and [j.id for j in meta.jobs(g)] == [f"score-{g}-2"]
    assert store.meta("nope-" + gid()) is None


BOT_TO_ACT = Progress("active", (1,), (("bot", 1),), 1_700_000_000_000)
FINISHED = Progress("finished", (), (), 1_700_000_000_500, {"winners": [0]})


def _filled(store: EventStore) -> dict[str, int]:
    store.fill_live([], True)  # other tests share the server: it may be filled already
    live = store.live()
    assert live is not None
    return live


def test_a_live_write_marks_the_game_and_only_a_current_mark_is_dropped(store: EventStore) -> None:
    """The live index: marked by a write that leaves a follow-up (or a deadline), kept after
    the game finishes, unlisted only by ``drop_live`` with the mark it was read with."""
    g, idle, clocked = gid(), gid(), gid()
    log = records(1, 2)
    before = time.time_ns() // 10**6
    store.append(g, Batch(log[:1], replace(new_meta(), progress=BOT_TO_ACT)))
    store.append(idle, Batch(records(1, 1), new_meta()))  # a person to act, no clock
    deadline = replace(ACTIVE, deadlines={"0": 1_700_000_060_000})
    store.append(clocked, Batch(records(1, 1), replace(new_meta(), progress=deadline)))
    live = _filled(store)
    assert before <= live[g] <= time.time_ns() // 10**6 and clocked in live
    assert idle not in live
    store.append(g, Batch(log[1:], FINISHED, 1, log[0].hash))
    assert _filled(store)[g] == live[g], "only the reconciler unlists a game"
    store.drop_live({g: live[g] - 1})  # marked again since that read: kept
    assert g in _filled(store)
    store.drop_live({g: live[g], "nope-" + gid(): 1})
    assert g not in _filled(store)


def test_an_undo_that_leaves_a_follow_up_marks_the_game(store: EventStore) -> None:
    g = gid()
    log = records(1, 3)
    store.append(g, Batch(log, new_meta()))
    assert g not in _filled(store)
    store.truncate(g, 3, log[2].hash, 1, log[0].hash, {"undone": [2, 3]}, BOT_TO_ACT)
    assert g in _filled(store)


@pytest.fixture(params=["memory", "single", "cluster"])
def own_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    """Each implementation on a server of the test's own (a one-master cluster for the
    cluster): the session's servers have session workers whose reconcilers, every second,
    would fill a live index that a test has just emptied."""
    if request.param == "memory":
        yield MemoryEventStore()
        return
    if request.param == "single":
        yield RedisEventStore(connect(request.getfixturevalue("own_redis_url")))
        return
    server = RedisClusterServer(tmp_path, masters=1)
    server.start()
    try:
        yield RedisEventStore(connect(server.url))
    finally:
        server.stop()


def test_the_live_index_answers_none_until_its_backfill_is_done(own_store: EventStore) -> None:
    """A store written before the live index has none: the reconciler fills it once."""
    store = own_store
    if isinstance(store, RedisEventStore):
        store.r.delete(store_module.LIVE_FILLED)  # as before an upgrade
    g = gid()
    assert store.live() is None
    store.fill_live([g], False)
    assert store.live() is None, "a backfill cut short is not done"
    store.fill_live([], True)
    live = store.live()
    assert live is not None and g in live
    store.drop_live({g: live[g]})
