"""What operators read: structured (JSON) log lines (the numbers: ``service.metrics``).

**Logs.**  ``configure_logging()`` writes one JSON object per line on stderr: ``ts``, ``level``,
``logger``, ``message``, the ``request_id`` of the request being served (if any) and the
fields a caller passed as ``extra={"fields": {...}}``.  Callers log ids, versions, seats,
outcomes and durations, never a token, a header, a body, an action or any part of a state.
``CHRONICLE_LOG_LEVEL`` (default ``INFO``) sets the level.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from domain import jsontext

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
