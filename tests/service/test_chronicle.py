"""The write path and loading, on a real Redis: snapshots, caches across processes, recovery."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
import redis

from domain.engine import Match
from domain.rng import Rng
from projections.records import Recorded
from projections.views import HOST, SEAT, Caller
from service.chronicle import Chronicle
from service.errors import Unauthorized
from service.jobs import NoJobs
from service.loading import Current
from service.redis_store import RedisEventStore
from service.store import Loaded
from tests.support.client import Client


def play(ch: Chronicle, gid: str, steps: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            return
        seat = to_act[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)


def new(ch: Chronicle, bots: bool = False) -> str:
    players = [{"name": f"p{i}", "bot": "random" if bots else None} for i in range(4)]
    return ch.create(None, "artus", players, {"rules": "advanced", "undo": "host"}, None)["id"]


def test_current_state_reads_a_snapshot_and_a_short_tail(redis_client: redis.Redis) -> None:
    ch = Chronicle(RedisEventStore(redis_client), NoJobs())
    gid = new(ch)
    play(ch, gid, 130)
    version = ch.current(gid).match.version
    assert version > 120
    raw = ch.store.load(gid)
    assert raw is not None and raw.snapshot is not None
    assert len(raw.records) <= 50, "the tail after the snapshot is short"
    fresh = Chronicle(RedisEventStore(redis_client), NoJobs())  # no cache: snapshot + tail
    assert fresh.current(gid).match == ch.current(gid).match
    full = Chronicle(RedisEventStore(redis_client), NoJobs())
    assert full.at(gid, version)[0].match == ch.current(gid).match


def test_a_cached_state_follows_appends_and_undos_by_other_processes(
    redis_client: redis.Redis,
) -> None:
    a = Chronicle(RedisEventStore(redis_client), NoJobs())
    b = Chronicle(RedisEventStore(redis_client), NoJobs())
    gid = new(a)
    play(a, gid, 20)
    cached = a.current(gid).match
    play(b, gid, 3, seed=7)  # another process appends
    assert a.current(gid).match == b.current(gid).match != cached
    # another process truncates and appends a different history of the same length
    cur = b.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    before = cur.match.version
    actions = cur.game.legal_actions(cur.match.state, seat)
    b.act(gid, Caller(SEAT, seat), actions[0], before)
    a.current(gid)  # a caches version before + 1
    b.undo(gid, Caller(HOST), before)
    b.act(gid, Caller(SEAT, seat), actions[-1], before)
    assert a.current(gid).match == b.current(gid).match
    assert a.current(gid).head == b.current(gid).head


def test_a_lost_follow_up_is_found_by_the_reconciler(
    redis_client: redis.Redis, api: Client, worker
) -> None:
    """The API died between the append and the enqueue: nothing was enqueued for the bots.
    The worker's reconciler finds the game idle with a bot to act and enqueues the turn."""
    ch = Chronicle(RedisEventStore(redis_client), NoJobs())
    gid = new(ch, bots=True)
    assert ch.current(gid).match.version == 2
    final = api.wait_status(gid, "finished", timeout=90)
    assert final["result"]["winners"]


def test_the_seed_drives_draws_and_undo_cannot_reroll(redis_client: redis.Redis) -> None:
    ch = Chronicle(RedisEventStore(redis_client), NoJobs())
    created = ch.create(
        None, "artus", [{"name": "a"}, {"name": "b"}], {"rules": "basic"}, "fixed-seed"
    )
    again = ch.create(
        None, "artus", [{"name": "a"}, {"name": "b"}], {"rules": "basic"}, "fixed-seed"
    )
    same = [ch.current(g).match.state for g in (created["id"], again["id"])]
    assert same[0] == same[1]
    assert Rng.at("fixed-seed", 1).below(10**6) == Rng.at("fixed-seed", 1).below(10**6)
    assert created["seed_commitment"] == again["seed_commitment"]


class SeenHooks:
    """A hook that records the webhook flag of the state each append was decided on."""

    def __init__(self) -> None:
        self.flags: list[bool] = []

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        self.flags.append(cur.meta.hooks)

    def undone(self, cur: Current, target: int) -> None:
        return None

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None


def test_a_move_on_a_warm_cache_reads_nothing_and_a_stale_cache_changes_nothing(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``act_as`` decides on the cached state with no read (one round trip: the append); a
    cache another process made stale (moves, a webhook registered) is refused by the append,
    and the move is decided again on a fresh read."""
    hooks = SeenHooks()
    a = Chronicle(RedisEventStore(redis_client), NoJobs(), hooks=hooks)
    b = Chronicle(RedisEventStore(redis_client), NoJobs())
    doc = a.create(None, "artus", [{"name": "p0"}, {"name": "p1"}], {"rules": "basic"}, "s")
    gid, tokens = doc["id"], {s["seat"]: s["token"] for s in doc["seats"]}

    def move(ch: Chronicle) -> dict[str, Any]:
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        action = cur.game.legal_actions(cur.match.state, seat)[0]
        version = cur.match.version
        return ch.act_as(gid, f"Bearer {tokens[seat]}", action, version)

    loads: list[tuple[Any, ...]] = []
    load = a.store.load

    def counted(*args: Any, **kw: Any) -> Loaded | None:
        loads.append(args)
        return load(*args, **kw)

    monkeypatch.setattr(a.store, "load", counted)
    cur = a.loader.current(gid)
    loads.clear()
    seat = cur.match.to_act(cur.game)[0]
    action = cur.game.legal_actions(cur.match.state, seat)[0]
    out = a.act_as(gid, f"Bearer {tokens[seat]}", action, cur.match.version)
    assert out["version"] > cur.match.version and loads == [], "a warm cache: no read"
    move(b)
    move(b)  # a's cache is two moves behind
    version = b.current(gid).match.version
    cur = b.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    action = cur.game.legal_actions(cur.match.state, seat)[0]
    assert a.act_as(gid, f"Bearer {tokens[seat]}", action, version)["version"] > version
    assert a.current(gid).match == b.current(gid).match
    assert a.current(gid).head == b.current(gid).head
    redis_client.hset(f"{{g:{gid}}}:meta", "hooks", "1")  # as webhooks.register does
    assert hooks.flags[-1] is False
    cur = a.loader.current(gid)
    a.loader.remember(gid, cur.match, cur.head, replace(cur.meta, hooks=False))  # stale flag
    seat = cur.match.to_act(cur.game)[0]
    action = cur.game.legal_actions(cur.match.state, seat)[0]
    a.act_as(gid, f"Bearer {tokens[seat]}", action, cur.match.version)
    assert hooks.flags[-1] is True, "the append refused the stale flag; the hooks saw it set"
    with pytest.raises(Unauthorized):
        a.act_as(gid, "Bearer not-a-token", action, cur.match.version)
