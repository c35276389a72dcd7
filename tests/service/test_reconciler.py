"""The worker's reconciler and RQ's scheduler: a scheduled job (a retry, a deadline check) that
nobody moves to its queue is queued by the reconciler once it is overdue.

A worker restarted after a Redis outage cannot take the scheduler lock its dead predecessor
held (it outlives its holder by a minute, and RQ retries it every few minutes), so without
this a retried bot turn or a clock waited that long (seen as a bot game stuck after Redis
came back)."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime, timedelta

import redis
from rq import Queue
from rq.job import JobStatus
from rq.serializers import JSONSerializer

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
