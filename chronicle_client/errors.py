"""The contract's error shape as exceptions: ``{"error": {"code", "message", "details"}}``."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A 4xx/5xx answer: its status, the contract's ``code``, the message and the details."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class VersionConflict(ApiError):
    """409 ``version_conflict``: the game moved on (``current_version``)."""

    @property
    def current_version(self) -> int:
        return int(self.details.get("current_version", -1))


class IllegalAction(ApiError):
    """422 ``illegal_action``: the rules refused the action (the message names the rule)."""


class RateLimited(ApiError):
    """429 ``rate_limited`` still after the client's retries."""


class Unavailable(ApiError):
    """503 ``unavailable`` still after the client's retries."""


CLASSES: dict[str, type[ApiError]] = {
    "version_conflict": VersionConflict,
    "illegal_action": IllegalAction,
    "rate_limited": RateLimited,
    "unavailable": Unavailable,
}


def from_response(status: int, body: Any) -> ApiError:
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ApiError(status, "http_error", f"HTTP {status} without the contract's body", {})
    code = str(error.get("code", "unknown"))
    cls = CLASSES.get(code, ApiError)
    return cls(status, code, str(error.get("message", "")), dict(error.get("details") or {}))
