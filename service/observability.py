"""What operators see: Prometheus metrics and structured (JSON) log lines.

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

**Logs.**  ``configure_logging()`` writes one JSON object per line on stderr: ``ts``, ``level``,
``logger``, ``message``, the ``request_id`` of the request being served (if any) and the
fields a caller passed as ``extra={"fields": {...}}``.  Callers log ids, versions, seats,
outcomes and durations, never a token, a header, a body, an action or any part of a state.
``CHRONICLE_LOG_LEVEL`` (default ``INFO``) sets the level.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
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

from domain import jsontext

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


# ---- logs -----------------------------------------------------------------------------------
_request_id: Callable[[], str | None] = lambda: None  # noqa: E731 - set by the HTTP layer


def set_request_id_source(source: Callable[[], str | None]) -> None:
    global _request_id
    _request_id = source


_log_json = jsontext.log_encoder()  # compact, str() of what is not JSON's own


class JsonFormatter(logging.Formatter):
    """One JSON object per record; ``extra={"fields": {...}}`` adds fields."""

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "fields", None) or {}
        exc = self.formatException(record.exc_info) if record.exc_info else None
        return line(record.created, record.levelname, record.name, record.getMessage(), fields, exc)


def line(
    created: float,
    level: str,
    name: str,
    message: str,
    fields: Mapping[str, Any],
    exc: str | None = None,
) -> str:
    """The JSON line of a record (``JsonFormatter``): ``ts``, ``level``, ``logger``,
    ``message``, the request id, the fields, the exception."""
    doc: dict[str, Any] = {
        "ts": datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds"),
        "level": level.lower(),
        "logger": name,
        "message": message,
    }
    if "request_id" not in fields:  # the request log line brings its own
        request_id = _request_id()
        if request_id:
            doc["request_id"] = request_id
    doc.update(fields)
    if exc:
        doc["exc"] = exc
    return _log_json(doc)


def log_info(logger: logging.Logger, message: str, fields: dict[str, Any]) -> None:
    """``logger.info(message, extra={"fields": fields})``, with the same line written, in
    fewer steps where logging is as ``configure_logging`` leaves it.

    A request's log line went through ``Logger._log``: a ``LogRecord`` of some thirty
    attributes, the filters and handlers of each logger up to the root, the handler's lock,
    the formatter: a visible share of an API process's CPU under moves (a ``py-spy``
    profile), for one line.  Where the line can only end in one place (no logger on the way has a
    handler or a filter, the root has exactly ``configure_logging``'s ``StreamHandler`` and
    ``JsonFormatter``, no filter, the default record factory) it is formatted here and
    written through that handler, under its lock, as its ``emit`` writes it.  Anything else
    (a handler an operator added, a test's capture, a filter, another level) goes through
    ``logger.info``."""
    handler = _sole_handler(logger)
    if handler is None:
        logger.info(message, extra={"fields": fields})
        return
    text = line(time.time(), "INFO", logger.name, message, fields)
    handler.acquire()
    try:
        handler.stream.write(text + handler.terminator)
        handler.flush()
    except Exception:
        record = logger.makeRecord(logger.name, logging.INFO, "", 0, message, (), None)
        handler.handleError(record)
    finally:
        handler.release()


def _sole_handler(logger: logging.Logger) -> logging.StreamHandler[Any] | None:
    """The one handler a record of ``logger`` at INFO reaches, if it is the plain JSON one."""
    if not logger.isEnabledFor(logging.INFO):
        return None
    if logging.getLogRecordFactory() is not logging.LogRecord:
        return None
    node: Any = logger
    while node.parent is not None:  # up to the root: no handler, no filter, propagating
        if node.handlers or node.filters or not node.propagate:
            return None
        node = node.parent
    if node.filters or len(node.handlers) != 1:
        return None
    handler = node.handlers[0]
    if type(handler) is not logging.StreamHandler or handler.filters:
        return None
    if type(handler.formatter) is not JsonFormatter or handler.level > logging.INFO:
        return None
    return handler


def configure_logging(stream: Any = None) -> None:
    """JSON lines on stderr for the root logger, once per process (a process whose root
    logger already has handlers, e.g. under pytest, keeps them)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    # What no line of ours shows is not gathered for every record: the caller's file and
    # line (a walk of the stack), the thread, the multiprocessing name; the logging HOWTO's
    # "Optimization".  The process id stays: gunicorn's own log lines show it.
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False
    root.addHandler(handler)
    root.setLevel(os.environ.get("CHRONICLE_LOG_LEVEL", "INFO").upper())
