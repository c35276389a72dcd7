"""``logs.log_info`` writes the line ``logger.info`` writes where logging is as
``configure_logging`` leaves it, and hands every other configuration to ``logger.info``.

Each test builds a logger tree of its own (a root and ``chronicle.request`` under it), so
pytest's capture on the real root is not in the way."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from service import logs

FIELDS: dict[str, Any] = {
    "request_id": "rid-1",
    "method": "POST",
    "route": "/api/v1/games/<game_id:game_id>/actions",
    "path": "/api/v1/games/g-1/actions",
    "status": 201,
    "duration_ms": 1.234,
    "client": "127.0.0.1",
    "odd": "é \u2028 \x00",
}


def tree() -> tuple[logging.Logger, logging.Logger, logging.StreamHandler[Any], io.StringIO]:
    """A root as configure_logging leaves it, and the request logger under it."""
    root = logging.RootLogger(logging.INFO)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    root.addHandler(handler)
    request = logging.Logger("chronicle.request")
    request.parent = root
    return root, request, handler, stream


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(x) for x in stream.getvalue().splitlines()]


def test_the_plain_configuration_gets_the_same_line_in_fewer_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, request, handler, stream = tree()
    assert logs._sole_handler(request) is handler
    made: list[tuple[Any, ...]] = []
    factory = logging.getLogRecordFactory()

    def make_record(*a: Any, **k: Any) -> None:
        made.append(a)

    monkeypatch.setattr(logging.Logger, "makeRecord", make_record)
    logs.log_info(request, "request", FIELDS)
    assert made == [], "no LogRecord was made"
    monkeypatch.undo()
    assert logging.getLogRecordFactory() is factory
    request.info("request", extra={"fields": FIELDS})
    fast, slow = lines(stream)
    assert fast.pop("ts")[:10] == slow.pop("ts")[:10]
    assert fast == slow, "the same line, but its time"
    assert list(fast)[:5] == ["level", "logger", "message", "request_id", "method"]
    text = stream.getvalue().splitlines()
    assert text[0].split('"level"')[1] == text[1].split('"level"')[1], "byte for byte"


def _handler_on_request(root: logging.Logger, request: logging.Logger) -> None:
    request.addHandler(logging.StreamHandler(io.StringIO()))


def _second_root_handler(root: logging.Logger, request: logging.Logger) -> None:
    root.addHandler(logging.StreamHandler(io.StringIO()))


def _filter(root: logging.Logger, request: logging.Logger) -> None:
    root.handlers[0].addFilter(lambda record: True)


def _plain_formatter(root: logging.Logger, request: logging.Logger) -> None:
    root.handlers[0].setFormatter(logging.Formatter())


def _warnings_only(root: logging.Logger, request: logging.Logger) -> None:
    root.setLevel(logging.WARNING)


def _not_propagating(root: logging.Logger, request: logging.Logger) -> None:
    request.propagate = False


@pytest.mark.parametrize(
    "change",
    [_handler_on_request, _second_root_handler, _filter, _plain_formatter, _warnings_only,
     _not_propagating],
)  # fmt: skip
def test_any_other_configuration_goes_through_logging(
    change: Callable[[logging.Logger, logging.Logger], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, request, _, _ = tree()
    change(root, request)
    assert logs._sole_handler(request) is None
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(logging.Logger, "info", lambda self, *a, **k: calls.append((a, k)))
    logs.log_info(request, "request", FIELDS)
    assert calls == [(("request",), {"extra": {"fields": FIELDS}})]


def test_another_record_factory_goes_through_logging() -> None:
    _, request, _, _ = tree()
    factory = logging.getLogRecordFactory()
    logging.setLogRecordFactory(lambda *a, **k: factory(*a, **k))
    try:
        assert logs._sole_handler(request) is None
    finally:
        logging.setLogRecordFactory(factory)
