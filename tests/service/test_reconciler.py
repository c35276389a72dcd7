"""The worker's reconciler and RQ's scheduler: a scheduled job (a retry, a deadline check) that
nobody moves to its queue is queued by the reconciler once it is overdue; and a pass reads only
the games of the live index.

A worker restarted after a Redis outage cannot take the scheduler lock its dead predecessor
held (it outlives its holder by a minute, and RQ retries it every few minutes), so without
this a retried bot turn or a clock waited that long (seen as a bot game stuck after Redis
came back)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import redis
from rq import Queue
from rq.job import JobStatus
from rq.serializers import JSONSerializer

from service.memory_store import MemoryEventStore
from service.meta import GameMeta
from service.redis_store import LIVE, LIVE_FILLED, RedisEventStore
from service.store import LIVE_GRACE_MS
from tests.store.test_event_store import BOT_TO_ACT, FINISHED, new_meta, records
from workers import main as worker_main


def _queue(redis_url: str) -> Queue:
    name = "reconciler-test-" + secrets.token_hex(4)  # its own queue on the session server
    return Queue(name, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)


def test_an_overdue_scheduled_job_is_queued_and_a_due_one_left_to_the_scheduler(
    redis_url: str,
) -> None:
    queue = _queue(redis_url)
    now = datetime.now(UTC)
    stranded = queue.enqueue_at(now - timedelta(seconds=30), "workers.jobs.bot_turn", "g", 1, 0)
    recent = queue.enqueue_at(now - timedelta(seconds=1), "workers.jobs.bot_turn", "g", 2, 0)
    later = queue.enqueue_at(now + timedelta(minutes=5), "workers.jobs.bot_turn", "g", 3, 0)
    now_ms = time.time_ns() // 10**6
    for job in (stranded, recent, later):
        assert job.get_status() == JobStatus.SCHEDULED
        assert worker_main._pending(queue, job.id, now_ms), "still pending: never enqueued twice"
    assert queue.job_ids == [stranded.id]
    assert stranded.get_status(refresh=True) == JobStatus.QUEUED
    assert set(queue.scheduled_job_registry.get_job_ids()) == {recent.id, later.id}
    assert worker_main._pending(queue, stranded.id, now_ms)  # once queued, it stays put
    assert queue.job_ids == [stranded.id]


class CountingStore(MemoryEventStore):
    """The in-memory store, recording the games whose metas are read."""

    def __init__(self) -> None:
        super().__init__()
        self.meta_reads: list[str] = []

    def metas(self, game_ids: Sequence[str]) -> list[GameMeta | None]:
        self.meta_reads += game_ids
        return super().metas(game_ids)


def test_a_pass_reads_only_live_games_and_still_finds_a_missing_follow_up(redis_url: str) -> None:
    """A finished game's meta is read once more (to drop it from the live index once its mark
    is past the grace), then never; a game awaiting a bot whose job is lost is found."""
    queue, store = _queue(redis_url), CountingStore()
    waiting, done, old = "g-waiting", "g-done", "g-old"
    store.append(waiting, 0, "", records(1, 1), replace(new_meta(), progress=BOT_TO_ACT))
    log = records(1, 2)
    store.append(done, 0, "", log[:1], replace(new_meta(), progress=BOT_TO_ACT))
    store.append(done, 1, log[0].hash, log[1:], FINISHED)
    store.append(old, 0, "", records(1, 1), replace(new_meta(), progress=FINISHED))
    for g in (waiting, done, old):
        store.index(g, 1)
    later = time.time_ns() // 10**6 + LIVE_GRACE_MS  # every mark is past the grace
    lost = [f"bot-{waiting}-1-1"]
    first = worker_main.missing_follow_ups(store, queue, 5000, later)
    assert [j.id for j in first] == lost
    backfill, live = sorted([waiting, done, old]), sorted([waiting, done])
    assert sorted(store.meta_reads) == sorted(backfill + live), "the backfill, then the live games"
    store.meta_reads.clear()
    again = worker_main.missing_follow_ups(store, queue, 5000, later)
    assert [j.id for j in again] == lost
    assert store.meta_reads == [waiting]


def test_games_stored_before_the_live_index_are_reconciled_after_an_upgrade(
    own_redis_url: str,
) -> None:
    """No live index on the server yet: the first pass fills it from the game index.  On a
    server of its own: the session worker's reconciler would find the game first."""
    queue, store = _queue(own_redis_url), RedisEventStore(redis.Redis.from_url(own_redis_url))
    g = "reconciler-" + secrets.token_hex(6)
    store.append(g, 0, "", records(1, 1), replace(new_meta(), progress=BOT_TO_ACT))
    store.index(g, 1)
    store.r.delete(LIVE_FILLED)
    store.r.zrem(LIVE, g)  # as written by a version before the live index
    now = time.time_ns() // 10**6
    assert f"bot-{g}-1-1" in [j.id for j in worker_main.missing_follow_ups(store, queue, 0, now)]
    live = store.live()
    assert live is not None and g in live


def test_a_job_queued_in_no_queue_is_enqueued_again(redis_url: str) -> None:
    """A worker that popped a job's id and lost Redis before marking it started leaves it
    "queued" in no queue (seen as a bot game stalled after Redis came back)."""
    queue = _queue(redis_url)
    lost = queue.enqueue("workers.jobs.bot_turn", "g", 1, 0)
    kept = queue.enqueue("workers.jobs.bot_turn", "g", 2, 0)
    queue.connection.lrem(queue.key, 0, lost.id)  # the pop, without the rest
    later = time.time_ns() // 10**6 + 10_000
    assert not worker_main._pending(queue, lost.id, later), "lost: to enqueue again"
    assert worker_main._pending(queue, kept.id, later), "still in its queue: pending"
    assert worker_main._pending(queue, lost.id, time.time_ns() // 10**6), "just queued: grace"
