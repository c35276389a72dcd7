"""The notice job (``service.notices``): one email to one seat's account, on the worker's
service."""

from __future__ import annotations

from service import notices
from workers.jobs import chronicle


def send(game_id: str, seat: int, kind: str, marker: int, began: int | None) -> str:
    """Mail the notice if it is still owed (what it did: ``sent``, ``off``, ...)."""
    return notices.notify(chronicle(), game_id, seat, kind, marker, began)
