"""What happens after a write, besides the follow-up jobs: the clocks and the notifications.

``Chronicle`` calls every hook after an append (``appended``) and after an undo (``undone``),
once the write is durable.  A hook only writes to the queue's Redis (a deadline's check in
the deadlines' index, a webhook fan-out job); it never blocks a move, and a failure to write
is logged, not raised: the worker's reconciler finds overdue deadlines again
(``workers.main``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import redis

from domain.engine import Match
from projections.records import Recorded

if TYPE_CHECKING:
    from service.loading import Current

log = logging.getLogger(__name__)


class Hooks(Protocol):
    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        """``records`` were appended to the game ``cur`` held; ``match`` is the game now."""

    def undone(self, cur: Current, target: int) -> None:
        """The log was truncated to ``target``; ``cur`` is the game now."""

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        """A chat line was added (``service.chat``)."""


class NoHooks:
    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        return None

    def undone(self, cur: Current, target: int) -> None:
        return None

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        return None


class AllHooks:
    """Several hooks, each shielded: an unreachable queue must not fail the request."""

    def __init__(self, hooks: Sequence[Hooks]) -> None:
        self.hooks = list(hooks)

    def appended(self, cur: Current, match: Match, records: Sequence[Recorded]) -> None:
        for hook in self.hooks:
            try:
                hook.appended(cur, match, records)
            except redis.RedisError:
                log.warning("hook %s failed after an append", type(hook).__name__, exc_info=True)

    def undone(self, cur: Current, target: int) -> None:
        for hook in self.hooks:
            try:
                hook.undone(cur, target)
            except redis.RedisError:
                log.warning("hook %s failed after an undo", type(hook).__name__, exc_info=True)

    def said(self, cur: Current, line: Mapping[str, Any]) -> None:
        for hook in self.hooks:
            try:
                hook.said(cur, line)
            except redis.RedisError:
                log.warning("hook %s failed after a chat line", type(hook).__name__, exc_info=True)
