"""The tamper-evident hash chain over a game's log.

``hash_v = HMAC-SHA256(chain_key, hash_{v-1} || canonical(event_v))`` with ``hash_0 = ""``.
The key is derived from the game's secret seed.  A plain SHA-256 chain would let a player
brute-force a hidden event (a drawn card has a handful of possible values) from the hashes they
are shown; keyed by the seed, the chain reveals nothing until the seed is revealed at the end,
after which anyone can recompute it from the export.  Players who keep the ``head_hash`` they
saw during the game can then prove the exported log is the one they played.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from projections.records import Recorded, dumps

GENESIS = ""


@lru_cache(maxsize=4096)
def chain_key(seed: str) -> bytes:
    """Remembered for the games a process serves (each of their moves links records): the
    key is no more secret than the seed, which the loaded game holds anyway."""
    return hashlib.sha256(b"chronicle-chain:" + seed.encode()).digest()


def link(key: bytes, prev: str, rec: Recorded) -> str:
    return hmac.new(key, prev.encode() + dumps(rec.body()).encode(), hashlib.sha256).hexdigest()


def first_break(key: bytes, records: Iterable[Recorded], prev: str = GENESIS) -> int | None:
    """The first version whose hash does not chain (or whose version has a gap), else None."""
    expected_version = None
    for rec in records:
        if expected_version is not None and rec.version != expected_version:
            return rec.version
        if not hmac.compare_digest(link(key, prev, rec), rec.hash):
            return rec.version
        prev = rec.hash
        expected_version = rec.version + 1
    return None


# The undo trail has a chain of its own, keyed the same way and domain-separated from the log's:
# ``undo_hash_n = HMAC-SHA256(chain_key, "chronicle-undo:" || undo_hash_{n-1} || canonical(record_n
# without its hash))``.  A record added, removed, reordered or altered (who, when, what) breaks
# it; ``/audit`` reports the verdict beside the log's.
UNDO_DOMAIN = b"chronicle-undo:"


def link_undo(key: bytes, prev: str, record: Mapping[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hmac.new(
        key, UNDO_DOMAIN + prev.encode() + dumps(body).encode(), hashlib.sha256
    ).hexdigest()


def first_undo_break(key: bytes, records: Iterable[Mapping[str, Any]]) -> int | None:
    """The index of the first undo record that does not chain, else None."""
    prev = GENESIS
    for i, record in enumerate(records):
        stated = record.get("hash")
        if not isinstance(stated, str) or not hmac.compare_digest(
            link_undo(key, prev, record), stated
        ):
            return i
        prev = stated
    return None
