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


@lru_cache(maxsize=4096)
def _pads(key: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's inner and outer hashes with ``key`` already absorbed (RFC 2104: the key,
    hashed if over a block, padded to a block, XORed with 0x36 and 0x5C).  Copied for each
    link: ``hmac.new`` sets the key up again every time, in OpenSSL, and that is most of a
    link's cost."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    return inner, outer


def hmac_hex(key: bytes, message: bytes) -> str:
    """``hmac.new(key, message, hashlib.sha256).hexdigest()``, from the key's remembered pads."""
    inner, outer = _pads(key)
    i = inner.copy()
    i.update(message)
    o = outer.copy()
    o.update(i.digest())
    return str(o.hexdigest())


def link(key: bytes, prev: str, rec: Recorded) -> str:
    return hmac_hex(key, prev.encode() + dumps(rec.body()).encode())


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
    return hmac_hex(key, UNDO_DOMAIN + prev.encode() + dumps(body).encode())


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
