"""The notice jobs (``service.notices``, ``service.push``, ``service.digest``): one notice to
one seat's account (a mail, and a push job per subscription), one push to one subscription,
one account's daily digest; and the loop that looks for owed reminders and digests
(``service.reminders``, ``service.digest``), on the worker's service."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from rq import Queue
from rq.serializers import JSONSerializer

from service import chat, digest, invitations, notice_batch, notices, push, reminders
from service.accounts import Account
from workers.jobs import chronicle

log = logging.getLogger(__name__)
PENDING_EVERY = 0.1  # seconds between two looks at the notices due
QUEUED_AT_ONCE = 500


def _connection() -> Any:
    """The queue's Redis (else the store's)."""
    ch = chronicle()
    jobs = getattr(ch.jobs, "queue", None)
    return jobs.connection if jobs is not None else chat.redis_of(ch.store)


def _queue(name: str = push.QUEUE) -> Queue:
    return Queue(name, connection=_connection(), serializer=JSONSerializer)


def send(
    game_id: str, seat: int, kind: str, marker: int, began: int | None, undone: bool = False
) -> str:
    """Mail (and push) one notice if it is still owed (what it did: ``sent``, ``off``, ...);
    ``undone``: a turn an undo handed back.  (A job of one notice: those queued before the
    batches, ``send_many``.)"""
    return _one([game_id, seat, kind, marker, began, *((True,) if undone else ())])


def send_many(owed: list[list[Any]]) -> dict[str, str]:
    """A batch of notices (``notice_batch.queue_due``), each as ``send``: what each did, by its
    id.  What the games' metas and the accounts settle is settled for the whole batch in two
    round trips (``service.notice_batch``).  One that fails does not stop the others; the job
    then fails, and RQ's retry runs the batch again, where the notices already sent are
    ``sent before`` (their marks)."""
    ch = chronicle()
    done, left = notice_batch.settle(ch, owed)
    failed = 0
    for args, account in left:
        try:
            done[notices.notice_id(args)] = _notify(args, account)
        except Exception:  # an SMTP server away, Redis away: the retry sends it
            failed += 1
            log.warning("notices: one notice of a batch failed", exc_info=True)
    notice_batch.keep_outcomes(_connection(), done)
    if failed:
        raise RuntimeError(f"{failed} of {len(owed)} notices failed; the batch is retried")
    return done


def _one(args: list[Any]) -> str:
    result = _notify(args)
    notice_batch.keep_outcomes(_connection(), {notices.notice_id(args): result})
    return result


def _notify(args: list[Any], known: Account | None = None) -> str:
    ch = chronicle()
    game_id, seat, kind, marker, began = args[:5]
    undone = len(args) > 5 and bool(args[5])
    return notices.notify(
        ch, game_id, seat, kind, marker, began, pusher=_pusher(ch), undone=undone, known=known
    )


def _pusher(ch: Any) -> notices.Pusher:
    """Push jobs for a notice, one per subscription of the account it was decided for."""

    def pusher(player: str, notice: Mapping[str, str], mark: str) -> int:
        assert ch.accounts is not None  # a notice pushes only to an account it found
        return push.enqueue(_queue(), ch.accounts.r, player, notice, mark)

    return pusher


def push_one(player: str, subscription: str, notice: dict[str, str]) -> str:
    """Push one notice to one subscription; failing raises, and RQ retries with backoff."""
    accounts = chronicle().accounts
    if accounts is None:
        return "no accounts"
    return push.deliver(accounts.r, player, subscription, notice)


def send_invitation(game_id: str, seat: int, player: str, version: int) -> str:
    """Mail (and push) an invitation if it still stands (``service.invitations``)."""
    ch = chronicle()
    result = invitations.notify(ch, game_id, seat, player, version, pusher=_pusher(ch))
    notice_id = notices.job_id(game_id, seat, invitations.KIND, version)
    notice_batch.keep_outcomes(_connection(), {notice_id: result})
    return result


def send_digest(player: str, day: str) -> str:
    """Mail the account's digest of that local day (``service.digest``)."""
    return digest.send(chronicle(), player, day)


def look_once(connection: Any, every: float) -> tuple[int, int]:
    """One look, by whichever worker takes this period's turn: the reminders owed and the
    digests due, enqueued (how many of each)."""
    if not reminders.take_turn(connection, every):
        return 0, 0
    ch = chronicle()
    if ch.accounts is None:
        return 0, 0
    owed = reminders.scan(ch, connection, time.time_ns() // 10**6)
    return owed, digest.scan(ch.accounts.r, _queue(notices.QUEUE), ch.accounts)


def look_forever(connection: Any, stop: threading.Event | None = None) -> None:
    """Every ``PENDING_EVERY`` seconds, the notices the appends owe made jobs
    (``notice_batch.queue_due``); every ``CHRONICLE_REMINDER_SECONDS`` (default 30),
    ``look_once``.  Through Redis outages, saying so once (a daemon thread of each worker
    process)."""
    every = float(os.environ.get("CHRONICLE_REMINDER_SECONDS") or reminders.EVERY)
    stop = stop or threading.Event()
    queue = Queue(notices.QUEUE, connection=connection, serializer=JSONSerializer)
    failing, looked = False, 0.0
    while not stop.wait(PENDING_EVERY):
        try:
            while (
                notice_batch.queue_due(chronicle(), connection, queue, time.time_ns() // 10**6)
                >= QUEUED_AT_ONCE
            ):
                pass  # a burst: all of it now
            if time.monotonic() - looked >= every:
                looked = time.monotonic()
                look_once(connection, every)
        except Exception:
            if not failing:
                log.warning("notices: could not queue or look for notices", exc_info=True)
            failing = True
        else:
            failing = False
