"""Fault-injection points for the reliability tests; inert unless ``CHRONICLE_FAULTS`` names one.

A point is a named place in the code where a crash is interesting, e.g. ``after_append``
(in ``Chronicle._append``: the events are durable, their follow-up job not yet enqueued) or
``bot_turn`` (in the worker: the bot has decided, nothing is appended yet).  When the
environment variable ``CHRONICLE_FAULTS`` (a comma-separated list of point names) names a
point, the process reaching it sends itself SIGKILL: no ``finally``, no atexit handler, no RQ
bookkeeping runs, exactly as if the machine had killed it.

The variable is read once, when this module is imported: the tests start a process with it
set, never set it in a running one.  A point then costs one set lookup (reading the
environment on every call cost two exceptions a move where it is unset, as in production).
"""

from __future__ import annotations

import os
import signal

ENV = "CHRONICLE_FAULTS"
POINTS = frozenset({"after_append", "bot_turn"})


_ARMED = frozenset(p.strip() for p in os.environ.get(ENV, "").split(",") if p.strip())


def armed(name: str) -> bool:
    return name in _ARMED


def point(name: str) -> None:
    """Die here, by SIGKILL, if ``CHRONICLE_FAULTS`` names this point."""
    if armed(name):
        os.kill(os.getpid(), signal.SIGKILL)
