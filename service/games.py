"""The game service: the one write path (create, act, finish, undo, import) and the reads.

HTTP handlers and RQ workers both call this class, so a bot's move goes through exactly the
checks a player's does:

    command -> load state (cache / snapshot + tail) -> engine.decide -> records chained by hash
      -> conditional append (expected version and head) -> follow-up jobs -> response
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain import engine, games
from domain.engine import Config, Event, Game, Match, Player
from domain.errors import BadAction, Forbidden, Refused
from domain.rng import Rng
from domain.undo import HOST as HOST_REQUESTER
from domain.undo import POLICIES, undo_target
from projections import chain
from projections.fold import SNAPSHOT_EVERY, fold, from_snapshot, logged, snapshot_blob
from projections.records import CREATE, FINISH, Recorded, from_full, full, iso
from projections.replay import ReplayError, replay
from projections.views import ADMIN, HOST, SEAT, Caller, events_for, seats_doc
from service import auth, faults
from service.jobs import JobQueue
from service.store import Conflict, EventStore

CACHE_SIZE = 2048


class NotFound(Refused):
    code = "not_found"


class VersionConflict(Refused):
    code = "version_conflict"

    def __init__(self, current: int) -> None:
        super().__init__(
            f"the game is at version {current}; reload and retry", {"current_version": current}
        )


class ImportRefused(Refused):
    """An imported log is tampered with or breaks the rules (HTTP 422)."""

    code = "illegal_action"


@dataclass(frozen=True)
class Current:
    """A game loaded at a version: its meta, rules, match and the head hash at that version."""

    game_id: str
    meta: dict[str, str]
    game: Game
    match: Match
    head: str

    @property
    def seed(self) -> str:
        return self.meta["seed"]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Chronicle:
    def __init__(
        self,
        store: EventStore,
        jobs: JobQueue,
        admin_token: str | None = None,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.admin_token = admin_token
        self.clock = clock
        self._cache: OrderedDict[str, tuple[int, str, Match]] = OrderedDict()
        self._lock = threading.Lock()

    # ---- identity -------------------------------------------------------------------------
    def caller(self, meta: Mapping[str, str], authorization: str | None) -> Caller:
        return auth.resolve(meta, auth.bearer(authorization), self.admin_token)

    # ---- reads ----------------------------------------------------------------------------
    def _game(self, game_id: str, meta: Mapping[str, str]) -> Game:
        game = games.get(meta.get("game", ""))
        if game is None:
            raise NotFound(f"game {game_id} uses a game that is not offered")
        return game

    def current(self, game_id: str) -> Current:
        """The current state: the cached match plus the events since, else snapshot + tail."""
        with self._lock:
            cached = self._cache.get(game_id)
        raw = self.store.load(game_id, None, base=cached[0] if cached else 0)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        game = self._game(game_id, raw.meta)
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
        head = raw.meta.get("head", "")
        self._remember(game_id, match, head)
        return Current(game_id, raw.meta, game, match, head)

    def at(self, game_id: str, version: int) -> tuple[Current, list[Recorded]]:
        """The state at ``version`` (replay) and every record up to it."""
        raw = self.store.load(game_id, version, base=0, snapshot=False)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        game = self._game(game_id, raw.meta)
        current = int(raw.meta["version"])
        if not 1 <= version <= current:
            raise BadAction(
                f"version must be between 1 and {current}", {"version": [f"1..{current}"]}
            )
        match = fold(game, raw.records)
        return Current(game_id, raw.meta, game, match, raw.records[-1].hash), raw.records

    def _remember(self, game_id: str, match: Match, head: str) -> None:
        with self._lock:
            self._cache[game_id] = (match.version, head, match)
            self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)

    def summary(self, cur: Current) -> dict[str, Any]:
        return summary_doc(cur.game_id, cur.meta)

    def list_games(
        self, game: str | None, status: str | None, page: int, per_page: int
    ) -> dict[str, Any]:
        """Newest first.  Unfiltered pages are a slice of the index; filtered ones walk the
        index in chunks, reading the meta hashes with one pipelined round trip per chunk."""
        skip = (page - 1) * per_page
        if not (game or status):
            ids = self.store.list_ids(skip, per_page)
            docs = [summary_doc(g, m) for g, m in zip(ids, self.store.metas(ids), strict=True) if m]
            return {"games": docs, "page": page, "per_page": per_page, "total": self.store.count()}
        out: list[dict[str, Any]] = []
        matched, start, chunk, total_ids = 0, 0, 500, self.store.count()
        while start < total_ids:
            ids = self.store.list_ids(start, chunk)
            start += chunk
            for gid, meta in zip(ids, self.store.metas(ids), strict=True):
                if not meta or (game and meta.get("game") != game):
                    continue
                if status and meta.get("status") != status:
                    continue
                if skip <= matched < skip + per_page:
                    out.append(summary_doc(gid, meta))
                matched += 1
        return {"games": out, "page": page, "per_page": per_page, "total": matched}

    # ---- writes ---------------------------------------------------------------------------
    def create(
        self,
        game_id: str | None,
        game_name: str,
        players: Sequence[Mapping[str, Any]],
        options: Mapping[str, str] | None,
        seed: str | None,
    ) -> dict[str, Any]:
        game = games.get(game_name)
        if game is None:
            raise BadAction(
                f"unknown game {game_name!r}", {"game": [f"one of: {', '.join(games.GAMES)}"]}
            )
        config = _config(game, players, options or {})
        seed = seed if seed is not None else secrets.token_hex(32)
        events = engine.create(game, config, Rng.at(seed, 1))
        tokens = [None if p.bot else auth.new_token() for p in config.players]
        host_token = auth.new_token()
        created = self.clock()
        records = self._records(seed, 0, "", events, None, CREATE, created)
        match = fold(game, records)
        meta = self._new_meta(game, match, seed, tokens, host_token, created, len(records), created)
        for _ in range(5):
            gid = game_id or secrets.token_hex(8)
            try:
                self.store.append(gid, 0, "", records, meta)
                break
            except Conflict:
                if game_id:
                    raise
        else:  # pragma: no cover - 64-bit id collisions five times in a row
            raise RuntimeError("could not allocate a game id")
        self.store.index(gid, created)
        self._remember(gid, match, records[-1].hash)
        self.jobs.enqueue(engine.follow_ups(game, gid, match))
        return self._created(gid, game, config, tokens, host_token, meta, match.version)

    def act(
        self,
        game_id: str,
        caller: Caller,
        action: Mapping[str, Any],
        expected_version: int,
        idempotency_key: str | None = None,
        loaded: Current | None = None,
    ) -> dict[str, Any]:
        """Validate and append a seat's action; the response shows the events as it sees them.

        ``loaded`` is the state the caller already read (the API reads it to know who is
        calling); the conditional append makes using it as safe as reading it again."""
        if caller.role != SEAT or caller.seat is None:
            raise Forbidden(
                "not_a_player", "only a seat's token may act (spectators, host and admin may not)"
            )
        seat = caller.seat
        idem = None
        if idempotency_key is not None:
            idem = f"{seat}:{hashlib.sha256(idempotency_key.encode()).hexdigest()}"
            stored = self.store.idempotent(game_id, idem)
            if stored is not None:
                return stored
        try:
            return self._act(game_id, caller, seat, action, expected_version, idem, loaded)
        except VersionConflict:
            # A concurrent request with the same key may have won: answer as it was answered.
            if idem is not None and (stored := self.store.idempotent(game_id, idem)) is not None:
                return stored
            raise

    def _act(
        self,
        game_id: str,
        caller: Caller,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int,
        idem: str | None,
        loaded: Current | None,
    ) -> dict[str, Any]:
        cur = loaded if loaded is not None else self.current(game_id)
        engine.check_shape(cur.game, action)
        if expected_version != cur.match.version:
            raise VersionConflict(cur.match.version)
        version = cur.match.version
        events = engine.decide(cur.game, cur.match, seat, action, Rng.at(cur.seed, version + 1))
        records = self._records(
            cur.seed, version, cur.head, events, seat, dict(action), self.clock()
        )
        response = {
            "version": version + len(records),
            "events": events_for(cur.game, records, caller, reveal=False, config=cur.match.config),
        }
        self._append(cur, records, idem=(idem, json.dumps(response)) if idem else None)
        return response

    def finish(self, game_id: str, expected_version: int) -> bool:
        """The scoring job: append the result if the game still awaits it at that version."""
        cur = self.current(game_id)
        if cur.match.version != expected_version:
            return False
        events = engine.finish(cur.game, cur.match)
        if not events:
            return False
        records = self._records(
            cur.seed, cur.match.version, cur.head, events, None, FINISH, self.clock()
        )
        try:
            self._append(cur, records)
        except VersionConflict:
            return False
        return True

    def undo(self, game_id: str, caller: Caller, to_version: int | None) -> dict[str, Any]:
        if caller.role == SEAT and caller.seat is not None:
            requester: int | str = caller.seat
        elif caller.role == HOST:
            requester = HOST_REQUESTER
        else:
            raise Forbidden("not_a_player", "only a seat or the host may undo")
        raw = self.store.load(game_id, None, base=0, snapshot=False)
        if raw is None:
            raise NotFound(f"no game {game_id}")
        game = self._game(game_id, raw.meta)
        records = raw.records
        match = fold(game, records)
        target = undo_target(
            game,
            match.config.options.get("undo", "turn"),
            requester,
            logged(records),
            to_version,
            int(raw.meta["setup_version"]),
            match.status(game) == engine.FINISHED,
        )
        kept, removed = records[:target], records[target:]
        new_match = fold(game, kept)
        at = self.clock()
        record = {
            "by": "host" if requester == HOST_REQUESTER else f"seat:{requester}",
            "at": iso(at),
            "from_version": match.version,
            "to_version": target,
            "events": [full(r) for r in removed],
        }
        meta = {**self._status_meta(game, new_match, at), "head": kept[-1].hash}
        try:
            self.store.truncate(game_id, match.version, raw.meta["head"], target, record, meta)
        except Conflict as exc:
            raise VersionConflict(exc.current) from exc
        self._remember(game_id, new_match, kept[-1].hash)
        self.jobs.enqueue(engine.follow_ups(game, game_id, new_match))
        return {
            "version": target,
            "undone": events_for(game, removed, caller, reveal=False, config=match.config),
        }

    # ---- history --------------------------------------------------------------------------
    def audit(self, game_id: str, caller: Caller) -> dict[str, Any]:
        cur = self.current(game_id)
        raw = self.store.load(game_id, None, base=0, snapshot=False)
        assert raw is not None
        records = raw.records
        key = chain.chain_key(cur.seed)
        broken = chain.first_break(key, records)
        if broken is None and records and records[-1].hash != raw.meta.get("head"):
            broken = records[-1].version
        reveal = caller.role == ADMIN or cur.match.status(cur.game) == engine.FINISHED
        undone = []
        for u in self.store.undone(game_id):
            recs = [from_full(e) for e in u["events"]]
            shown = (
                [full(r) for r in recs]
                if reveal
                else events_for(cur.game, recs, caller, False, config=cur.match.config)
            )
            undone.append({**u, "events": shown})
        return {
            "chain_ok": broken is None,
            "first_bad_version": broken,
            "head_hash": raw.meta.get("head", ""),
            "events": [full(r) for r in records]
            if reveal
            else [
                {**e, "actor": r.actor, "hash": r.hash}
                for r, e in zip(
                    records,
                    events_for(cur.game, records, caller, False, config=cur.match.config),
                    strict=True,
                )
            ],
            "undone": undone,
        }

    def export(self, game_id: str, caller: Caller) -> dict[str, Any]:
        cur = self.current(game_id)
        if caller.role != ADMIN and cur.match.status(cur.game) != engine.FINISHED:
            raise Forbidden(
                "not_finished", "a game can be exported once it is finished (or by the operator)"
            )
        raw = self.store.load(game_id, None, base=0, snapshot=False)
        assert raw is not None
        return {
            "format": "chronicle-export/1",
            "id": game_id,
            "game": cur.game.id,
            "options": dict(cur.match.config.options),
            "players": [{"name": p.name, "bot": p.bot} for p in cur.match.config.players],
            "seed": cur.seed,
            "seed_commitment": cur.meta["seed_commitment"],
            "created_at": iso(int(cur.meta["created_at"])),
            "head_hash": raw.meta.get("head", ""),
            "events": [full(r) for r in raw.records],
            "undone": self.store.undone(game_id),
        }

    def import_log(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """Replay an exported log through the rules; store it as a new game with new tokens."""
        game = games.get(doc["game"])
        if game is None:
            raise BadAction(f"unknown game {doc['game']!r}", {"game": ["not offered"]})
        try:
            records = [from_full(e) for e in doc["events"]]
            match = replay(game, doc["seed"], records)
        except ReplayError as exc:
            raise ImportRefused(str(exc), {"version": exc.version}) from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise BadAction(f"malformed export: {exc}", {"events": ["malformed"]}) from exc
        if doc.get("head_hash") and doc["head_hash"] != records[-1].hash:
            raise ImportRefused(
                "head_hash does not match the last event", {"version": records[-1].version}
            )
        tokens = [None if p.bot else auth.new_token() for p in match.config.players]
        host_token = auth.new_token()
        seed = doc["seed"]
        meta = self._new_meta(
            game, match, seed, tokens, host_token, records[0].at, _setup_length(records),
            self.clock(),
        )  # fmt: skip
        meta["imported_from"] = str(doc.get("id", ""))
        gid = secrets.token_hex(8)
        self.store.append(gid, 0, "", records, meta)
        for u in doc.get("undone") or []:
            self.store.r.rpush(f"{{g:{gid}}}:undone", json.dumps(u))
        self.store.index(gid, records[0].at)
        self._remember(gid, match, records[-1].hash)
        self.jobs.enqueue(engine.follow_ups(game, gid, match))
        return self._created(gid, game, match.config, tokens, host_token, meta, match.version)

    # ---- internals ------------------------------------------------------------------------
    def _records(
        self,
        seed: str,
        version: int,
        head: str,
        events: Sequence[Event],
        actor: int | None,
        command: Any,
        at: int,
    ) -> list[Recorded]:
        key = chain.chain_key(seed)
        out: list[Recorded] = []
        for i, e in enumerate(events):
            rec = Recorded(
                version + i + 1, e.type, e.seat, at, actor, command if i == 0 else None,
                dict(e.data), "",
            )  # fmt: skip
            head = chain.link(key, head, rec)
            out.append(replace(rec, hash=head))
        return out

    def _created(
        self,
        gid: str,
        game: Game,
        config: Config,
        tokens: Sequence[str | None],
        host_token: str,
        meta: Mapping[str, str],
        version: int,
    ) -> dict[str, Any]:
        return {
            "id": gid,
            "game": game.id,
            "options": dict(config.options),
            "version": version,
            "seats": [
                {"seat": i, "name": p.name, "bot": p.bot, **({"token": t} if t else {})}
                for i, (p, t) in enumerate(zip(config.players, tokens, strict=True))
            ],
            "host_token": host_token,
            "seed_commitment": meta["seed_commitment"],
        }

    def _new_meta(
        self,
        game: Game,
        match: Match,
        seed: str,
        tokens: Sequence[str | None],
        host_token: str,
        created: int,
        setup_version: int,
        updated: int,
    ) -> dict[str, str]:
        """The meta hash of a new game (created or imported): secrets only as hashes."""
        return {
            "game": game.id,
            "seed": seed,
            "seed_commitment": hashlib.sha256(seed.encode()).hexdigest(),
            "tokens": json.dumps([auth.token_hash(t) if t else None for t in tokens]),
            "host": auth.token_hash(host_token),
            "created_at": str(created),
            "setup_version": str(setup_version),
            "config": json.dumps(
                {"options": dict(match.config.options), "seats": seats_doc(match)},
                separators=(",", ":"),
            ),
            **self._status_meta(game, match, updated),
        }

    def _status_meta(self, game: Game, match: Match, at: int) -> dict[str, str]:
        return {
            "status": match.status(game),
            "to_act": json.dumps(list(match.to_act(game))),
            "bots_to_act": json.dumps(
                [s for s in match.to_act(game) if match.config.players[s].bot]
            ),
            "updated_at": str(at),
            **({"result": json.dumps(match.result)} if match.result is not None else {}),
        }

    def _append(
        self, cur: Current, records: Sequence[Recorded], idem: tuple[str, str] | None = None
    ) -> Match:
        match = fold(cur.game, records, cur.match)
        snapshot = None
        crossed = match.version // SNAPSHOT_EVERY > cur.match.version // SNAPSHOT_EVERY
        if crossed or match.status(cur.game) != engine.ACTIVE:  # a finished game loads at once
            snapshot = (match.version, snapshot_blob(cur.game, match, records[-1].hash))
        meta = self._status_meta(cur.game, match, records[-1].at)
        try:
            self.store.append(
                cur.game_id, cur.match.version, cur.head, records, meta, idem, snapshot
            )
        except Conflict as exc:
            raise VersionConflict(exc.current) from exc
        self._remember(cur.game_id, match, records[-1].hash)
        faults.point("after_append")  # tests only: die between the append and the enqueue
        self.jobs.enqueue(engine.follow_ups(cur.game, cur.game_id, match))
        return match


def _setup_length(records: Sequence[Recorded]) -> int:
    """The length of the creation batch (the first command after it starts the play)."""
    for rec in records[1:]:
        if rec.command is not None:
            return rec.version - 1
    return len(records)


def summary_doc(game_id: str, meta: Mapping[str, str]) -> dict[str, Any]:
    """The contract's summary, from the meta hash alone (no fold needed)."""
    config = json.loads(meta["config"])
    doc: dict[str, Any] = {
        "id": game_id,
        "game": meta["game"],
        "options": config["options"],
        "seats": config["seats"],
        "status": meta["status"],
        "version": int(meta["version"]),
        "to_act": json.loads(meta["to_act"]),
        "seed_commitment": meta["seed_commitment"],
        "created_at": iso(int(meta["created_at"])),
        "updated_at": iso(int(meta["updated_at"])),
    }
    if "result" in meta:
        doc["result"] = json.loads(meta["result"])
    return doc


def _config(game: Game, players: Sequence[Mapping[str, Any]], options: Mapping[str, str]) -> Config:
    """A checked configuration, with every option filled in (defaults first)."""
    n = len(players)
    if not game.min_players <= n <= game.max_players:
        raise BadAction(
            f"{game.id} takes {game.min_players}-{game.max_players} players, not {n}",
            {"players": [f"{game.min_players} to {game.max_players} players"]},
        )
    allowed = {**{k: tuple(v) for k, v in game.options.items()}, "undo": POLICIES}
    problems: dict[str, list[str]] = {}
    for name, value in options.items():
        if name not in allowed:
            problems[f"options.{name}"] = [f"unknown option; {game.id} has: {', '.join(allowed)}"]
        elif value not in allowed[name]:
            problems[f"options.{name}"] = [f"must be one of: {', '.join(allowed[name])}"]
    for i, p in enumerate(players):
        bot = p.get("bot")
        if bot is not None and bot not in game.bots:
            problems[f"players.{i}.bot"] = [f"must be one of: {', '.join(game.bots)}"]
    if problems:
        raise BadAction("invalid game options or players", problems)
    chosen = {k: options.get(k, v[0]) for k, v in allowed.items()}
    return Config(game.id, chosen, tuple(Player(p["name"], p.get("bot")) for p in players))
