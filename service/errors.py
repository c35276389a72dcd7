"""The service's refusals (each maps to one HTTP status in ``service/http/errors.py``).

The domain's own refusals (``BadAction``, ``Forbidden``, ``IllegalAction``, ``UndoRefused``) live
in ``domain/errors.py``; these are the ones only the service can know: a game that is not
stored, a log that moved on, a token that is wrong, an imported log that does not replay."""

from __future__ import annotations

from domain.errors import Refused


class NotFound(Refused):
    code = "not_found"


class Unauthorized(Refused):
    code = "unauthorized"


class VersionConflict(Refused):
    code = "version_conflict"

    def __init__(self, current: int) -> None:
        super().__init__(
            f"the game is at version {current}; reload and retry", {"current_version": current}
        )


class ImportRefused(Refused):
    """An imported log is tampered with or breaks the rules (HTTP 422)."""

    code = "illegal_action"


class PreconditionFailed(Refused):
    """``If-Match`` named a log head that is no longer current (HTTP 412)."""

    code = "precondition_failed"


class IdempotencyKeyReused(Refused):
    """An ``Idempotency-Key`` whose first answer is no longer in the log (HTTP 422)."""

    code = "idempotency_key_reused"


class StorageFull(Refused):
    """The store is near its memory budget: writes that grow it are refused (HTTP 507)."""

    code = "storage_full"


class RateLimited(Refused):
    """Too many requests (a rate limit, a quota) or chat lines from one sender (HTTP 429
    with ``Retry-After``)."""

    code = "rate_limited"
