"""Exact preconditions: the ``ETag`` of a log head and the ``If-Match`` check against it.

``expected_version`` alone cannot tell two logs of the same length apart: after an undo and a
new move the game is at the same version with another board.  The head hash can: the ETag is
``"v<version>-<first 16 hex digits of the head hash>"`` (64 bits of an HMAC: a collision between
two heads of one game is not a practical concern), and a write with ``If-Match`` is refused
with 412 ``precondition_failed`` unless the head it names is the current one.  The append
itself is conditional on that head, so the check cannot race.
"""

from __future__ import annotations

from service.errors import PreconditionFailed

HEAD_PREFIX = 16


def etag(version: int, head: str) -> str:
    return f'"v{version}-{head[:HEAD_PREFIX]}"'


def check_if_match(if_match: str | None, version: int, head: str) -> None:
    """Raise ``PreconditionFailed`` unless ``if_match`` (a header value: ``*`` or a list of
    ETags, weak ones compared weakly) names the head (``version``, ``head``)."""
    if if_match is None:
        return
    current = etag(version, head)
    tags = [t.strip().removeprefix("W/") for t in if_match.split(",")]
    if "*" in tags or current in tags:
        return
    raise PreconditionFailed(
        "the game's log head moved since you read it; reload and retry",
        {"current_etag": current, "current_version": version},
    )
