"""The event store's interface: what the service needs of storage, and nothing else.

Two implementations pass the same contract tests (``tests/store``): ``RedisEventStore``
(``service/redis_store.py``; a single Redis or a Redis Cluster) and ``MemoryEventStore``
(``service/memory_store.py``; one process, for fast unit tests of the service).

Every write is atomic and conditional: an append or a truncation names the version and head
hash it expects and raises ``Conflict`` if the log moved on.

The live index lists the games that can still need the worker's reconciler (``Progress.live``:
a follow-up awaited or a deadline to check), so that a reconciler pass costs the games in play,
not every game ever stored.  It is eventually consistent, the way the game index is kept (one
key of its own, outside the per-game scripts, so that it works on a Redis Cluster):

- a write that leaves a game live marks it *before* the write (write-ahead: a process dying
  between the two leaves an extra entry, never a missing one), with the time of the mark;
- nothing unmarks a game but the reconciler: it drops a game it read as not live (finished,
  abandoned, a person to act with no clock, gone) whose mark is older than ``LIVE_GRACE_MS``
  and still the one it read (``drop_live``), so a write marked since keeps it listed;
- a store written before the index existed has no index: ``live()`` is None until a one-time
  backfill (``fill_live``, from the game index) is done.

The list of games (``GET /games``) reads three indexes, each one key of its own as well:
every game (``index``, the operator's list), the public ones (``index(..., public=True)``,
everyone's list) and the games' token hashes (``index_tokens``: token hash -> game), so that
a caller presenting a token also sees the unlisted game it holds a seat of (or hosts).  A token
entry is only a hint: the list checks it against the game's meta (``service.listing``), so a
stale one (a seat left since) lists nothing.

A process may skip a mark it made less than half the grace ago (the Redis store does, to save
the round trip on every move of a live game).  This is safe while the clocks of the API hosts
and of the workers agree to within half the grace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from projections.records import Recorded
from service.meta import GameMeta, Progress

IDEMPOTENCY_TTL = 24 * 3600  # seconds a stored idempotent response is kept
LIVE_GRACE_MS = 60_000  # a live mark younger than this is never dropped


@dataclass(frozen=True)
class Loaded:
    """A raw read: the meta, a snapshot blob (or None) and entries from some base."""

    meta: GameMeta
    snapshot: str | None
    records: list[Recorded]


@dataclass(frozen=True)
class Batch:
    """One conditional append: what it writes and what it expects to find.

    ``records`` (versions ``expected_version + 1`` ..) and ``meta`` (a new game's whole meta,
    else its progress) are written only if the log is still at ``expected_version`` and
    ``expected_head`` and, where ``hooks`` is not None, the stored webhook flag is ``hooks``
    (the flag the caller decided on).  ``idem``: the idempotency key and the answer kept under
    it; a key that holds an answer already is a conflict (its caller replays the stored one,
    so a request with a key needs no read of it first).  ``snapshot``: (version, blob)."""

    records: Sequence[Recorded]
    meta: GameMeta | Progress
    expected_version: int = 0
    expected_head: str = ""
    hooks: bool | None = None
    idem: tuple[str, str] | None = None
    snapshot: tuple[int, str] | None = None

    @property
    def progress(self) -> Progress:
        return self.meta.progress if isinstance(self.meta, GameMeta) else self.meta


class Conflict(Exception):
    """The log moved on: the expected version (or head) is no longer current."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class EventStore(Protocol):
    def append(self, game_id: str, batch: Batch) -> int:
        """Write ``batch`` (``Batch``) in one atomic step and announce it to the game's
        watchers; the new version.  Raise ``Conflict`` if the log moved, the webhook flag
        changed or the idempotency key holds an answer already: then nothing is written."""
        ...

    def load(
        self, game_id: str, target: int | None = None, base: int = 0, snapshot: bool = True
    ) -> Loaded | None:
        """Meta and the entries from ``base`` (or the snapshot, or 1) to ``target`` inclusive;
        None for an unknown game."""
        ...

    def meta(self, game_id: str) -> GameMeta | None: ...

    def read(self, game_id: str, after: int, limit: int) -> list[Recorded]:
        """Up to ``limit`` records after version ``after``."""
        ...

    def wait(self, game_id: str, after: int, timeout_ms: int) -> bool:
        """Block up to ``timeout_ms`` until an event after ``after`` exists."""
        ...

    def truncate(
        self,
        game_id: str,
        expected_version: int,
        expected_head: str,
        to_version: int,
        head: str,
        record: Mapping[str, Any],
        progress: Progress,
    ) -> None:
        """Undo: keep versions 1..``to_version`` (whose last hash is ``head``), move the rest
        into the undo trail as ``record``.  Raise ``Conflict`` if the log moved."""
        ...

    def undone(self, game_id: str) -> list[dict[str, Any]]:
        """The undo trail, oldest first."""
        ...

    def last_undone(self, game_id: str) -> dict[str, Any] | None:
        """The newest undo record (its hash links the next one), or None."""
        ...

    def add_undone(self, game_id: str, records: Sequence[Mapping[str, Any]]) -> None:
        """Extend the undo trail (an imported game brings its own)."""
        ...

    def idempotent(self, game_id: str, key: str) -> dict[str, Any] | None: ...

    def index(
        self, game_id: str, created_ms: int, public: bool = False, tokens: Sequence[str] = ()
    ) -> None:
        """List the game (newest first by ``created_ms``); ``public``: in the public index
        too; ``tokens``: the hashes of its seat and host tokens (``index_tokens``)."""
        ...

    def index_tokens(self, game_id: str, added: Sequence[str], removed: Sequence[str] = ()) -> None:
        """Token hashes that now stand for a seat or the host of ``game_id`` (``added``), and
        ones that no longer do (``removed``: a seat left)."""
        ...

    def game_of(self, token_hash: str) -> str | None:
        """The game a token hash was indexed for (a hint: check it against the meta)."""
        ...

    def migrated(self, name: str) -> bool:
        """Whether the one-time migration ``name`` (a backfill of a newer index from the
        metas, e.g. ``service.listing.backfill``) has run to its end on this store."""
        ...

    def mark_migrated(self, name: str) -> None:
        """Record that the migration ``name`` ran to its end (after it, never before)."""
        ...

    def list_ids(self, start: int, count: int, public: bool = False) -> list[str]:
        """Game ids, newest first (``public``: of the public index)."""
        ...

    def count(self, public: bool = False) -> int: ...

    def rank(self, game_id: str, created_ms: int) -> int | None:
        """How many public games ``list_ids(public=True)`` puts before a game created at
        ``created_ms`` (newer, or as new with a greater id); None if the game is public."""
        ...

    def metas(self, game_ids: Sequence[str]) -> list[GameMeta | None]: ...

    def live(self) -> dict[str, int] | None:
        """The live index: game id -> when a write last marked it live (ms since the epoch);
        None until the index was first filled (``fill_live(..., done=True)``)."""
        ...

    def fill_live(self, game_ids: Sequence[str], done: bool) -> None:
        """Mark these games live (the backfill of games stored before the index); ``done``:
        the backfill is complete, ``live()`` answers from now on."""
        ...

    def drop_live(self, marks: Mapping[str, int]) -> None:
        """Unlist each game whose mark is still the one given (not marked again since)."""
        ...

    def memory(self) -> tuple[int, int]:
        """(bytes used, the budget in bytes; 0: none), for ``service/budget.py``."""
        ...

    def ping(self) -> None:
        """Raise if the store is unreachable (readiness)."""
        ...
