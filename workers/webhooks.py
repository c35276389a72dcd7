"""The webhook jobs (``service.webhooks``): one fan-out per change, one delivery per seat."""

from __future__ import annotations

from rq import Queue
from rq.serializers import JSONSerializer

from service import chat, webhooks
from workers.jobs import chronicle


def _queue() -> Queue:
    ch = chronicle()
    jobs = getattr(ch.jobs, "queue", None)
    connection = jobs.connection if jobs is not None else chat.redis_of(ch.store)
    return Queue(webhooks.QUEUE, connection=connection, serializer=JSONSerializer)


def fan_out(game_id: str, kind: str, after: int, version: int, head: str) -> int:
    """Render each registered seat's notice of the change and enqueue its delivery."""
    return webhooks.fan_out(chronicle(), _queue(), game_id, kind, after, version, head)


def deliver(game_id: str, seat: int, delivery: str, body: str) -> str:
    """POST one signed notice; failing raises, and RQ retries with backoff."""
    return webhooks.deliver(chat.redis_of(chronicle().store), game_id, seat, delivery, body)
