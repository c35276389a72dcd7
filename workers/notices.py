"""The notice jobs (``service.notices``, ``service.push``): one notice to one seat's account
(a mail, and a push job per subscription), and one push to one subscription, on the worker's
service."""

from __future__ import annotations

from collections.abc import Mapping

from rq import Queue
from rq.serializers import JSONSerializer

from service import chat, notices, push
from workers.jobs import chronicle


def _queue() -> Queue:
    ch = chronicle()
    jobs = getattr(ch.jobs, "queue", None)
    connection = jobs.connection if jobs is not None else chat.redis_of(ch.store)
    return Queue(push.QUEUE, connection=connection, serializer=JSONSerializer)


def send(game_id: str, seat: int, kind: str, marker: int, began: int | None) -> str:
    """Mail (and push) the notice if it is still owed (what it did: ``sent``, ``off``, ...)."""
    ch = chronicle()

    def pusher(player: str, notice: Mapping[str, str], mark: str) -> int:
        assert ch.accounts is not None  # notify pushes only to an account it found
        return push.enqueue(_queue(), ch.accounts.r, player, notice, mark)

    return notices.notify(ch, game_id, seat, kind, marker, began, pusher=pusher)


def push_one(player: str, subscription: str, notice: dict[str, str]) -> str:
    """Push one notice to one subscription; failing raises, and RQ retries with backoff."""
    accounts = chronicle().accounts
    if accounts is None:
        return "no accounts"
    return push.deliver(accounts.r, player, subscription, notice)
