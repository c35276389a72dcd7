"""Every error leaves in the contract's shape, from one table.

``{"error": {"code", "message", "details"}}``.  Refusals (the domain's and the service's) get
the status of their code in ``ERRORS``, the table of every code; werkzeug's HTTP
errors (unknown route, body too large, malformed JSON, schema violations from webargs) keep
their status with a contract code (405 keeps its ``Allow`` header; a rate limit is 429
``rate_limited`` with ``Retry-After``); an unreachable Redis is 503 ``unavailable``.  Anything else
is a bug: it is logged (without request data, which may hold secrets) and answered 500.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import redis
from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from domain.errors import Refused, UndoRefused
from service import metrics
from service.errors import VersionConflict
from service.http.refusal_words import translated

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ErrorCode:
    """One machine-readable error ``code``: the HTTP status it comes with and what it means."""

    code: str
    status: int
    meaning: str


# The one table of error codes (the contract's "Errors" and "More error codes").  A refusal
# is answered with its code's status; the OpenAPI document's closed enum of codes, each
# operation's error responses and docs/errors.md are all made from this table.
ERRORS: tuple[ErrorCode, ...] = (
    ErrorCode(
        "bad_request",
        400,
        "malformed JSON, a schema violation (also of query parameters) or an action of the "
        "wrong shape; `details` name the fields",
    ),
    ErrorCode("unauthorized", 401, "the bearer token is not one of this game's (nor the admin's)"),
    ErrorCode(
        "forbidden",
        403,
        "the caller may not do this now; `details.reason` says why (e.g. `not_your_turn`, "
        "`game_over`, a spectator acting, a wrong invitation)",
    ),
    ErrorCode("not_found", 404, "no such game (or route)"),
    ErrorCode("method_not_allowed", 405, "the route exists, the method does not (`Allow` header)"),
    ErrorCode(
        "version_conflict",
        409,
        "`expected_version` is not the game's version; `details.current_version`: reload, retry",
    ),
    ErrorCode("undo_refused", 409, "the game's undo policy refuses this undo (`details.reason`)"),
    ErrorCode("seat_taken", 409, "the invitation's seat is already taken"),
    ErrorCode("game_not_waiting", 409, "the game has started: nobody joins any more"),
    ErrorCode("csrf_failed", 403, "a write by the session cookie without its `X-CSRF-Token`"),
    ErrorCode("insufficient_scope", 403, "an account token without the `play` scope only reads"),
    ErrorCode("seat_claimed", 409, "another account holds this seat (`POST .../claim`)"),
    ErrorCode("turn_timed_out", 409, "a timeout was appended since the version acted on"),
    ErrorCode("game_not_finished", 409, "a review is offered only for a finished game"),
    ErrorCode("vacations_off", 403, "the host allowed no vacations at this table"),
    ErrorCode("on_vacation", 409, "the seat is on vacation already (`DELETE` ends it)"),
    ErrorCode("not_on_vacation", 409, "the seat is not on vacation: nothing to end"),
    ErrorCode("precondition_failed", 412, "`If-Match` names a head that has moved"),
    ErrorCode(
        "request_timeout",
        408,
        "the body did not arrive in time (the server's body and io timeouts); "
        "the connection is closed",
    ),
    ErrorCode("payload_too_large", 413, "the body is larger than the limit"),
    ErrorCode("uri_too_long", 414, "the URL is longer than the edge's limit (any request)"),
    ErrorCode(
        "illegal_action",
        422,
        "the rules refuse the action (the message starts with the rule id, `details.rule`), or "
        "an imported log is tampered with or breaks the rules",
    ),
    ErrorCode(
        "idempotency_key_reused",
        422,
        "the `Idempotency-Key` was used before for a different request",
    ),
    ErrorCode("rate_limited", 429, "over a rate limit; `Retry-After` (and `details`) say when"),
    ErrorCode(
        "headers_too_large",
        431,
        "the request's headers are larger than the edge's limit (any request)",
    ),
    ErrorCode("internal", 500, "a bug: it has been logged (never expected)"),
    ErrorCode("unavailable", 503, "the event store is unreachable; retry shortly"),
    ErrorCode("storage_full", 507, "the event store is out of memory; nothing was appended"),
)
CODES: dict[str, ErrorCode] = {e.code: e for e in ERRORS}


def codes_for(status: int) -> list[str]:
    """The codes an answer with ``status`` may carry."""
    return [e.code for e in ERRORS if e.status == status]


# werkzeug's own HTTP errors: the code each status gets (415 and webargs' 422 are schema
# violations of the request, hence 400 ``bad_request``, see ``http_error``).
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "bad_request",
    422: "bad_request",
    429: "rate_limited",
    431: "headers_too_large",
    503: "unavailable",
}


def status_of(error: Refused) -> int:
    """The HTTP status of a refusal: its code's, from the table (400 for a code not in it)."""
    entry = CODES.get(error.code)
    return entry.status if entry is not None else 400


def catalogue() -> str:
    """docs/errors.md: the table as a page for client developers (a test keeps it current;
    regenerate it with ``python -m service.http.errors > docs/errors.md``)."""
    lines = [
        "# Error codes",
        "",
        "<!-- generated from service/http/errors.py (ERRORS): "
        "python -m service.http.errors > docs/errors.md -->",
        "",
        "Every error is answered in one shape, "
        '`{"error": {"code": "<code>", "message": "<for a person>", "details": {...}}}`, '
        "and nothing is appended. The `code` is one of these (a closed enum in the OpenAPI "
        "document, `ErrorBody.code`); each operation of `/api/v1/openapi.json` lists the "
        "statuses it may answer.",
        "",
        "| status | code | meaning |",
        "|---|---|---|",
        *(f"| {e.status} | `{e.code}` | {e.meaning} |" for e in ERRORS),
        "",
    ]
    return "\n".join(lines)


def body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The contract's error body; ``message`` in the caller's language (service.i18n)."""
    details = details or {}
    said = translated(code, message, details)
    return {"error": {"code": code, "message": said, "details": details}}


def http_error(error: HTTPException) -> Any:
    """werkzeug/webargs errors; webargs' schema errors become 400 with the fields named (and,
    for one field, what is wrong with it: the message is what a person reads)."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if messages:
        fields = _flatten(messages)
        names = ", ".join(sorted(fields)) or "the request"
        said = next(iter(fields.values())) if len(fields) == 1 else None
        said = said[0] if isinstance(said, list) and said else None
        why = f" ({said})" if isinstance(said, str) else ""
        return jsonify(body("bad_request", f"invalid request: {names}{why}", fields)), 400
    if status >= 500 and status != 503:  # 503: a server at its capacity says so
        log.error("unexpected server error: %s", error.name)
        return jsonify(body("internal", "internal error; it has been logged")), 500
    details: dict[str, Any] = {}
    headers = _kept_headers(error)
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
        status = status_of(error)
        if isinstance(error, VersionConflict):
            metrics.CONFLICTS.inc()
        elif isinstance(error, UndoRefused):
            metrics.UNDO_REFUSED.labels(str(error.details.get("reason", "other"))).inc()
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


if __name__ == "__main__":
    print(catalogue(), end="")
