"""The deadlines' index (``service.clocks``): a turn of a clocked game costs one ``ZADD`` and
no RQ job; a worker takes the checks that are due out of it, each exactly once, and queues
them; a check lost between the two is found by the reconciler.  (That the check times a seat
out through a real worker is ``test_clocks.py``'s.)"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from domain import table as tables
from domain.engine import Match
from projections.views import SEAT, Caller
from service import clocks
from service.app import build_chronicle
from service.connections import connect
from service.hooks import AllHooks
from service.jobs import QUEUE
from service.redis_server import RedisServer, free_port
from service.redis_store import RedisEventStore
from service.store import Conflict
from tests.conftest import settings
from workers import main as worker_main
from workers.clocks import queue_due_checks_forever

NOW = 1_800_000_000_000


def deadlines(match: Match) -> dict[int, int]:
    """The match's deadlines by seat: every game here is at a clocked table."""
    assert match.table is not None
    return match.table.deadlines()


def text(member: Any) -> str:
    """A member as the client answers it (bytes), as text."""
    assert isinstance(member, bytes)
    return member.decode()


def indexed_checks(r: redis.Redis) -> set[str]:
    """The members of the deadline index."""
    return {text(m) for m in r.zrange(clocks.DEADLINES, 0, -1)}


def scored_checks(r: redis.Redis) -> dict[str, float]:
    """The deadline index: each member and its score (the deadline)."""
    out: dict[str, float] = {}
    for pair in r.zrange(clocks.DEADLINES, 0, -1, withscores=True):
        assert isinstance(pair, tuple)
        member, score = pair
        out[text(member)] = score
    return out


def clocked(ch: Any, seed: str, turn_time: str) -> str:
    """A new two-seat Artus game with a turn time; its id."""
    created = ch.create(
        None, "artus", [{"name": "a"}, {"name": "b"}], {"rules": "basic"}, seed,
        table={**tables.Rules(turn_time=turn_time).data()},
    )  # fmt: skip
    return str(created["id"])


def test_each_turn_of_a_clocked_game_is_one_entry_in_the_index_and_no_rq_job(
    own_redis_url: str,
) -> None:
    ch = build_chronicle(settings(own_redis_url))
    now = [NOW]
    ch.commands.clock = lambda: now[0]
    r = redis.Redis.from_url(own_redis_url)
    gid = clocked(ch, "index-seed", "PT1H")
    expected = {}
    for _ in range(6):
        cur = ch.current(gid)
        for seat, deadline in deadlines(cur.match).items():
            expected[clocks.check_job(gid, deadline, seat).id] = deadline
        assert scored_checks(r) == {k: float(v) for k, v in expected.items()}
        seat = cur.match.to_act(cur.game)[0]
        now[0] += 1000
        action = cur.game.legal_actions(cur.match.state, seat)[0]
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
    assert len(expected) >= 6, "a deadline for each turn that began"
    assert not r.keys("rq:job:clock-*"), "no RQ job for a deadline that has not passed"
    assert not r.keys("rq:scheduled:*")


def test_due_checks_are_taken_once_whoever_asks_and_the_future_ones_stay(
    own_redis_url: str,
) -> None:
    r = redis.Redis.from_url(own_redis_url)
    add = clocks.Clocks(connect(own_redis_url))
    for i in range(250):
        add.schedule(clocks.check_job(f"g-{i}-x", NOW + i, i % 3))  # game ids may hold dashes
    for i in range(5):
        add.schedule(clocks.check_job("later", NOW + 10_000 + i, i))
    add.schedule(clocks.check_job("g-0-x", NOW, 0))  # scheduled twice: one entry
    taken: list[str] = []

    def take() -> None:
        due = clocks.Due(connect(own_redis_url))
        while batch := due(NOW + 249, limit=7):
            taken.extend(job.id for job in batch)

    takers = [threading.Thread(target=take) for _ in range(4)]
    for t in takers:
        t.start()
    for t in takers:
        t.join()
    assert sorted(taken) == sorted(
        clocks.check_job(f"g-{i}-x", NOW + i, i % 3).id for i in range(250)
    )
    assert r.zcard(clocks.DEADLINES) == 5
    assert clocks.check_of("clock-g-7-x-1800000000007-1") == clocks.check_job("g-7-x", NOW + 7, 1)
    junk = ("bot-g-1-0", "clock-g-x-0", "clock--5-0", "clock-g-5-x", "clock-g-\u00b2-0")
    for member in (*junk, b"clock-\xff-1-0"):
        assert clocks.check_of(member) is None


def test_a_worker_queues_a_check_once_its_deadline_has_passed(own_redis_url: str) -> None:
    """The worker's loop (``workers.clocks``) moves a due check to the queue as its RQ job;
    a check not yet due stays in the index."""
    r = redis.Redis.from_url(own_redis_url)
    soon = time.time_ns() // 10**6 + 1000
    clocks.Clocks(connect(own_redis_url)).schedule(clocks.check_job("g-soon", soon, 1))
    clocks.Clocks(connect(own_redis_url)).schedule(clocks.check_job("g-later", soon + 3_600_000, 0))
    stop = threading.Event()
    loop = threading.Thread(
        target=queue_due_checks_forever, args=(connect(own_redis_url), 0.05, stop), daemon=True
    )
    loop.start()
    try:
        queue = Queue(QUEUE, connection=r, serializer=JSONSerializer)
        job_id = clocks.check_job("g-soon", soon, 1).id
        time.sleep(0.4)  # several looks of the loop, all before the deadline
        assert queue.job_ids == [], "not queued before its deadline"
        deadline = time.monotonic() + 10
        while job_id not in queue.job_ids and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)  # more looks: nothing queued twice
        assert queue.job_ids == [job_id], "queued once"
        job = queue.fetch_job(job_id)
        assert job is not None and job.func_name == "workers.clocks.check_deadline"
        assert job.enqueued_at is not None and job.enqueued_at.timestamp() * 1000 >= soon
        assert job.args == ["g-soon", soon, 1]
        assert [text(m) for m in r.zrange(clocks.DEADLINES, 0, -1)] == [
            clocks.check_job("g-later", soon + 3_600_000, 0).id
        ]
    finally:
        stop.set()
        loop.join(5)


def test_a_check_taken_and_lost_is_queued_by_the_reconciler(own_redis_url: str) -> None:
    """A worker took the check out of the index and died before queueing it: the deadline is
    still in the game's meta, overdue, with no job, so the reconciler queues it."""
    ch = build_chronicle(settings(own_redis_url))
    ch.commands.clock = lambda: NOW
    gid = clocked(ch, "lost-seed", "PT1M")
    cur = ch.current(gid)
    [(seat, deadline)] = deadlines(cur.match).items()
    assert [j.id for j in clocks.Due(connect(own_redis_url))(deadline)] == [
        clocks.check_job(gid, deadline, seat).id
    ]  # taken, and not queued
    store = RedisEventStore(redis.Redis.from_url(own_redis_url))
    queue = Queue(QUEUE, connection=redis.Redis.from_url(own_redis_url), serializer=JSONSerializer)
    found = worker_main.missing_follow_ups(store, queue, 5000, deadline + 5000)
    assert clocks.check_job(gid, deadline, seat).id in [j.id for j in found]


def test_the_loop_rides_out_a_redis_outage_saying_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis away: one warning, fewer looks (up to one every 5 s); Redis back: the due
    checks are queued again."""
    server = RedisServer(tmp_path, port=free_port(), persistent=True)
    url = server.start()
    stop = threading.Event()
    loop = threading.Thread(
        target=queue_due_checks_forever, args=(connect(url), 0.02, stop), daemon=True
    )
    try:
        with caplog.at_level(logging.WARNING, logger="workers.clocks"):
            loop.start()
            server.stop()
            time.sleep(1.0)  # about six failed looks, backing off
            server.start()
            now = time.time_ns() // 10**6
            clocks.Clocks(connect(url)).schedule(clocks.check_job("g-back", now, 0))
            queue = Queue(QUEUE, connection=redis.Redis.from_url(url), serializer=JSONSerializer)
            deadline = time.monotonic() + 15
            while not queue.job_ids and time.monotonic() < deadline:
                time.sleep(0.05)
            assert queue.job_ids == [clocks.check_job("g-back", now, 0).id]
        warned = [r for r in caplog.records if r.name == "workers.clocks"]
        assert len(warned) == 1, [r.getMessage() for r in warned]
    finally:
        stop.set()
        loop.join(10)
        server.stop()


def test_on_one_redis_the_append_writes_its_checks_in_the_same_call(own_redis_url: str) -> None:
    """The queue's Redis is the game's: the append writes the log and the index together,
    and the clocks' hook makes no call of its own; a refused move (a conflict) writes
    neither."""
    ch = build_chronicle(settings(own_redis_url))
    assert ch.store.indexes_deadlines
    r = redis.Redis.from_url(own_redis_url)
    hooks = ch.commands.hooks
    assert isinstance(hooks, AllHooks)
    [hook] = [h for h in hooks.hooks if isinstance(h, clocks.Clocks)]
    hook_calls: list[Any] = []
    hook.add = lambda **call: hook_calls.append(call)
    gid = clocked(ch, "fold-seed", "PT1H")
    assert r.zcard(clocks.DEADLINES) == 1, "the first turn's, written with the creation"
    for _ in range(4):
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        action = cur.game.legal_actions(cur.match.state, seat)[0]
        entries = r.zcard(clocks.DEADLINES)
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
        now = deadlines(ch.current(gid).match)
        indexed = indexed_checks(r)
        assert {clocks.check_job(gid, ms, s).id for s, ms in now.items()} <= indexed
        assert len(indexed) == entries + 1, "the turn this move began"
    cur = ch.current(gid)
    entries = r.zcard(clocks.DEADLINES)
    late = clocks.check_job(gid, NOW, 0)
    with pytest.raises(Conflict):  # the log moved on since version 1: nothing is written
        ch.store.append(gid, 1, "x", [], cur.meta.progress, checks=[late])
    assert r.zcard(clocks.DEADLINES) == entries and r.zscore(clocks.DEADLINES, late.id) is None
    assert hook_calls == [], "nothing written by the hook"


def test_with_a_queue_redis_of_its_own_the_hook_writes_the_checks_there(
    own_redis_url: str, tmp_path: Path
) -> None:
    queue_server = RedisServer(tmp_path / "queue", port=free_port(), persistent=False)
    queue_url = queue_server.start()
    try:
        ch = build_chronicle(replace(settings(own_redis_url), queue_redis_url=queue_url))
        assert not ch.store.indexes_deadlines
        gid = clocked(ch, "queue-seed", "PT1H")
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        ch.act(gid, Caller(SEAT, seat), cur.game.legal_actions(cur.match.state, seat)[0], 2)
        due = deadlines(ch.current(gid).match)
        q, events = redis.Redis.from_url(queue_url), redis.Redis.from_url(own_redis_url)
        assert not events.exists(clocks.DEADLINES)
        indexed = indexed_checks(q)
        assert {clocks.check_job(gid, ms, s).id for s, ms in due.items()} <= indexed
        assert len(indexed) == 2, "the creation's turn and the move's"
    finally:
        queue_server.stop()
