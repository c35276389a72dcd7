"""The notices owed, settled and made jobs in batches (``queue_due``, a worker's loop), and a
notice job's batch (``workers.notices.send_many``), settled together where it can be.

Most notices of a busy batch are settled before any game is loaded: on a live table the next
move comes within seconds, so by the time the job runs the seat has played and its turn's
notice is no longer news; other notices go to accounts with that kind off.  Each of those
cost a notice job several round trips (the game's load, the account, the outcome), which on a
server shared with the API took CPU from the moves (``bench.notices``).  The batch reads the
games' metas and the seats' accounts in one round trip each and settles what they decide, in
the order ``notices.notify`` would (no game, no account, off, turn over); every notice still
owed goes through ``notify``, which loads the game, checks again and sends, given the account
already read.  The outcomes are kept in one round trip (``keep_outcomes``).

The worker's loop settles the due notices this way before it makes any job, so a notice no
longer owed costs no RQ job (RQ's bookkeeping of a job costs more than settling fifty notices).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue, Retry

from service.accounts import Account, notifications_of
from service.notices import (
    PENDING,
    QUEUEING,
    SEND_MANY,
    SETTING,
    YOUR_TURN,
    done_key,
    notice_id,
)

if TYPE_CHECKING:
    from service.chronicle import Chronicle

OUTCOME_SECONDS = 600  # how long a notice's outcome is kept (``notices.done_key``)
BATCH = 50  # notices a job

Owed = list[Any]  # a notice as ``notices.entry`` wrote it: the job's arguments


def settle(
    ch: Chronicle, owed: Sequence[Owed]
) -> tuple[dict[str, str], list[tuple[Owed, Account]]]:
    """``(outcomes by notice id, the notices left with their seat's account)``: what the
    metas and accounts decide, and what ``notices.notify`` must still look at."""
    done: dict[str, str] = {}
    if ch.accounts is None:
        return {notice_id(args): "no accounts" for args in owed}, []
    ids = list(dict.fromkeys(str(args[0]) for args in owed))
    metas = dict(zip(ids, ch.store.metas(ids), strict=True))
    holders: list[tuple[Owed, str]] = []
    for args in owed:
        meta, seat = metas[args[0]], int(args[1])
        if meta is None:
            done[notice_id(args)] = "no game"
        elif seat >= len(meta.players) or not meta.players[seat]:
            done[notice_id(args)] = "no account"
        else:
            holders.append((args, str(meta.players[seat])))
    accounts = ch.accounts.get_many(player for _, player in holders)
    left: list[tuple[Owed, Account]] = []
    for args, player in holders:
        account = accounts.get(player)
        meta = metas[args[0]]
        assert meta is not None  # held: the meta was found
        if account is None:
            done[notice_id(args)] = "no account"
        elif off(account, str(args[2])):
            done[notice_id(args)] = "off"
        elif args[2] == YOUR_TURN and int(args[1]) not in meta.progress.to_act:
            done[notice_id(args)] = "turn over"
        else:
            left.append((args, account))
    return done, left


def off(account: Account, kind: str) -> bool:
    """The account takes no notice of ``kind`` (that kind off, or both email and push off);
    push on with no subscription is for ``notify`` to find."""
    settings = notifications_of(account.notifications)
    on = settings.get("email") or settings.get("push")
    return not on or not settings.get(SETTING.get(kind, kind))


def keep_outcomes(r: redis.Redis, outcomes: Mapping[str, str]) -> None:
    """Each notice's outcome for ten minutes, in one round trip: what RQ's result of a job
    would say, for operators and tests (``notices.done_key``)."""
    if not outcomes:
        return
    with r.pipeline(transaction=False) as pipe:
        for notice, outcome in outcomes.items():
            pipe.set(done_key(notice), outcome, ex=OUTCOME_SECONDS)
        pipe.execute()


def queue_due(
    ch: Chronicle, connection: redis.Redis, queue: Queue, now_ms: int, limit: int = 500
) -> int:
    """Settle the notices due by ``now_ms`` (``notices.PENDING``) and make jobs of those left,
    ``BATCH`` a job (a worker's loop, one worker at a time: ``QUEUEING``).  Read, settled and
    queued, then removed, so a worker that dies midway leaves them for the next (a notice
    queued twice sends once: its mark).  How many were taken."""
    if not connection.set(QUEUEING, 1, nx=True, px=5000):
        return 0
    try:
        raw: Any = connection.zrangebyscore(PENDING, "-inf", now_ms, start=0, num=limit)
        owed: list[Owed] = []
        for item in raw:
            try:
                args = json.loads(item)
            except ValueError:  # not ours: dropped
                continue
            if _well_formed(args):  # anything else would stop every look: dropped
                owed.append(args)
        done, left = settle(ch, owed)
        keep_outcomes(connection, done)
        jobs = [args for args, _ in left]
        for start in range(0, len(jobs), BATCH):
            batch = jobs[start : start + BATCH]
            queue.enqueue(
                SEND_MANY,
                batch,
                job_id="notices-" + hashlib.sha256(json.dumps(batch).encode()).hexdigest()[:24],
                description="notices",  # never an address: each notice finds it by the seat
                retry=Retry(max=3, interval=[10, 60, 300]),
                result_ttl=600,
                failure_ttl=24 * 3600,
            )
        if raw:
            connection.zrem(PENDING, *raw)
        return len(raw)
    finally:
        connection.delete(QUEUEING)


def _well_formed(args: Any) -> bool:
    """A notice as ``notices.entry`` writes it: game, seat, kind, marker, began[, undone]."""
    return (
        isinstance(args, list)
        and len(args) in (5, 6)
        and isinstance(args[0], str)
        and isinstance(args[1], int)
        and isinstance(args[2], str)
        and isinstance(args[3], int)
    )
