"""The worker process: an RQ ``SimpleWorker`` on the ``chronicle`` queue, plus a reconciler.

``SimpleWorker`` runs jobs in the worker process instead of forking one child per job: a bot
turn takes a few milliseconds, a fork costs more than that.  It is safe here because jobs
are short, pure apart from the store, and share nothing but the (thread-safe) service object;
a job that dies takes the worker with it, and RQ's abandoned-job handling plus the reconciler
below bring the game back.

The reconciler finds games whose follow-up job went missing (the API died between the append
and the enqueue, a job failed for good) and enqueues it again; job ids are deterministic and
jobs idempotent, so a duplicate is harmless.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.job import Job as RQJob
from rq.job import JobStatus
from rq.serializers import JSONSerializer

from domain.engine import SCORING, Job
from service.config import Settings
from service.connections import connect
from service.jobs import QUEUE, RQJobQueue
from service.store import EventStore

log = logging.getLogger(__name__)
PENDING = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED}


def missing_follow_ups(store: EventStore, queue: Queue, quiet_ms: int, now_ms: int) -> list[Job]:
    """Follow-ups of games idle for ``quiet_ms`` whose job is not queued or running."""
    out: list[Job] = []
    start, chunk = 0, 500
    while True:
        ids = store.list_ids(start, chunk)
        if not ids:
            return out
        start += chunk
        for gid, meta in zip(ids, store.metas(ids), strict=True):
            if not meta or now_ms - int(meta.get("updated_at", now_ms)) < quiet_ms:
                continue
            version = int(meta["version"])
            if meta.get("status") == SCORING:
                jobs = [Job("score", gid, version)]
            else:
                seats = json.loads(meta.get("bots_to_act", "[]"))
                jobs = [Job("bot", gid, version, s) for s in seats]
            out += [j for j in jobs if not _pending(queue, j.id)]


def _pending(queue: Queue, job_id: str) -> bool:
    try:
        job = RQJob.fetch(job_id, connection=queue.connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return False
    return job.get_status() in PENDING


def reconcile_forever(settings: Settings, every: float = 10.0, quiet_ms: int = 5000) -> None:
    events = connect(settings.redis_url or "")
    qconn = connect(settings.queue_redis_url) if settings.queue_redis_url else events
    store, jobs = EventStore(events), RQJobQueue(qconn)
    while True:
        time.sleep(every)
        try:
            missing = missing_follow_ups(store, jobs.queue, quiet_ms, time.time_ns() // 10**6)
            if missing:
                log.warning("reconciler: re-enqueueing %d missing follow-up jobs", len(missing))
                jobs.enqueue(missing)
        except Exception:  # keep reconciling through Redis outages
            log.warning("reconciler pass failed", exc_info=True)


def run(settings: Settings | None = None, burst: bool = False, reconcile: bool = True) -> None:
    settings = settings or Settings.from_env()
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set")
    # No socket timeout here: the worker blocks on the queue for longer than the API's 2 s.
    conn_blocking = redis.Redis.from_url(settings.queue_redis_url or settings.redis_url)
    if reconcile and not burst:
        every = float(os.environ.get("CHRONICLE_RECONCILE_SECONDS") or 10)
        threading.Thread(target=reconcile_forever, args=(settings, every), daemon=True).start()
    queue = Queue(QUEUE, connection=conn_blocking, serializer=JSONSerializer)
    worker = SimpleWorker([queue], connection=conn_blocking, serializer=JSONSerializer)
    worker.work(burst=burst, with_scheduler=True, logging_level="WARNING")
