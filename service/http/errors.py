"""Every error leaves in the contract's shape, from one table.

``{"error": {"code", "message", "details"}}``.  Domain refusals map by class; werkzeug's HTTP
errors (unknown route, body too large, malformed JSON, schema violations from webargs) keep
their status with a contract code (405 keeps its ``Allow`` header; a rate limit is 429
``rate_limited`` with ``Retry-After``); an unreachable Redis is 503 ``unavailable``.  Anything else
is a bug: it is logged (without request data, which may hold secrets) and answered 500.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from domain.errors import BadAction, Forbidden, IllegalAction, Refused, StateConflict, UndoRefused
from service import observability
from service.chat import RateLimited
from service.errors import (
    IdempotencyKeyReused,
    ImportRefused,
    NotFound,
    PreconditionFailed,
    StorageFull,
    Unauthorized,
    VersionConflict,
)

log = logging.getLogger(__name__)

STATUS: dict[type[Refused], int] = {
    BadAction: 400,
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    VersionConflict: 409,
    UndoRefused: 409,
    StateConflict: 409,
    PreconditionFailed: 412,
    RateLimited: 429,
    IllegalAction: 422,
    ImportRefused: 422,
    IdempotencyKeyReused: 422,
    StorageFull: 507,
}

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "bad_request",
    422: "bad_request",
    429: "rate_limited",
    431: "headers_too_large",
    503: "unavailable",
}


def body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def http_error(error: HTTPException) -> Any:
    """werkzeug/webargs errors; webargs' schema errors become 400 with the fields named."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if messages:
        fields = _flatten(messages)
        names = ", ".join(sorted(fields)) or "the request"
        return jsonify(body("bad_request", f"invalid request: {names}", fields)), 400
    if status >= 500 and status != 503:  # 503: a server at its capacity says so
        log.error("unexpected server error: %s", error.name)
        return jsonify(body("internal", "internal error; it has been logged")), 500
    details: dict[str, Any] = {}
    headers = _kept_headers(error)
    limit = getattr(error, "limit", None)  # flask-limiter's RateLimitExceeded
    if status == 429 and limit is not None:
        retry_after = int(limit.limit.get_expiry())  # the window's length: an upper bound
        details = {"limit": str(limit.limit), "retry_after": retry_after}
        headers = [(k, v) for k, v in headers if k.lower() != "retry-after"]
        headers.append(("Retry-After", str(retry_after)))
    message = error.description or error.name
    if status == 429:
        message = f"rate limit exceeded ({message}); retry later"
    return jsonify(body(HTTP_CODES.get(status, "bad_request"), message, details)), status, headers


def _kept_headers(error: HTTPException) -> list[tuple[str, str]]:
    """werkzeug's own headers of an error that the contract's body must keep (405's Allow)."""
    return [(k, v) for k, v in error.get_headers() if k.lower() in ("allow", "retry-after")]


def _flatten(messages: Any, prefix: str = "") -> dict[str, Any]:
    """webargs nests errors by location ({"json": {"players": {"0": ...}}}); name fields."""
    out: dict[str, Any] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            if key in ("json", "query", "headers", "form", "files") and not prefix:
                out.update(_flatten(value, ""))
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
                if isinstance(value, dict):
                    out.update(_flatten(value, name))
                else:
                    out[name] = value
    else:
        out[prefix or "body"] = messages
    return out


def install(app: Flask) -> None:
    @app.errorhandler(Refused)
    def refused(error: Refused) -> tuple[Any, int, dict[str, str]]:
        status = next((s for cls, s in STATUS.items() if isinstance(error, cls)), 400)
        if isinstance(error, VersionConflict):
            observability.CONFLICTS.inc()
        elif isinstance(error, UndoRefused):
            observability.UNDO_REFUSED.labels(str(error.details.get("reason", "other"))).inc()
        headers = {}
        if status == 429 and "retry_after" in error.details:
            headers["Retry-After"] = str(error.details["retry_after"])
        return jsonify(body(error.code, error.message, error.details)), status, headers

    @app.errorhandler(redis.RedisError)
    def unavailable(error: redis.RedisError) -> tuple[Any, int]:
        if isinstance(error, redis.exceptions.OutOfMemoryError) or "OOM" in str(error):
            # maxmemory with noeviction: Redis refused the write, nothing was stored
            log.warning("redis refused a write: out of its memory budget")
            message = "the event store is full (its memory budget); nothing was stored"
            return jsonify(body("storage_full", message)), 507
        log.warning("redis unavailable: %s", type(error).__name__)
        return jsonify(body("unavailable", "the event store is unavailable; retry shortly")), 503

    @app.errorhandler(RecursionError)
    def too_deep(error: RecursionError) -> tuple[Any, int]:
        return jsonify(body("bad_request", "the JSON body is nested too deeply")), 400
