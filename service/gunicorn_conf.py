"""gunicorn hooks for multi-process metrics (``gunicorn -c python:service.gunicorn_conf``, as the
Docker image runs it; ``chronicle serve`` prepares the folder itself).

``on_starting`` empties ``PROMETHEUS_MULTIPROC_DIR`` before any API process starts (values of
an earlier run of the container would add up with this run's); ``child_exit`` forgets the live
gauges of an API process that exited (``/metrics`` also reaps those of dead processes).  This
module does not import the metrics: the master process must not create value files itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from prometheus_client import multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def on_starting(server: Any) -> None:
    if value := os.environ.get(MULTIPROC_ENV):
        path = Path(value)
        path.mkdir(parents=True, exist_ok=True)
        for f in path.glob("*.db"):
            f.unlink(missing_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    if value := os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(worker.pid, value)
