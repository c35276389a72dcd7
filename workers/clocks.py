"""The deadline checks: the loop that queues them when they are due (``service.clocks``), and
the check job (``service.timeouts``)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from service import clocks, timeouts
from service.jobs import RQJobQueue
from workers.jobs import chronicle

log = logging.getLogger(__name__)


def check_deadline(game_id: str, deadline_ms: int, seat: int) -> str:
    """Time the seat out if that deadline still stands and has passed; else nothing."""
    return timeouts.check_deadline(chronicle(), game_id, deadline_ms, seat)


def queue_due_checks_forever(
    connection: Any, every: float = clocks.CHECK_EVERY, stop: threading.Event | None = None
) -> None:
    """Every ``every`` seconds, the checks whose deadline has passed, taken out of the index
    and queued as RQ jobs (a daemon thread of each worker process; a check is taken by one).
    A check taken by a worker that dies before queueing it is found by the reconciler (its
    deadline is still in the game's meta, overdue, and no job of it is pending).  Until
    ``stop`` is set (tests), or the process ends."""
    due, jobs = clocks.Due(connection), RQJobQueue(connection)
    stop = stop or threading.Event()
    pause, failing = every, False
    while not stop.wait(pause):
        try:
            while taken := due(time.time_ns() // 10**6):
                jobs.enqueue(taken)
        except Exception:  # keep looking through Redis outages, saying so once
            if not failing:
                log.warning("deadline checks: could not take or queue the due ones", exc_info=True)
            pause, failing = min(pause * 2, 5.0), True
        else:
            pause, failing = every, False
