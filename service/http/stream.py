"""Push over HTTP: ``GET /games/{id}/stream`` (Server-Sent Events) and its tickets.

The frames come from the process's ``Hub`` (``service.stream``): the caller's redacted events
as they are appended (``event: events``), undo notices (``event: undo``) and status changes
(``event: status``), each with ``id:`` the game version; the table chat lines the caller may
read (``event: chat``, no ``id:``, resumed by ``?chat_after=<line id>``; ``service.chat_stream``);
a heartbeat comment when nothing
happened for ``CHRONICLE_STREAM_HEARTBEAT`` seconds (default 15); the stream ends after
``CHRONICLE_STREAM_SECONDS`` (default 3600) and the client resumes with ``Last-Event-ID``.
A stream is a wait: it counts against the caps of ``service.http.waits``.

Long-polls (``GET .../events?wait=``) wait through the same hub (``long_poll`` below).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, Response, current_app, request
from flask.views import MethodView
from flask_smorest import Api
from marshmallow import Schema, fields, validate

from domain.errors import BadAction
from projections.records import Recorded
from service import tickets
from service.chat import MAX_LINE
from service.chat_stream import ChatSource
from service.clocks import state_of
from service.http.accounts import blocked_here
from service.http.common import AUTH, blueprint, opened
from service.http.schemas import CLOCKS, MAX_VERSION, ApiError, ClockOut, Result
from service.http.waits import Waits
from service.loading import Current
from service.stream import Head, Hub

blp = blueprint("stream", "Push updates")

HEARTBEAT_SECONDS = 15.0
STREAM_SECONDS = 3600.0


class StreamQuery(Schema):
    after = fields.Int(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "resume after this version (as `Last-Event-ID` does)"},
    )
    chat_after = fields.Int(
        validate=validate.Range(min=0, max=MAX_LINE),
        metadata={
            "description": "start with the readable chat lines after this line id (and the "
            "lines up to it hidden since); without it, chat from now on"
        },
    )
    ticket = fields.Str(
        validate=validate.Length(min=1, max=200),
        metadata={"description": "a seat's ticket from `POST .../stream-ticket` (EventSource)"},
    )


class StreamTicket(Schema):
    ticket = fields.Str(required=True)
    expires_in = fields.Int(required=True, metadata={"description": "seconds"})


class StreamUndo(Schema):
    """The data of an ``undo`` frame."""

    version = fields.Int(required=True, metadata={"description": "the version the game is at now"})


class StreamStatus(Schema):
    """The data of a ``status`` frame (``service.stream.status_doc``)."""

    version = fields.Int(required=True)
    status = fields.Str(required=True)
    to_act = fields.List(fields.Int(), required=True)
    result = fields.Nested(Result)
    clocks = fields.Dict(keys=fields.Str(), values=fields.Nested(ClockOut), metadata=CLOCKS)


# Each frame's ``data`` (JSON) by its ``event``: components of the document (``x-frame-data``;
# OpenAPI 3.0 cannot type the data of an event stream, and a test validates real frames).
FRAME_DATA = {"events": "Events", "undo": "StreamUndo", "status": "StreamStatus"}


def hub() -> Hub:
    return current_app.extensions["chronicle_hub"]


def waits() -> Waits:
    return current_app.extensions["chronicle_waits"]


def head_of(cur: Current) -> Head:
    to_act = tuple(cur.match.to_act(cur.game))
    status, result = cur.match.status(cur.game), cur.match.result
    return Head(cur.match.version, cur.head, status, to_act, result, state_of(cur.match.table))


def _identity() -> str | None:
    """What the per-token cap counts: the Authorization header as sent (hashed there)."""
    return request.headers.get("Authorization") or None


def direct_socket() -> Any:
    """The client's socket when the hub may write the stream to it itself: under gunicorn's
    gevent worker (cooperative sockets, one thread) on HTTP/1.1 (a chunked body), and not
    TLS: the hub writes to the plain socket under gevent's wrapper (``Watch.raw``)."""
    sock = request.environ.get("chronicle.socket")
    if sock is None or request.environ.get("SERVER_PROTOCOL") != "HTTP/1.1":
        return None
    if isinstance(sock, ssl.SSLSocket):  # gevent's, once patched: bytes must go through TLS
        return None
    try:
        from gevent import monkey
    except ImportError:
        return None
    return sock if monkey.is_module_patched("socket") else None


class Held:
    """A response body that gives its wait back when the server closes it, even if it was
    never iterated (a generator that never started would skip its ``finally``)."""

    def __init__(self, frames: Iterator[bytes], release: Callable[[], object]) -> None:
        self.frames, self._release = frames, release

    def __iter__(self) -> Held:
        return self

    def __next__(self) -> bytes:
        return next(self.frames)

    def close(self) -> None:
        try:
            close = getattr(self.frames, "close", None)
            if close is not None:
                close()
        finally:
            release, self._release = self._release, lambda: None
            release()


EVENT_STREAM = {
    "description": "Server-Sent Events: `events` `{version, events}`, `undo` `{version}`, "
    "`status` `{version, status, to_act}`, each with `id:` the game version; `chat` (no `id:`) "
    "`{id, room, seat, name, at, text}`, one table chat line as `GET .../chat` gives it, only "
    "in the rooms the caller may read (the players' room: seats only until the end); a hidden "
    "line, and a hide (the line again), comes with `hidden: true` and without `text`; "
    "`?chat_after=` resumes chat after a line id; heartbeat comments.",
    "content": {
        "text/event-stream": {
            "schema": {  # one event (schemathesis checks each against it)
                "type": "object",
                "properties": {
                    "event": {"type": "string", "enum": ["events", "undo", "status", "chat"]},
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
                    "data": {
                        "type": "string",
                        "description": "JSON, by `event`: `x-frame-data` names its component",
                    },
                    "retry": {"type": "integer"},
                },
                "x-frame-data": {
                    k: {"$ref": f"#/components/schemas/{v}"} for k, v in FRAME_DATA.items()
                },
            }
        }
    },
}


@blp.route("/games/<game_id:game_id>/stream")
class StreamResource(MethodView):
    @blp.doc(
        operationId="streamGame",
        security=AUTH,
        responses={200: EVENT_STREAM},
        parameters=[
            {
                "in": "header",
                "name": "Last-Event-ID",
                "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION},
                "description": "resume after this version (sent by EventSource on reconnect)",
            }
        ],
    )
    @blp.arguments(StreamQuery, location="query")
    @blp.alt_response(400, schema=ApiError, description="bad request")
    @blp.alt_response(401, schema=ApiError, description="wrong token or ticket")
    @blp.alt_response(404, schema=ApiError, description="unknown game")
    @blp.alt_response(429, schema=ApiError, description="too many waits (Retry-After)")
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The caller's redacted events as they are appended, undo notices, status changes and
        the chat lines it may read, as Server-Sent Events.  Without `Last-Event-ID` or `after`
        it starts with a status; with `chat_after`, with the chat lines after that line."""
        after = query.get("after")
        last_id = request.headers.get("Last-Event-ID")
        if last_id is not None:
            text = last_id.strip()
            after = int(text) if text.isascii() and text.isdigit() and len(text) < 12 else -1
            if not 0 <= after <= MAX_VERSION:
                raise BadAction(
                    "Last-Event-ID must be a version", {"Last-Event-ID": ["an integer"]}
                )
        cur, caller = opened(game_id)
        identity = _identity()
        if "ticket" in query and request.headers.get("Authorization") is None:
            caller = tickets.redeem(cur.meta, game_id, query["ticket"])
            identity = f"ticket:{game_id}:{caller.seat}"
        slot = waits().slot(request.remote_addr, identity)
        slot.__enter__()
        config = current_app.config
        frames = hub().follow(
            game_id,
            cur.game,
            cur.match.config,
            caller,
            head_of(cur),
            after,
            config["CHRONICLE_STREAM_HEARTBEAT"],
            config["CHRONICLE_STREAM_SECONDS"],
            direct_socket(),
            {"chat": query.get("chat_after")},
            blocked_here(),
        )
        body = Held(frames, lambda: slot.__exit__(None, None, None))
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return Response(body, mimetype="text/event-stream", headers=headers)


@blp.route("/games/<game_id:game_id>/stream-ticket")
class StreamTicketResource(MethodView):
    @blp.doc(operationId="streamTicket", security=[{"bearer": []}])
    @blp.response(200, StreamTicket)
    @blp.alt_response(401, schema=ApiError, description="not a seat's token")
    @blp.alt_response(404, schema=ApiError, description="unknown game")
    def post(self, game_id: str) -> dict[str, Any]:
        """A one-minute ticket for `GET .../stream?ticket=` (EventSource cannot send headers,
        and a token never goes in a URL).  Seat tokens only."""
        cur, caller = opened(game_id)
        return tickets.issue(cur.meta, game_id, caller)


def long_poll(
    cur: Current, after: int, limit: int, wait: float
) -> tuple[list[Recorded], int, str] | None:
    """A long-poll's wait (``service.reads.Waiter``) through the hub: no thread, no Redis
    connection held; within the caller's caps."""
    with waits().slot(request.remote_addr, _identity()):
        got = hub().poll(cur.game_id, head_of(cur), after, limit, wait)
    return None if got is None else (got[0], got[1].version, got[1].status)


def install(app: Flask, api: Api, client: Any, defaults: bool) -> None:
    """The stream's routes, the process's hub and the caps on waits."""
    env = os.environ
    app.config.setdefault(
        "CHRONICLE_STREAM_HEARTBEAT",
        float(env.get("CHRONICLE_STREAM_HEARTBEAT") or HEARTBEAT_SECONDS),
    )
    app.config.setdefault(
        "CHRONICLE_STREAM_SECONDS", float(env.get("CHRONICLE_STREAM_SECONDS") or STREAM_SECONDS)
    )
    hub = app.extensions["chronicle_hub"] = Hub(app.extensions["chronicle"].store, client)
    hub.register(ChatSource(client))
    app.extensions["chronicle_waits"] = Waits(env, defaults, client)
    api.spec.components.schema("StreamUndo", schema=StreamUndo)
    api.spec.components.schema("StreamStatus", schema=StreamStatus)
    api.register_blueprint(blp)
