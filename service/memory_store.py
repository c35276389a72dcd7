"""An ``EventStore`` in the memory of one process: for fast unit tests of the service.

It passes the same contract tests as the Redis store (``tests/store``): the same conditional
appends and truncations, snapshots, undo trail, idempotent responses, the list's indexes, the
live index and long-poll.
It is not for production (nothing is durable, nothing is shared between processes), and every
behaviour of the service is still proven against real Redis.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from projections.records import Recorded
from service.meta import GameMeta, Progress
from service.store import IDEMPOTENCY_TTL, Batch, Conflict, Loaded


@dataclass
class _Game:
    meta: GameMeta | None = None
    log: list[Recorded] = field(default_factory=list)
    snapshot: tuple[int, str] | None = None
    undone: list[str] = field(default_factory=list)  # JSON, as Redis keeps them
    idem: dict[str, tuple[str, float]] = field(default_factory=dict)  # key -> (JSON, expiry)


class MemoryEventStore:
    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._index: dict[str, int] = {}
        self._public: dict[str, int] = {}
        self._tokens: dict[str, str] = {}  # token hash -> game id
        self._live: dict[str, int] = {}  # game id -> its last live mark (ms)
        self._live_filled = False  # as a fresh Redis: the backfill is to be done
        self._migrated: set[str] = set()
        self._changed = threading.Condition()

    def _mark(self, game_ids: Sequence[str]) -> None:
        """List games in the live index (what the Redis store does before its script)."""
        now = time.time_ns() // 10**6
        for gid in game_ids:
            self._live[gid] = max(now, self._live.get(gid, now))

    def _head(self, g: _Game) -> tuple[int, str]:
        return (g.meta.version, g.meta.head) if g.meta else (0, "")

    def append(self, game_id: str, batch: Batch) -> int:
        records, meta, idem = batch.records, batch.meta, batch.idem
        with self._changed:
            if batch.progress.live:
                self._mark([game_id])
            g = self._games.setdefault(game_id, _Game())
            version, head = self._head(g)
            if (version, head) != (batch.expected_version, batch.expected_head):
                raise Conflict(version)
            if batch.hooks is not None and batch.hooks != (g.meta is not None and g.meta.hooks):
                raise Conflict(version)
            if idem and self._stored(g, idem[0]) is not None:  # answered already: replayed
                raise Conflict(version)
            g.log.extend(records)
            new_version = version + len(records)
            new_head = records[-1].hash if records else batch.expected_head
            if isinstance(meta, GameMeta):
                g.meta = replace(meta, version=new_version, head=new_head)
            else:
                g.meta = _progressed(g.meta, meta, new_version, new_head)
            if idem:
                g.idem[idem[0]] = (idem[1], time.monotonic() + IDEMPOTENCY_TTL)
            if batch.snapshot:
                g.snapshot = batch.snapshot
            self._changed.notify_all()
            return new_version

    def load(
        self, game_id: str, target: int | None = None, base: int = 0, snapshot: bool = True
    ) -> Loaded | None:
        with self._changed:
            g = self._games.get(game_id)
            if g is None or g.meta is None:
                return None
            version = g.meta.version
            top = version if target is None else min(target, version)
            start, blob = 1, None
            if 0 < base <= top:
                start = base
            elif snapshot and g.snapshot and 0 < g.snapshot[0] <= top:
                start, blob = g.snapshot
            return Loaded(g.meta, blob, list(g.log[start - 1 : top]) if top >= 1 else [])

    def meta(self, game_id: str) -> GameMeta | None:
        with self._changed:
            g = self._games.get(game_id)
            return g.meta if g else None

    def read(self, game_id: str, after: int, limit: int) -> list[Recorded]:
        with self._changed:
            g = self._games.get(game_id)
            return list(g.log[after : after + limit]) if g else []

    def wait(self, game_id: str, after: int, timeout_ms: int) -> bool:
        def arrived() -> bool:
            g = self._games.get(game_id)
            return g is not None and len(g.log) > after

        with self._changed:
            return self._changed.wait_for(arrived, max(1, timeout_ms) / 1000)

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
        with self._changed:
            if progress.live:
                self._mark([game_id])
            g = self._games.setdefault(game_id, _Game())
            version, current_head = self._head(g)
            if (version, current_head) != (expected_version, expected_head):
                raise Conflict(version)
            del g.log[to_version:]
            g.undone.append(json.dumps(record))
            if g.snapshot and g.snapshot[0] > to_version:
                g.snapshot = None
            g.meta = _progressed(g.meta, progress, to_version, head)
            self._changed.notify_all()

    def undone(self, game_id: str) -> list[dict[str, Any]]:
        with self._changed:
            g = self._games.get(game_id)
            return [json.loads(u) for u in g.undone] if g else []

    def memory(self) -> tuple[int, int]:
        return 0, 0  # one process's test store: no budget

    def last_undone(self, game_id: str) -> dict[str, Any] | None:
        with self._changed:
            g = self._games.get(game_id)
            return json.loads(g.undone[-1]) if g and g.undone else None

    def add_undone(self, game_id: str, records: Sequence[Mapping[str, Any]]) -> None:
        with self._changed:
            g = self._games.setdefault(game_id, _Game())
            g.undone.extend(json.dumps(u) for u in records)

    def idempotent(self, game_id: str, key: str) -> dict[str, Any] | None:
        with self._changed:
            g = self._games.get(game_id)
            stored = self._stored(g, key) if g else None
            return None if stored is None else dict(json.loads(stored))

    @staticmethod
    def _stored(g: _Game, key: str) -> str | None:
        """The response stored under ``key``, unless it expired."""
        stored = g.idem.get(key)
        return None if stored is None or stored[1] < time.monotonic() else stored[0]

    def index(
        self, game_id: str, created_ms: int, public: bool = False, tokens: Sequence[str] = ()
    ) -> None:
        with self._changed:
            self._index[game_id] = created_ms
            if public:
                self._public[game_id] = created_ms
            self._tokens.update(dict.fromkeys(tokens, game_id))

    def index_tokens(self, game_id: str, added: Sequence[str], removed: Sequence[str] = ()) -> None:
        with self._changed:
            self._tokens.update(dict.fromkeys(added, game_id))
            for hashed in removed:
                self._tokens.pop(hashed, None)

    def game_of(self, token_hash: str) -> str | None:
        with self._changed:
            return self._tokens.get(token_hash)

    def list_ids(self, start: int, count: int, public: bool = False) -> list[str]:
        with self._changed:
            index = self._public if public else self._index
            # Redis orders equal scores by member, and ZREVRANGE reverses both.
            newest = sorted(index.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
            return [gid for gid, _ in newest[start : start + count]]

    def count(self, public: bool = False) -> int:
        with self._changed:
            return len(self._public if public else self._index)

    def rank(self, game_id: str, created_ms: int) -> int | None:
        with self._changed:
            if game_id in self._public:
                return None
            return sum(1 for g, ms in self._public.items() if (ms, g) > (created_ms, game_id))

    def metas(self, game_ids: Sequence[str]) -> list[GameMeta | None]:
        return [self.meta(gid) for gid in game_ids]

    def migrated(self, name: str) -> bool:
        with self._changed:
            return name in self._migrated

    def mark_migrated(self, name: str) -> None:
        with self._changed:
            self._migrated.add(name)

    def live(self) -> dict[str, int] | None:
        with self._changed:
            return dict(self._live) if self._live_filled else None

    def fill_live(self, game_ids: Sequence[str], done: bool) -> None:
        with self._changed:
            self._mark(game_ids)
            self._live_filled = self._live_filled or done

    def drop_live(self, marks: Mapping[str, int]) -> None:
        with self._changed:
            for gid, mark in marks.items():
                if self._live.get(gid) == mark:
                    del self._live[gid]

    def ping(self) -> None:
        return None


def _progressed(meta: GameMeta | None, progress: Progress, version: int, head: str) -> GameMeta:
    """The meta after a write that changed only its progress (and version and head)."""
    if meta is None:
        raise ValueError("only a new game's whole meta can start a game")
    result = progress.result if progress.result is not None else meta.progress.result
    return replace(meta, progress=replace(progress, result=result), version=version, head=head)


__all__ = ["MemoryEventStore"]
