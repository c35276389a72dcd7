"""Enqueueing follow-up jobs on RQ.

Jobs are named by dotted path (the service does not import the workers), carry primitive
arguments, use the JSON serializer, and have deterministic ids (``bot-<game>-<version>-<seat>``,
``score-<game>-<version>``): a job that finds the game moved on does nothing, so enqueueing one
twice is harmless.

Two queues, in priority order (``QUEUES``): ``chronicle`` for scoring and for bot turns of games
with a human seat, ``chronicle-bots`` for bot turns of games of bots only (``Job.background``).
Workers take from the first queue that has a job, so a flood of bot-only games delays a game
where a person waits by at most the job a worker is running (one bot budget).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from domain.engine import Job

QUEUE = "chronicle"
BACKGROUND_QUEUE = "chronicle-bots"
QUEUES = (QUEUE, BACKGROUND_QUEUE)  # in priority order
FUNCTIONS = {
    "bot": "workers.jobs.bot_turn",
    "score": "workers.jobs.score",
    "clock": "workers.clocks.check_deadline",  # version: the deadline (ms), seat: whose
}
log = logging.getLogger(__name__)


class JobQueue(Protocol):
    def enqueue(self, jobs: Sequence[Job]) -> None: ...


class RQJobQueue:
    def __init__(self, connection: redis.Redis, name: str = QUEUE) -> None:
        self.queue = Queue(name, connection=connection, serializer=JSONSerializer)
        self.background = Queue(BACKGROUND_QUEUE, connection=connection, serializer=JSONSerializer)

    def enqueue(self, jobs: Sequence[Job]) -> None:
        """The jobs, in one transaction on RQ's ``pipeline``: RQ alone sends two a job, and
        those round trips were a good part of an enqueue's CPU."""
        if not jobs:
            return
        try:
            with self.queue.connection.pipeline() as pipe:
                for job in jobs:
                    args = (
                        (job.game_id, job.version)
                        if job.seat is None
                        else (job.game_id, job.version, job.seat)
                    )
                    queue = self.background if job.background else self.queue
                    queue.enqueue(
                        FUNCTIONS[job.kind],
                        *args,
                        job_id=job.id,
                        retry=Retry(max=3, interval=[1, 2, 4]),
                        result_ttl=600,
                        failure_ttl=86400,
                        pipeline=pipe,
                    )
                pipe.execute()
        except redis.RedisError:
            # The append is already durable; a missing follow-up is found again by the
            # worker's reconciler, so an enqueue failure must not fail the request.
            log.warning("could not enqueue jobs %s", [j.id for j in jobs], exc_info=True)


class NoJobs:
    """For tools that must not start follow-ups (e.g. `chronicle replay`)."""

    def enqueue(self, jobs: Sequence[Job]) -> None:
        return None
