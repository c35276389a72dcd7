"""A request's rate-limit counters, counted once: by a script call of their own, or inside the
move's own append (issue 16).

With rate limits on, a move used to cost two Redis round trips one after the other: the
limiter's counters (``service.http.ratelimit``), then the conditional append.  On a single
Redis the append script can count them itself, first, and refuse to append when one is over
its amount: one round trip, the same counts, the same refusal.  An ``Admission`` is what
travels from the HTTP edge to the store for that: the counters' keys, their windows' lengths
and amounts, and whether they have been counted yet (a request is counted exactly once,
whichever call does it).

The store knows nothing of rate limits: it counts what it is given and, for a counter over
its amount, raises ``OverLimit``, which is not a ``Refused`` (so no refusal handler on the way
back takes it for a stale cache and tries again).  The limiter turns it into its 429.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from service.errors import RateLimited


@dataclass(eq=False)
class Admission:
    """One request's counters: ``keys[i]`` counts in a window of ``expiries[i]`` seconds and
    admits ``amounts[i]`` requests; ``labels[i]`` names the window in the refusal."""

    keys: tuple[str, ...]
    expiries: tuple[int, ...]
    amounts: tuple[int, ...]
    labels: tuple[str, ...]
    counted: bool = field(default=False)

    def args(self) -> list[int]:
        """The script's arguments after the keys: the expiries, then the amounts."""
        return [*self.expiries, *self.amounts]

    def first_over(self, counts: Sequence[int | bytes]) -> int | None:
        """The index of the first counter over its amount, None if all are within."""
        for i, n in enumerate(counts):
            if int(n) > self.amounts[i]:
                return i
        return None

    def refusal(self, index: int) -> RateLimited:
        """The 429 for counter ``index`` over its amount; ``retry_after`` is the window's
        length (an upper bound: the window is fixed, not sliding)."""
        retry_after = self.expiries[index]
        return RateLimited(
            f"rate limit exceeded ({self.labels[index]}); retry later",
            {"limit": self.labels[index], "retry_after": retry_after},
        )


class OverLimit(Exception):
    """A counter of an ``Admission`` counted inside an append was over its amount: nothing
    was appended.  ``refusal`` is the request's answer."""

    def __init__(self, refusal: RateLimited) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal
