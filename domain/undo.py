"""The undo policies of the contract, as one pure decision.

Undo truncates the log to an earlier version.  Game option ``undo``:

- ``turn`` (default): a player may undo their own most recent actions while no other seat has
  acted since and nothing hidden was revealed to anyone since (a draw, a shuffle, a vote reveal);
- ``host``: as ``turn``, and the host may also truncate to any version after the set-up
  that ends a command (never between the events of one command);
- ``none``: no undo.

Nobody may undo into the set-up batch (it holds the deal) or undo a finished game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.engine import Event, Game
from domain.errors import UndoRefused

POLICIES = ("turn", "host", "none")
HOST = "host"


@dataclass(frozen=True)
class Logged:
    """What undo needs of a recorded event: its version, who issued its command, the event."""

    version: int
    actor: int | None  # the seat whose command produced it; None for the system
    batch: int  # the version of the first event of its command
    event: Event


def undo_target(
    game: Game,
    policy: str,
    requester: int | str,
    log: Sequence[Logged],
    to_version: int | None,
    setup_version: int,
    finished: bool,
) -> int:
    """The version to truncate to, or ``UndoRefused`` with the reason.

    ``requester`` is a seat number or ``"host"``; ``log`` is the whole log (or at least its
    tail after ``setup_version``); ``to_version`` None means "my most recent action".
    """
    head = log[-1].version if log else 0
    if policy == "none":
        raise UndoRefused("undo_disabled", "this game was created with undo 'none'")
    if finished:
        raise UndoRefused("game_finished", "a finished game cannot be undone")
    if requester == HOST:
        if policy != "host":
            raise UndoRefused("not_allowed", "the host may truncate only under undo policy 'host'")
        if to_version is None:
            raise UndoRefused("to_version_required", "the host must name to_version")
        _check_range(to_version, setup_version, head)
        _check_boundary(log, to_version)
        return to_version
    seat = requester
    tail = [e for e in log if e.version > setup_version]
    if not tail or tail[-1].actor != seat:
        if any(e.actor == seat for e in tail):
            raise UndoRefused("other_seat_acted", "another seat acted since your last action")
        raise UndoRefused("nothing_to_undo", f"seat {seat} has no most recent action to undo")
    target = tail[-1].batch - 1 if to_version is None else to_version
    _check_range(target, setup_version, head)
    _check_boundary(log, target)
    for e in tail:
        if e.version <= target:
            continue
        if e.actor != seat:
            raise UndoRefused(
                "other_seat_acted", f"seat {e.actor} acted at version {e.version}; undo refused"
            )
        if game.reveals(e.event):
            raise UndoRefused(
                "hidden_information_revealed",
                f"version {e.version} ({e.event.type}) revealed hidden information; undo refused",
            )
    return target


def _check_boundary(log: Sequence[Logged], target: int) -> None:
    """A truncation keeps whole commands: cutting one command's events apart would leave a
    state no command produces (a game nobody can act in) and a log that no longer replays."""
    after = next((e for e in log if e.version == target + 1), None)
    if after is not None and after.batch != after.version:
        raise UndoRefused(
            "bad_version",
            f"version {target} is inside the events of one command (versions {after.batch}-); "
            f"undo to {after.batch - 1} or to the end of a later command",
        )


def _check_range(target: int, setup_version: int, head: int) -> None:
    if target < setup_version or target >= head:
        raise UndoRefused(
            "bad_version",
            f"to_version must be between {setup_version} and {head - 1}",
        )
