"""Fast unit tests of the service on the in-memory event store (no Redis, no HTTP).

They check the service's own logic; every behaviour here is also proven against real Redis by
the end-to-end tests (tests/e2e) and tests/service/test_chronicle.py."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.errors import BadAction, Forbidden
from projections.views import ADMIN, HOST, SEAT, SPECTATOR, Caller
from service.chronicle import Chronicle
from service.errors import NotFound, Unauthorized, VersionConflict
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore

PLAYERS = [{"name": "a"}, {"name": "b"}]


def service() -> Chronicle:
    return Chronicle(MemoryEventStore(), NoJobs(), admin_token="admin")


def play_to_end(ch: Chronicle, gid: str, seed: int = 3) -> None:
    rng = random.Random(seed)
    for _ in range(2000):
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            break
        seat = to_act[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
    cur = ch.current(gid)
    assert ch.finish(gid, cur.match.version)


def test_tokens_resolve_to_callers_and_wrong_ones_are_refused() -> None:
    ch = service()
    g = ch.create(None, "artus", PLAYERS, {"rules": "basic"}, "seed-1")
    cur = ch.current(g["id"])
    assert ch.caller(cur.meta, f"Bearer {g['seats'][1]['token']}") == Caller(SEAT, 1)
    assert ch.caller(cur.meta, f"Bearer {g['host_token']}") == Caller(HOST)
    assert ch.caller(cur.meta, "Bearer admin") == Caller(ADMIN)
    assert ch.caller(cur.meta, None) == Caller(SPECTATOR)
    with pytest.raises(Unauthorized):
        ch.caller(cur.meta, "Bearer nope")
    with pytest.raises(Unauthorized):
        ch.caller(cur.meta, "Basic abc")
    with pytest.raises(NotFound):
        ch.current("nope")


def test_act_is_conditional_and_idempotent() -> None:
    ch = service()
    gid = ch.create(None, "artus", PLAYERS, {"rules": "basic"}, "seed-2")["id"]
    cur = ch.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    action = cur.game.legal_actions(cur.match.state, seat)[0]
    first = ch.act(gid, Caller(SEAT, seat), action, cur.match.version, "key")
    again = ch.act(gid, Caller(SEAT, seat), action, cur.match.version, "key")
    assert again == first and ch.current(gid).match.version == first["version"]
    with pytest.raises(VersionConflict):
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
    with pytest.raises(Forbidden):
        ch.act(gid, Caller(HOST), action, first["version"])


def test_a_keyed_move_reads_no_key_first_and_its_retry_anywhere_replays_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A move with an Idempotency-Key is appended without reading the key first (on Redis:
    one round trip, as without a key).  Retried on a process whose cache has not seen it (a
    second service on the same store), the append finds the key answered: nothing appended,
    the first answer replayed.  Retried with a body the rules now refuse, the same answer."""
    store = MemoryEventStore()
    a, b = Chronicle(store, NoJobs()), Chronicle(store, NoJobs())
    made = a.create(None, "artus", PLAYERS, {"rules": "basic"}, "seed-keys")
    gid = made["id"]
    cur = b.current(gid)  # b caches the game before the move
    seat = cur.match.to_act(cur.game)[0]
    token = f"Bearer {made['seats'][seat]['token']}"
    action = cur.game.legal_actions(cur.match.state, seat)[0]
    reads: list[str] = []
    read = store.idempotent

    def idempotent(game_id: str, key: str) -> dict[str, Any] | None:
        reads.append(key)
        return read(game_id, key)

    monkeypatch.setattr(store, "idempotent", idempotent)
    first = a.act_as(gid, token, action, cur.match.version, "key")
    assert reads == []
    assert (cached := b.loader.cached(gid)) is not None
    assert cached.match.version == cur.match.version
    again = b.act_as(gid, token, action, cur.match.version, "key")
    assert again == first and len(reads) == 1
    meta = store.meta(gid)
    assert meta is not None and meta.version == first["version"]  # appended once
    assert a.act_as(gid, token, {"type": "no such thing"}, cur.match.version, "key") == first
    with pytest.raises(BadAction):
        a.act_as(gid, token, {"type": "no such thing"}, cur.match.version, "other key")


def test_reads_apply_the_reveal_rule_and_list_only_the_callers_actions() -> None:
    ch = service()
    gid = ch.create(None, "artus", PLAYERS, {"rules": "basic"}, "seed-3")["id"]
    cur = ch.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    with pytest.raises(BadAction):
        ch.view(cur, Caller(SPECTATOR), None, reveal=True)
    assert ch.actions(cur, Caller(SPECTATOR))["actions"] == []
    assert ch.actions(cur, Caller(SEAT, seat))["actions"]
    feed = ch.events(cur, Caller(SPECTATOR), 0, 100, wait=0)
    assert [e["version"] for e in feed["events"]] == list(range(1, cur.match.version + 1))
    assert ch.events(cur, Caller(SPECTATOR), cur.match.version, 10, wait=0.05)["events"] == []


def test_undo_export_and_import_round_trip() -> None:
    ch = service()
    created = ch.create(None, "artus", PLAYERS, {"rules": "basic", "undo": "host"}, "seed-4")
    gid = created["id"]
    cur = ch.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    before = cur.match.version
    ch.act(gid, Caller(SEAT, seat), cur.game.legal_actions(cur.match.state, seat)[0], before)
    assert ch.undo(gid, Caller(HOST), before)["version"] == before
    with pytest.raises(Forbidden):
        ch.export(gid, Caller(SPECTATOR))  # not finished yet
    play_to_end(ch, gid)
    doc = ch.export(gid, Caller(SPECTATOR))
    assert len(doc["undone"]) == 1 and doc["seed"] == "seed-4"
    copy = ch.import_log(doc, "Bearer admin")
    assert ch.current(copy["id"]).match == ch.current(gid).match
    assert ch.export(copy["id"], Caller(SPECTATOR))["undone"] == doc["undone"]
    audit = ch.audit(copy["id"], Caller(SPECTATOR))
    assert audit["chain_ok"] and audit["head_hash"] == doc["head_hash"]
    listed = ch.list_games("artus", "finished", 1, 10, "Bearer admin")  # unlisted: the admin
    assert listed["total"] == 2 and {g["id"] for g in listed["games"]} == {gid, copy["id"]}
