"""The deadline check RQ's scheduler runs when a seat's turn time is up (``service.clocks``)."""

from __future__ import annotations

from service import clocks
from workers.jobs import chronicle


def check_deadline(game_id: str, deadline_ms: int, seat: int) -> str:
    """Time the seat out if that deadline still stands and has passed; else nothing."""
    return clocks.check_deadline(chronicle(), game_id, deadline_ms, seat)
