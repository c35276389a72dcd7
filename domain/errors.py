"""Why the domain refuses a command.  The service maps each class to one HTTP status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Refused(Exception):
    """Base of every refusal: ``code`` is machine-readable, the message is for a person."""

    code = "refused"

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = dict(details or {})


class BadAction(Refused):
    """The action is malformed: unknown type, unknown field, wrong type (HTTP 400)."""

    code = "bad_request"


class IllegalAction(Refused):
    """The action breaks a rule; the message starts with the rule id (HTTP 422)."""

    code = "illegal_action"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}", {"rule": rule})
        self.rule = rule


class Forbidden(Refused):
    """The caller may not do this now, e.g. ``not_your_turn`` (HTTP 403)."""

    code = "forbidden"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, {"reason": reason})
        self.reason = reason


class UndoRefused(Refused):
    """Undo is not allowed by the game's undo policy (HTTP 409)."""

    code = "undo_refused"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, {"reason": reason})
        self.reason = reason


class StateConflict(Refused):
    """The table is not in the state the request needs (HTTP 409): ``seat_taken``,
    ``game_not_waiting``, ``turn_timed_out``.  ``code`` is the given one."""

    def __init__(self, code: str, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, details)
        self.code = code
