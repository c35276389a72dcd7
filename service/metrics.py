"""What operators see, in numbers: Prometheus metrics (their log lines: ``service.logs``).

**Metrics** (prometheus-client).  Every process that serves or works defines the same metrics
at import.  With ``PROMETHEUS_MULTIPROC_DIR`` set (``chronicle serve`` sets it and empties it
on start; the Docker image sets it and gunicorn's ``on_starting`` hook in
``service/gunicorn_conf.py`` empties it), each process writes its values to files in that
folder and ``/metrics``, in whichever API process answers, adds up every process's values:
gunicorn's API processes and the workers alike.  Without it (one process: the tests' in-process
server, an embedding) the process's own registry is served.

- ``chronicle_http_requests_total{method,route,status}`` and
  ``chronicle_http_request_duration_seconds{method,route}``: ``route`` is the URL rule
  (``/api/v1/games/<game_id:game_id>/actions``), never the path, so a game id is never a label
  and the number of series stays bounded;
- ``chronicle_appends_total`` (conditional appends that succeeded) and
  ``chronicle_events_appended_total``;
- ``chronicle_conflicts_total`` (``409 version_conflict`` answered) and
  ``chronicle_undo_refused_total{reason}``;
- ``chronicle_job_duration_seconds{kind,outcome}`` and ``chronicle_job_failures_total{kind}``
  (a job that raised; RQ retries it);
- ``chronicle_queue_depth{queue}``: jobs waiting, read from RQ when scraped;
- ``chronicle_live_watchers``: long-polls waiting and open streams (``watching()`` counts one
  while it lasts); a process that dies stops counting (its files are reaped when scraped).

No metric carries a game id, a token or anything of a game's state.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client import values as prometheus_values
from prometheus_client.core import GaugeMetricFamily
from rq import get_current_job

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

if os.environ.get(MULTIPROC_ENV):  # the value files of the metrics below are opened at once
    Path(os.environ[MULTIPROC_ENV]).mkdir(parents=True, exist_ok=True)


class _Pid:
    """This process's id, asked of the system once and again in a forked child.

    A multi-process metric value asks for the process id at every change (to notice a fork
    and open the new process's files): a system call of about half a microsecond, some seven
    a move.  The id changes only at a fork, and ``os.register_at_fork`` is told of every fork
    Python makes (gunicorn's and RQ's workers), so the answer is the same, read from memory."""

    def __init__(self) -> None:
        self.value = os.getpid()
        os.register_at_fork(after_in_child=self.forked)

    def forked(self) -> None:
        self.value = os.getpid()

    def __call__(self) -> int:
        return self.value


if prometheus_values.ValueClass is not prometheus_values.MutexValue:  # multi-process mode
    prometheus_values.ValueClass = prometheus_values.MultiProcessValue(_Pid())

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

REQUESTS = Counter(
    "chronicle_http_requests", "HTTP requests answered", ["method", "route", "status"]
)
LATENCY = Histogram(
    "chronicle_http_request_duration_seconds",
    "Time from a request's arrival to its response",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
APPENDS = Counter("chronicle_appends", "Conditional appends to a game's log that succeeded")
EVENTS = Counter("chronicle_events_appended", "Events appended to games' logs")
CONFLICTS = Counter("chronicle_conflicts", "Requests refused 409 version_conflict")
UNDO_REFUSED = Counter("chronicle_undo_refused", "Undo requests refused", ["reason"])
JOB_SECONDS = Histogram(
    "chronicle_job_duration_seconds",
    "Time a worker spent on a job",
    ["kind", "outcome"],
    buckets=LATENCY_BUCKETS,
)
JOB_FAILURES = Counter("chronicle_job_failures", "Jobs that raised (RQ retries them)", ["kind"])
WATCHERS = Gauge("chronicle_live_watchers", "Open event streams", multiprocess_mode="livesum")


@contextlib.contextmanager
def watching() -> Iterator[None]:
    """Count one live watcher (an open stream) for as long as the block runs."""
    WATCHERS.inc()
    try:
        yield
    finally:
        WATCHERS.dec()


def appended(events: int) -> None:
    APPENDS.inc()
    EVENTS.inc(events)


# ---- exposition -----------------------------------------------------------------------------
class _Queues:
    """``chronicle_queue_depth`` read from RQ at scrape time (so it is right whichever process
    is scraped, and needs no process to keep it up to date)."""

    def __init__(self, queues: list[Any]) -> None:
        self.queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "chronicle_queue_depth", "Jobs waiting in the queue", labels=["queue"]
        )
        for q in self.queues:
            depth.add_metric([q.name], q.count)
        yield depth


class _Process:
    """This process's own registry (single-process mode)."""

    def collect(self) -> Iterator[Any]:
        yield from REGISTRY.collect()


def multiproc_dir() -> Path | None:
    value = os.environ.get(MULTIPROC_ENV)
    return Path(value) if value else None


def prepare_multiproc_dir(path: Path) -> None:
    """Empty (or create) the folder of multi-process metrics: values left by the processes of
    an earlier run would be added to this run's."""
    path.mkdir(parents=True, exist_ok=True)
    for f in path.glob("*.db"):
        f.unlink(missing_ok=True)


def _reap_dead(path: Path) -> None:
    """Forget the live gauges of processes that are gone (a worker killed, a gunicorn process
    recycled): their ``livesum`` files would count their watchers forever."""
    for f in path.glob("gauge_live*_*.db"):
        pid = int(f.stem.rsplit("_", 1)[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, str(path))
        except PermissionError:  # alive, another user's
            pass


def exposition(queues: list[Any]) -> bytes:
    """The Prometheus text of every process's metrics plus the queue depth."""
    registry = CollectorRegistry()
    path = multiproc_dir()
    if path is not None:
        _reap_dead(path)
        multiprocess.MultiProcessCollector(registry, str(path))
    else:
        registry.register(_Process())
    if queues:
        registry.register(_Queues(queues))
    return generate_latest(registry)


# ---- jobs -----------------------------------------------------------------------------------
F = TypeVar("F", bound=Callable[..., Any])
job_log = logging.getLogger("chronicle.job")


def observed_job(kind: str) -> Callable[[F], F]:
    """One log line and one duration sample per job run, labelled with its outcome (the job's
    return value: ``played``, ``stale``, ``scored``...; ``error`` if it raised)."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def run(game_id: str, version: int, *rest: Any) -> Any:
            start = time.perf_counter()
            outcome = "error"
            try:
                result = fn(game_id, version, *rest)
                outcome = str(result).replace(" ", "_")
                return result
            except Exception as exc:
                JOB_FAILURES.labels(kind).inc()
                outcome = f"error:{type(exc).__name__}"  # the type only: a message may hold a card
                raise
            finally:
                seconds = time.perf_counter() - start
                JOB_SECONDS.labels(kind, outcome.split(":", 1)[0]).observe(seconds)
                fields = {
                    "job": kind,
                    "job_id": _current_job_id(),
                    "game_id": game_id,
                    "version": version,
                    "seat": rest[0] if rest else None,
                    "outcome": outcome,
                    "duration_ms": round(seconds * 1000, 3),
                }
                level = logging.WARNING if outcome.startswith("error") else logging.INFO
                job_log.log(level, "job", extra={"fields": fields})

        return run  # type: ignore[return-value]

    return wrap


def _current_job_id() -> str | None:
    job = get_current_job()
    return job.id if job else None
