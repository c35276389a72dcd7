"""The worker process: an RQ ``SimpleWorker`` on the ``chronicle`` and ``chronicle-bots``
queues, in that priority order (see ``service.jobs``), plus a reconciler.

``SimpleWorker`` runs jobs in the worker process instead of forking one child per job: a bot
turn takes a few milliseconds, a fork costs more than that.  It is safe here because jobs
are short, pure apart from the store, and share nothing but the (thread-safe) service object;
a job that dies takes the worker with it, and RQ's abandoned-job handling plus the reconciler
below bring the game back.

The reconciler finds games whose follow-up job went missing (the API died between the append
and the enqueue, a job failed for good) and enqueues it again; job ids are deterministic and
jobs idempotent, so a duplicate is harmless.  It reads only the games of the live index
(``service.store``), and fills that index once from the game index on a store written before
it existed.

It also finds jobs *abandoned* by a dead worker: a worker killed (SIGKILL, OOM, a lost machine)
in the middle of a job leaves it ``started`` in RQ, and RQ itself only notices after the job's
timeout plus a minute.  Every worker process therefore keeps a short-lived liveness key
(``chronicle:alive:<worker name>``, refreshed every second by a thread of that process, gone a
few seconds after the process dies).  A started job whose worker has no liveness key is
abandoned: the reconciler drops its execution from RQ's started registry and enqueues it
again.  The job is played at most once all the same: a bot turn appends only if the game is
still at the version it was enqueued for (the conditional append), so a turn the dead worker
did append makes the re-run a no-op, and a turn it did not append is played by the re-run.

Every worker process also looks for the turn deadlines that have passed (a thread,
``workers.clocks``: every quarter of a second it takes the due checks out of the deadlines'
index and queues them; ``service.clocks``), and, every ``CHRONICLE_REMINDER_SECONDS``, for
the reminders owed and the daily digests due (``workers.notices``, one worker a period).

Environment: ``CHRONICLE_RECONCILE_SECONDS`` (period, default 10) and
``CHRONICLE_RECONCILE_QUIET_SECONDS`` (how long a game must be idle before its follow-up is
considered missing, default 5).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
import time
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.job import Job as RQJob
from rq.job import JobStatus
from rq.serializers import JSONSerializer

from domain.engine import Job
from service import clocks, listing, mail, notices, review, webhooks
from service.config import Settings
from service.connections import connect
from service.jobs import FUNCTIONS, QUEUES, RQJobQueue
from service.logs import configure_logging
from service.redis_store import RedisEventStore
from service.store import LIVE_GRACE_MS, EventStore

log = logging.getLogger(__name__)
PENDING = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED}
ALIVE_EVERY = 1.0  # seconds between two refreshes of a worker's liveness key
ALIVE_TTL = 5  # seconds a liveness key outlives its last refresh
ABANDON_GRACE = 2.0  # seconds a started job must have run before it can be abandoned
STRANDED_AFTER = 5.0  # seconds a scheduled job may be overdue before the reconciler queues it


def alive_key(worker_name: str) -> str:
    return f"chronicle:alive:{worker_name}"


def missing_follow_ups(store: EventStore, queue: Queue, quiet_ms: int, now_ms: int) -> list[Job]:
    """Follow-ups of games idle for ``quiet_ms`` whose job is neither queued nor running (a
    job held by a dead worker is not running: it is released here and listed).

    Only the games of the live index are read (``service.store``: those awaiting a follow-up
    or with a deadline), so a pass costs the games in play, not every game stored; a game read
    as no longer live is dropped from it once its mark is older than the grace.  The
    follow-ups a game awaits are those ``engine.follow_ups`` gave when its last write was
    made; the meta keeps them (``GameMeta.jobs``), so no game is folded here."""
    live = store.live()
    if live is None:  # a store written before the live index: fill it once
        fill_live_index(store)
        live = store.live() or {}
    out: list[Job] = []
    stale: dict[str, int] = {}
    ids, chunk = list(live), 500
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        for gid, meta in zip(part, store.metas(part), strict=True):
            if not meta or not meta.progress.live:
                if now_ms - live[gid] >= LIVE_GRACE_MS:
                    stale[gid] = live[gid]
                continue
            if now_ms - meta.progress.updated_at < quiet_ms:
                continue
            jobs = meta.jobs(gid) + clocks.overdue(gid, meta, now_ms)  # a lost deadline check
            out += [j for j in jobs if not _pending(queue, j.id, now_ms)]
    store.drop_live(stale)
    return out


def fill_live_index(store: EventStore) -> None:
    """The one-time backfill of the live index from the game index, on a store written before
    the live index existed: the one pass that reads every game's meta.  Newest first, so a
    game created meanwhile shifts the others later and none is skipped (and it marks itself).
    Several workers may run it at once: marking a game twice is harmless."""
    start, chunk = 0, 500
    while ids := store.list_ids(start, chunk):
        start += chunk
        metas = zip(ids, store.metas(ids), strict=True)
        store.fill_live([g for g, m in metas if m and m.progress.live], False)
    store.fill_live([], True)
    log.warning("reconciler: live index filled from %d stored games", store.count())


def _pending(queue: Queue, job_id: str, now_ms: int) -> bool:
    try:
        job = RQJob.fetch(job_id, connection=queue.connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return False
    status = job.get_status()
    if status == JobStatus.STARTED and _abandoned(queue, job, now_ms):
        log.warning("reconciler: job %s was abandoned by worker %s", job.id, job.worker_name)
        origin = Queue(job.origin, connection=queue.connection, serializer=JSONSerializer)
        origin.started_job_registry.remove_executions(job)
        return False
    if status == JobStatus.SCHEDULED:
        _release_if_stranded(queue, job, now_ms)
    if status == JobStatus.QUEUED and _popped_and_lost(queue, job, now_ms):
        log.warning("reconciler: job %s is queued in no queue (its pop was lost)", job.id)
        return False
    return status in PENDING


def _popped_and_lost(queue: Queue, job: RQJob, now_ms: int) -> bool:
    """Marked queued, yet in no queue: a worker popped its id and lost Redis before it could
    mark it started (RQ pops, then reads the job).  Nobody will run it: enqueue it again."""
    origin = Queue(job.origin, connection=queue.connection, serializer=JSONSerializer)
    if queue.connection.lpos(origin.key, job.id) is not None:
        return False
    queued = job.enqueued_at.timestamp() * 1000 if job.enqueued_at else 0
    return now_ms - queued > ABANDON_GRACE * 1000


def _release_if_stranded(queue: Queue, job: RQJob, now_ms: int) -> None:
    """Queue now a scheduled job (a retry, a deadline check) overdue by ``STRANDED_AFTER``.

    RQ's scheduler runs in one worker at a time, under a lock that outlives its holder by a
    minute; a worker restarted after a Redis outage retries the lock only every few minutes.
    Until then nobody moves due jobs to their queue, and a game would wait that long for a
    retried bot turn or a clock.  Moving it here does what the scheduler would have done; a
    job moved twice is harmless (ids are deterministic, jobs idempotent)."""
    origin = Queue(job.origin, connection=queue.connection, serializer=JSONSerializer)
    registry = origin.scheduled_job_registry
    try:
        due = registry.get_scheduled_time(job).timestamp() * 1000
    except NoSuchJobError:
        return
    if now_ms - due < STRANDED_AFTER * 1000:
        return
    log.warning("reconciler: scheduled job %s was %d s overdue", job.id, (now_ms - due) // 1000)
    with queue.connection.pipeline() as pipe:
        origin.enqueue_job(job, pipeline=pipe)
        registry.remove(job.id, pipeline=pipe)
        pipe.execute()


def _abandoned(queue: Queue, job: RQJob, now_ms: int) -> bool:
    """Started by a worker that is no longer alive (its liveness key expired)."""
    if job.worker_name and queue.connection.exists(alive_key(job.worker_name)):
        return False
    started = job.started_at.timestamp() * 1000 if job.started_at else 0
    return now_ms - started > ABANDON_GRACE * 1000


def keep_alive_forever(connection: redis.Redis, worker: dict[str, str]) -> None:
    """Refresh the liveness key of this process's current worker (``worker["name"]``) until
    the process dies (a daemon thread)."""
    while True:
        if worker["name"]:
            with contextlib.suppress(redis.RedisError):  # Redis away: back when it is
                connection.set(alive_key(worker["name"]), "1", ex=ALIVE_TTL)
        time.sleep(ALIVE_EVERY)


def reconcile_forever(settings: Settings, every: float = 10.0, quiet_ms: int = 5000) -> None:
    events = connect(settings.redis_url or "")
    qconn = connect(settings.queue_redis_url) if settings.queue_redis_url else events
    store, jobs = RedisEventStore(events), RQJobQueue(qconn)
    try:
        listed = listing.backfill_once(store)
        if listed is not None:
            log.warning("listing: public and token indexes filled from %d stored games", listed)
    except Exception:  # Redis away: the next start tries again
        log.warning("listing backfill failed", exc_info=True)
    while True:
        time.sleep(every)
        try:
            missing = missing_follow_ups(store, jobs.queue, quiet_ms, time.time_ns() // 10**6)
            if missing:
                log.warning("reconciler: re-enqueueing %d missing follow-up jobs", len(missing))
                jobs.enqueue(missing)
        except Exception:  # keep reconciling through Redis outages
            log.warning("reconciler pass failed", exc_info=True)


def job_modules() -> list[str]:
    """The modules of every function a job of this worker runs (``service.jobs``, the
    webhooks' fan-out and deliveries, the notices)."""
    paths = (*FUNCTIONS.values(), webhooks.FAN_OUT, webhooks.DELIVER, notices.SEND, review.RUN)
    return sorted({path.rpartition(".")[0] for path in paths})


def warm() -> None:
    """Import the jobs' modules before the first job.  RQ imports a job's function when it
    runs it; ``workers.jobs`` brings the whole service (the app's modules, Flask, the
    schemas), a noticeable wait which the first bot turn, score or clock check after every
    start of a worker paid (and ``bench.moves`` counted against the moves of its first
    figure)."""
    for name in job_modules():
        importlib.import_module(name)


def run(settings: Settings | None = None, burst: bool = False, reconcile: bool = True) -> None:
    """Work the queue until asked to stop (SIGTERM/SIGINT), through Redis outages.

    RQ's worker quits when Redis goes away in the middle of a job (it cannot record the job's
    end).  This loop then waits for Redis and starts a new worker; the job the old one held is
    abandoned (its liveness key expires) and the reconciler runs it again."""
    settings = settings or Settings.from_env()
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set")
    configure_logging()  # JSON lines, one per job (service/logs.py)
    warm()
    # No socket timeout here: the worker blocks on the queue for longer than the API's 2 s.
    conn_blocking = redis.Redis.from_url(settings.queue_redis_url or settings.redis_url)
    current = {"name": ""}  # the worker whose liveness this process vouches for
    qconn = connect(settings.queue_redis_url or settings.redis_url)
    if reconcile and not burst:
        every = float(os.environ.get("CHRONICLE_RECONCILE_SECONDS") or 10)
        quiet = float(os.environ.get("CHRONICLE_RECONCILE_QUIET_SECONDS") or 5)
        threading.Thread(
            target=reconcile_forever, args=(settings, every, int(quiet * 1000)), daemon=True
        ).start()
    threading.Thread(target=keep_alive_forever, args=(qconn, current), daemon=True).start()
    if not burst:
        from workers.clocks import queue_due_checks_forever  # a job's module: warmed above

        threading.Thread(target=queue_due_checks_forever, args=(qconn,), daemon=True).start()
        from workers.notices import look_forever  # reminders and digests (service.reminders)

        threading.Thread(target=look_forever, args=(qconn,), daemon=True).start()
    while True:
        # Moves first (a person's game, then bot-only games); webhook deliveries, mail and
        # notices to people wait while a bot turn or a score is queued; a review's slice
        # (``service.review``) waits for all of them.
        queues = [
            Queue(name, connection=conn_blocking, serializer=JSONSerializer)
            for name in (*QUEUES, webhooks.QUEUE, mail.QUEUE, notices.QUEUE, review.QUEUE)
        ]
        worker = Worker(queues, connection=conn_blocking, serializer=JSONSerializer)
        current["name"] = worker.name
        try:
            worker.work(burst=burst, with_scheduler=True, logging_level="WARNING")
        except redis.RedisError as exc:  # its teardown could not reach Redis either
            log.warning("worker %s: Redis lost (%s)", worker.name, type(exc).__name__)
        if burst or _asked_to_stop(worker):
            return
        log.warning("worker %s stopped; a new worker starts once Redis answers", worker.name)
        if not _wait_for_redis(conn_blocking, worker):
            return


class Worker(SimpleWorker):
    """RQ's ``SimpleWorker``, its heartbeat in one round trip.

    RQ's worker beats (a field of its hash and two expiries) several times a job, and where the
    beat is not part of one of its pipelines it sends the three commands one by one: three
    round trips, a good part of the worker's CPU for a scoring job.  Here such a
    beat sends the same commands in one pipeline (not a transaction, as RQ's own beats in its
    pipelines are not either)."""

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        if pipeline is not None:
            super().heartbeat(timeout, pipeline=pipeline)
            return
        with self.connection.pipeline(transaction=False) as beat:
            super().heartbeat(timeout, pipeline=beat)
            beat.execute()


def _asked_to_stop(worker: SimpleWorker) -> bool:
    """SIGTERM/SIGINT reached the worker (RQ notes when; a busy worker also sets a flag)."""
    return worker._shutdown_requested_date is not None or worker._stop_requested


def _wait_for_redis(connection: redis.Redis, worker: SimpleWorker) -> bool:
    """Until Redis answers (True) or the process is asked to stop (False)."""
    pause = 0.5
    while not _asked_to_stop(worker):
        try:
            connection.ping()
            return True
        except redis.RedisError:
            time.sleep(pause)
            pause = min(pause * 2, 5.0)
    return False
