"""``RQJobQueue.enqueue``: a move's follow-ups in one transaction (RQ alone sends two for each
job), written as RQ's own ``enqueue`` writes them; an unreachable queue fails no request."""

from __future__ import annotations

from typing import Any

import redis
from rq import Queue, Retry
from rq.job import Job as RQJob
from rq.serializers import JSONSerializer

from domain.engine import Job
from service.connections import connect
from service.jobs import BACKGROUND_QUEUE, FUNCTIONS, QUEUE, RQJobQueue

VOLATILE = {b"created_at", b"enqueued_at", b"last_heartbeat", b"data"}  # times; data: below


def _stored(r: redis.Redis, job_id: str) -> dict[bytes | str, bytes | str]:
    return {k: v for k, v in r.hgetall(f"rq:job:{job_id}").items() if k not in VOLATILE}


def test_follow_ups_are_one_transaction_and_stored_as_rq_stores_them(
    own_redis_url: str,
) -> None:
    r = redis.Redis.from_url(own_redis_url)
    jobs = RQJobQueue(connect(own_redis_url))
    before = int(r.info("commandstats").get("cmdstat_exec", {}).get("calls", 0))
    jobs.enqueue([Job("bot", "g-1", 7, 1), Job("bot", "g-2", 3, 0, background=True)])
    execs = int(r.info("commandstats")["cmdstat_exec"]["calls"]) - before
    assert execs == 1, "one transaction for both (RQ alone: two a job)"
    assert r.lrange(f"rq:queue:{QUEUE}", 0, -1) == [b"bot-g-1-7-1"]
    assert r.lrange(f"rq:queue:{BACKGROUND_QUEUE}", 0, -1) == [b"bot-g-2-3-0"]
    own = Queue("own", connection=r, serializer=JSONSerializer)  # RQ's own, for comparison
    own.enqueue(
        FUNCTIONS["bot"], "g-1", 7, 1, job_id="rq-own", retry=Retry(max=3, interval=[1, 2, 4]),
        result_ttl=600, failure_ttl=86400,
    )  # fmt: skip
    ours, theirs = _stored(r, "bot-g-1-7-1"), _stored(r, "rq-own")
    assert ours == {**theirs, b"origin": QUEUE.encode()}
    fetched: Any = RQJob.fetch("bot-g-1-7-1", connection=r, serializer=JSONSerializer)
    assert (fetched.func_name, fetched.args) == (FUNCTIONS["bot"], ["g-1", 7, 1])
    assert fetched.get_status() == "queued" and fetched.retries_left == 3
    assert {q.decode() if isinstance(q, bytes) else q for q in r.smembers("rq:queues")} >= {
        f"rq:queue:{QUEUE}",
        f"rq:queue:{BACKGROUND_QUEUE}",
    }


def test_an_unreachable_queue_is_logged_not_raised(caplog: Any) -> None:
    jobs = RQJobQueue(connect("redis://127.0.0.1:1/0"))
    jobs.enqueue([Job("score", "g", 9)])
    assert "could not enqueue jobs ['score-g-9']" in caplog.text
