"""Loading a game: the cached match plus the events since, else snapshot + tail, else a fold.

Every read and every write starts here.  The cache holds the latest match of the most recently
used games (a process-local LRU); it is only a shortcut: an entry is used only if the log still
holds the cached version with the same hash (another process may have appended or undone).
A move may be decided on the cached entry alone (``cached``, no read): its conditional append
checks the version, the head and the meta's webhook flag, so a stale entry appends nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from domain import games
from domain.engine import Game, Match
from domain.errors import BadAction
from projections.fold import fold, from_snapshot
from projections.records import Recorded
from service.errors import NotFound
from service.meta import GameMeta
from service.store import EventStore

CACHE_SIZE = 2048


@dataclass(frozen=True)
class Current:
    """A game loaded at a version: its meta, rules, match and the head hash at that version."""

    game_id: str
    meta: GameMeta
    game: Game
    match: Match
    head: str

    @property
    def seed(self) -> str:
        return self.meta.seed


def rules_of(game_id: str, game_name: str) -> Game:
    """The rules a stored game is played by (a game no longer offered is not found)."""
    game = games.get(game_name)
    if game is None:
        raise NotFound(f"game {game_id} uses a game that is not offered")
    return game


class Loader:
    def __init__(self, store: EventStore, size: int = CACHE_SIZE) -> None:
        self.store = store
        self.size = size
        self._cache: OrderedDict[str, tuple[int, str, Match, GameMeta]] = OrderedDict()
        self._lock = threading.Lock()

    def current(self, game_id: str) -> Current:
        """The current state, with as few events read and folded as the cache allows."""
        with self._lock:
            cached = self._cache.get(game_id)
        raw = self.store.load(game_id, None, base=cached[0] if cached else 0)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        game = rules_of(game_id, raw.meta.game)
        match: Match | None = None
        recs = raw.records
        if cached and recs and recs[0].version == cached[0] and recs[0].hash == cached[1]:
            match = fold(game, recs[1:], cached[2]) if len(recs) > 1 else cached[2]
        elif raw.snapshot and recs:
            snap = from_snapshot(game, raw.snapshot)
            if snap and recs[0].version == snap[0].version and recs[0].hash == snap[1]:
                match = fold(game, recs[1:], snap[0]) if len(recs) > 1 else snap[0]
        if match is None:
            if not recs or recs[0].version != 1:
                raw = self.store.load(game_id, None, base=0, snapshot=False)
                if raw is None:
                    raise NotFound(f"no game {game_id}")
                recs = raw.records
            match = fold(game, recs)
        head = raw.meta.head
        self.remember(game_id, match, head, raw.meta)
        return Current(game_id, raw.meta, game, match, head)

    def cached(self, game_id: str) -> Current | None:
        """The game as this process last saw it, without reading the store (None if not
        cached): for a write only, whose conditional append checks it is still current."""
        with self._lock:
            entry = self._cache.get(game_id)
        if entry is None:
            return None
        _, head, match, meta = entry
        game = games.get(meta.game)
        return None if game is None else Current(game_id, meta, game, match, head)

    def at(self, game_id: str, version: int) -> tuple[Current, list[Recorded]]:
        """The state at ``version`` (replay) and every record up to it."""
        raw = self.store.load(game_id, version, base=0, snapshot=False)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        game = rules_of(game_id, raw.meta.game)
        current = raw.meta.version
        if not 1 <= version <= current:
            raise BadAction(
                f"version must be between 1 and {current}", {"version": [f"1..{current}"]}
            )
        match = fold(game, raw.records)
        return Current(game_id, raw.meta, game, match, raw.records[-1].hash), raw.records

    def log(self, game_id: str) -> tuple[GameMeta, list[Recorded]]:
        """The meta and every record of a game (audit, export, undo)."""
        raw = self.store.load(game_id, None, base=0, snapshot=False)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        return raw.meta, raw.records

    def remember(self, game_id: str, match: Match, head: str, meta: GameMeta) -> None:
        with self._lock:
            self._cache[game_id] = (match.version, head, match, meta)
            self._cache.move_to_end(game_id)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)

    def forget_all(self) -> None:
        """Empty the cache (benchmarks time cold loads)."""
        with self._lock:
            self._cache.clear()
