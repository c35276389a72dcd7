"""Deterministic randomness derived from a game's secret seed and its log position.

Every random outcome of a game comes from ``Rng.at(seed, version)``: HMAC-SHA256 keyed by the
seed over the version that the outcome will be recorded at.  The same seed and version always
give the same stream of numbers, so replay never re-rolls and undoing then repeating an action
cannot re-roll either.  After the game ends the seed is revealed, and anyone can re-derive every
shuffle and draw with the few lines below (no dependence on Python's ``random`` module, whose
algorithms may change between releases).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class Rng:
    """A counter-mode HMAC-SHA256 stream; ``below(n)`` is unbiased (rejection sampling)."""

    def __init__(self, key: bytes, label: bytes) -> None:
        self._key = key
        self._label = label
        self._counter = 0
        self._pool = b""

    @classmethod
    def at(cls, seed: str, version: int, label: str = "") -> Rng:
        """The generator for the event that will be recorded at ``version``."""
        return cls(seed.encode(), f"{label}:{version}".encode())

    def _bytes(self, n: int) -> bytes:
        while len(self._pool) < n:
            block = hmac.new(
                self._key, self._label + b"#" + str(self._counter).encode(), hashlib.sha256
            ).digest()
            self._counter += 1
            self._pool += block
        out, self._pool = self._pool[:n], self._pool[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        if n == 1:
            return 0
        size = (n.bit_length() + 7) // 8
        limit = (256**size // n) * n
        while True:
            x = int.from_bytes(self._bytes(size), "big")
            if x < limit:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher-Yates shuffle of a copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out
