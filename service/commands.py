"""The write commands: create, act, finish, undo, import.  The one write path of the service.

HTTP handlers and RQ workers both call these, so a bot's move goes through exactly the checks a
player's does:

    command -> load state (cache / snapshot + tail) -> engine.decide -> records chained by hash
      -> conditional append (expected version and head) -> follow-up jobs -> response
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain import engine, games, jsontext, seating
from domain import table as tables
from domain.engine import Config, Event, Game, Job, Match
from domain.errors import BadAction, Forbidden, Refused, StateConflict, UndoRefused
from domain.rng import Rng
from domain.undo import HOST as HOST_REQUESTER
from domain.undo import undo_target
from projections import chain
from projections.fold import SNAPSHOT_EVERY, fold, logged, snapshot_blob
from projections.records import CREATE, FINISH, Recorded, full, iso
from projections.replay import ReplayError, replay
from projections.views import HOST, SEAT, Caller, events_for, revealed, seats_doc
from service import auth, chat, clocks, faults, imports, invisible, listing
from service.admission import Admission
from service.budget import NEW_GAME, WRITE, Budget
from service.errors import IdempotencyKeyReused, ImportRefused, VersionConflict
from service.game_config import DEFAULT_UNDO, checked_config
from service.hooks import Hooks, NoHooks
from service.jobs import JobQueue
from service.loading import Current, Loader, rules_of
from service.meta import GameMeta, Progress, follow_ups_of
from service.preconditions import check_if_match
from service.store import Conflict, EventStore

# CHRONICLE_CHOSEN_SEEDS: where a creator may choose the seed (and so know every hidden card)
ANY_SEED = "any"  # everywhere (the default: tests and reproducible games need it)
SOLO_SEEDS = "solo"  # only where every other seat is a bot
CHOSEN_SEEDS = (ANY_SEED, SOLO_SEEDS)


def chained(
    seed: str,
    version: int,
    head: str,
    events: Sequence[Event],
    actor: int | None,
    command: Any,
    at: int,
) -> list[Recorded]:
    """The records of one command's events, versions ``version + 1 ..``, each hash-linked to
    the one before (``head`` is the hash at ``version``)."""
    key = chain.chain_key(seed)
    out: list[Recorded] = []
    for i, e in enumerate(events):
        fields = (version + i + 1, e.type, e.seat, at, actor, command if i == 0 else None)
        data = dict(e.data)
        head = chain.link(key, head, Recorded(*fields, data, ""))
        out.append(Recorded(*fields, data, head))  # not replace(): it inspects every field
    return out


def setup_length(records: Sequence[Recorded]) -> int:
    """The length of the creation batch (the first command after it starts the play)."""
    for rec in records[1:]:
        if rec.command is not None:
            return rec.version - 1
    return len(records)


def progress(game: Game, match: Match, at: int, jobs: list[Job] | None = None) -> Progress:
    """The meta's part that every write changes, including the follow-ups the write leaves
    (``jobs``: ``engine.follow_ups`` of this match, if the caller has them already)."""
    return Progress(
        status=match.status(game),
        to_act=match.to_act(game),
        follow_ups=follow_ups_of(engine.follow_ups(game, "", match) if jobs is None else jobs),
        updated_at=at,
        result=match.result,
        seats=tuple(seats_doc(match)),
        deadlines={str(s): ms for s, ms in match.table.deadlines().items()} if match.table else {},
        clocks=clocks.state_of(match.table),
    )


def verify_export(
    doc: Mapping[str, Any], now: int | None = None
) -> tuple[Game, list[Recorded], Match]:
    """The import validation of the log (``POST /games/import``, ``chronicle restore``,
    ``chronicle replay``): ids, seats and times (``service/imports.py``; ``now``: the time
    they may not be after, the wall clock by default), then every batch's command replayed
    through the rules with the revealed seed, the hash chain and the head.  Raises
    ``BadAction`` (malformed) or ``ImportRefused`` (tampered or illegal, naming the version
    or the field)."""
    game = games.get(doc["game"])
    if game is None:
        raise BadAction(f"unknown game {doc['game']!r}", {"game": ["not offered"]})
    now = time.time_ns() // 1_000_000 if now is None else now
    try:
        records = imports.check_log(doc, game.max_players, now)
        match = replay(game, doc["seed"], records)
    except ReplayError as exc:
        raise ImportRefused(str(exc), {"version": exc.version}) from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise BadAction(f"malformed export: {exc}", {"events": ["malformed"]}) from exc
    if doc.get("head_hash") and doc["head_hash"] != records[-1].hash:
        raise ImportRefused(
            "head_hash does not match the last event", {"version": records[-1].version}
        )
    for rec in records:  # the names, checked as a creation or a join checks them
        if rec.type in (engine.GAME_CREATED, tables.SEAT_JOINED):
            named = rec.data["players"] if rec.type == engine.GAME_CREATED else [rec.data]
            for p in named:
                if isinstance(p.get("name"), str) and (why := invisible.problem(p["name"])):
                    v = rec.version
                    raise ImportRefused(f"version {v}: a name {why}", {"version": v})
    return game, records, match


def new_meta(
    game: Game,
    match: Match,
    records: Sequence[Recorded],
    seed: str,
    tokens: Sequence[str | None],
    host_token: str,
    created: int,
    setup_version: int,
    updated: int,
    imported_from: str | None = None,
    invitations: Sequence[str | None] = (),
    seed_chosen: bool = False,
) -> GameMeta:
    """The meta of a new game (created or imported): secrets only as hashes."""
    return GameMeta(
        game=game.id,
        seed=seed,
        seed_commitment=hashlib.sha256(seed.encode()).hexdigest(),
        tokens=tuple(auth.token_hash(t) if t else None for t in tokens),
        host=auth.token_hash(host_token),
        created_at=created,
        setup_version=setup_version,
        options=dict(match.config.options),
        seats=tuple(seats_doc(match)),
        progress=progress(game, match, updated),
        version=match.version,
        head=records[-1].hash,
        imported_from=imported_from,
        table=dict(match.config.table) if match.config.table else None,
        invitations=tuple(invitations),
        seed_chosen=seed_chosen,
        players=match.table.players if match.table and any(match.table.players) else (),
    )


class Commands:
    def __init__(
        self,
        store: EventStore,
        jobs: JobQueue,
        loader: Loader,
        clock: Callable[[], int],
        hooks: Hooks | None = None,
        budget: Budget | None = None,
        chosen_seeds: str = ANY_SEED,
    ) -> None:
        self.store = store
        self.chosen_seeds = chosen_seeds
        self.jobs = jobs
        self.loader = loader
        self.clock = clock
        self.hooks: Hooks = hooks or NoHooks()  # clocks and notifications (service.hooks)
        self.budget = budget or Budget(store)
        # an append writes the checks of the turn deadlines it begins (service.clocks) where
        # the store can; the clocks' hook then leaves them to it (build_chronicle)
        self.folds_checks = store.indexes_deadlines

    def create(
        self,
        game_id: str | None,
        game_name: str,
        players: Sequence[Mapping[str, Any]],
        options: Mapping[str, str] | None,
        seed: str | None,
        table: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``table``: the table section of ``GameCreated`` (open seats, clock, ...), checked
        by the caller (``service.lobby.table_section``); None for a table of named seats."""
        game = games.get(game_name)
        if game is None:
            raise BadAction(
                f"unknown game {game_name!r}", {"game": [f"one of: {', '.join(games.GAMES)}"]}
            )
        config = checked_config(game, players, options or {}, table)
        open_seats = set((table or {}).get("open") or ())
        chosen = seed is not None
        if chosen:
            self._check_chosen_seed(config, open_seats)
        self.budget.check(NEW_GAME)
        seed = seed if seed is not None else secrets.token_hex(32)
        events = engine.create(game, config, Rng.at(seed, 1))
        tokens = [
            None if p.bot or s in open_seats else auth.new_token()
            for s, p in enumerate(config.players)
        ]
        invitations = {s: auth.new_invitation() for s in sorted(open_seats)}
        hashes = [
            auth.token_hash(invitations[s]) if s in invitations else None for s in range(config.n)
        ]
        host_token = auth.new_token()
        created = self.clock()
        records = chained(seed, 0, "", events, None, CREATE, created)
        match = fold(game, records)
        meta = new_meta(
            game, match, records, seed, tokens, host_token, created, len(records), created,
            invitations=hashes if invitations else (), seed_chosen=chosen,
        )  # fmt: skip
        for _ in range(5):
            gid = game_id or secrets.token_hex(8)
            checks = self._checks(gid, match, records)
            try:
                self.store.append(gid, 0, "", records, meta, checks=checks)
                break
            except Conflict:
                if game_id:
                    raise
        else:  # pragma: no cover - 64-bit id collisions five times in a row
            raise RuntimeError("could not allocate a game id")
        listing.index(self.store, gid, meta)
        self._started(gid, game, match, records[-1].hash, meta)
        self.hooks.appended(Current(gid, meta, game, match, records[-1].hash), match, records)
        out = _created(gid, game, config, tokens, host_token, meta, match.version)
        if table is not None:
            out["seats"] = [
                {"seat": s, "open": True} if s in open_seats else doc
                for s, doc in enumerate(out["seats"])
            ]
            out["invitations"] = [{"seat": s, "code": c} for s, c in invitations.items()]
        return out

    def _check_chosen_seed(self, config: Config, open_seats: set[int]) -> None:
        """``CHRONICLE_CHOSEN_SEEDS=solo``: a chosen seed tells its chooser every hidden card,
        so it is refused where a seat besides the creator's own (one named person) is a
        person or open: an open seat is always someone else's.  An import is never refused:
        it brings its seed in its document, it does not choose one."""
        people = sum(1 for s, p in enumerate(config.players) if s not in open_seats and not p.bot)
        if self.chosen_seeds == SOLO_SEEDS and (open_seats or people > 1):
            raise BadAction(
                "this server takes a chosen seed only at a table of one person and bots: "
                "whoever chooses the seed can know every hidden card",
                {"seed": ["not allowed with another person or an open seat"]},
            )

    def act(
        self,
        game_id: str,
        caller: Caller,
        action: Mapping[str, Any],
        expected_version: int,
        idempotency_key: str | None = None,
        loaded: Current | None = None,
        by_bot: bool = False,
        if_match: str | None = None,
        admit: Admission | None = None,
    ) -> dict[str, Any]:
        """Validate and append a seat's action; the response shows the events as it sees them.

        ``loaded`` is the state the caller already read (the API reads it to know who is
        calling); the conditional append makes using it as safe as reading it again.
        ``by_bot``: the bot job plays the seat (a person may not act for a seat a bot plays,
        and a move against a version before the seat's timeout is ``turn_timed_out``).
        ``if_match`` (an ETag) must name the current head (412 otherwise).  A reused
        idempotency key replays its first answer only while the log still holds what that
        answer appended (an undo may have removed it: 422 ``idempotency_key_reused``)."""
        if caller.role != SEAT or caller.seat is None:
            raise Forbidden(
                "not_a_player", "only a seat's token may act (spectators, host and admin may not)"
            )
        seat = caller.seat
        idem = None
        if idempotency_key is not None:
            idem = f"{seat}:{hashlib.sha256(idempotency_key.encode()).hexdigest()}"
        try:
            return self._act(
                game_id, caller, seat, action, expected_version, idem, loaded, by_bot, if_match,
                admit,
            )  # fmt: skip
        except Refused as refused:
            # The key's stored answer, if it has one, is the answer, whatever this attempt
            # met: a retry after a success finds the log moved on (or, on a process that
            # has not seen the success, the append script finds the key answered: a
            # conflict), a concurrent request with the same key may have won.  Read only
            # after a refusal: a move with a new key is one Redis round trip, as without.
            if idem is not None and (stored := self.store.idempotent(game_id, idem)) is not None:
                return self._replayed(game_id, stored)
            if isinstance(refused, VersionConflict) and not by_bot:
                self._refuse_if_timed_out(game_id, seat, expected_version)
            raise

    def _refuse_if_timed_out(self, game_id: str, seat: int, expected_version: int) -> None:
        """A move against a version before the seat's own timeout: ``turn_timed_out``."""
        for rec in self.store.read(game_id, max(0, expected_version), 1000):
            if rec.type == tables.TURN_TIMED_OUT and rec.seat == seat:
                raise StateConflict(
                    "turn_timed_out",
                    f"seat {seat}'s time ran out at version {rec.version}; a bot played the turn",
                    {"seat": seat, "timed_out_at": rec.version},
                )

    def _replayed(self, game_id: str, stored: dict[str, Any]) -> dict[str, Any]:
        """A stored idempotent answer, if the log still holds the head it appended.

        Stored answers are ``{"response", "version", "head"}`` (older ones, the bare
        response, cannot be checked and are refused)."""
        response, version, head = stored.get("response"), stored.get("version"), stored.get("head")
        if isinstance(response, dict) and isinstance(version, int) and isinstance(head, str):
            at = self.store.read(game_id, version - 1, 1)
            if at and at[0].version == version and at[0].hash == head:
                return response
        raise IdempotencyKeyReused(
            "this Idempotency-Key answered a move that is no longer in the log (it was undone); "
            "use a new key",
            {"Idempotency-Key": ["reused after the log changed"]},
        )

    def _act(
        self,
        game_id: str,
        caller: Caller,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int,
        idem: str | None,
        loaded: Current | None,
        by_bot: bool = False,
        if_match: str | None = None,
        admit: Admission | None = None,
    ) -> dict[str, Any]:
        cur = loaded if loaded is not None else self.loader.current(game_id)
        checked = engine.check_shape(cur.game, action)
        self.budget.check(WRITE)
        if expected_version != cur.match.version:
            raise VersionConflict(cur.match.version)
        check_if_match(if_match, cur.match.version, cur.head)
        if not by_bot and cur.match.table is not None:
            seating.check_person(cur.match, seat)
        version = cur.match.version
        rng = Rng.at(cur.seed, version + 1)
        events = engine.decide_checked(cur.game, cur.match, seat, checked, rng)
        records = chained(cur.seed, version, cur.head, events, seat, dict(action), self.clock())
        response = {
            "version": version + len(records),
            "events": events_for(cur.game, records, caller, reveal=False, config=cur.match.config),
        }
        answer = None  # the key and the answer it keeps, made only for a move with a key
        if idem:
            bound = {"response": response, "version": records[-1].version, "head": records[-1].hash}
            answer = (idem, jsontext.compact_bytes(bound).decode())
        self._append(cur, records, idem=answer, admit=admit)
        return response

    def finish(self, game_id: str, expected_version: int) -> bool:
        """The scoring job: append the result if the game still awaits it at that version."""
        cur = self.loader.current(game_id)
        if cur.match.version != expected_version:
            return False
        events = engine.finish(cur.game, cur.match)
        if not events:
            return False
        records = chained(cur.seed, cur.match.version, cur.head, events, None, FINISH, self.clock())
        try:
            self._append(cur, records)
        except VersionConflict:
            return False
        return True

    def append_table(
        self,
        cur: Current,
        events: Sequence[Event],
        actor: int | None,
        command: Mapping[str, Any],
        tokens: Sequence[str | None] | None = None,
        at: int | None = None,
        idem: tuple[str, Mapping[str, Any]] | None = None,
        changes: Mapping[str, Any] | None = None,
    ) -> Match:
        """Append a table command's events (``domain.seating``) through the one write path;
        ``tokens``: the seats' token hashes when they change with it (a join, a leave);
        ``changes``: other fields of the meta it changes (a claim's ``players``);
        ``at``: the time the command was decided at (a timeout), else now;
        ``idem``: (the idempotency record's key, the answer it replays), bound to the head
        this append makes, as an action's is.  Under the storage budget's write mark, like
        every write that grows the log."""
        self.budget.check(WRITE)
        when = self.clock() if at is None else at
        records = chained(cur.seed, cur.match.version, cur.head, events, actor, dict(command), when)
        meta = replace(cur.meta, tokens=tuple(tokens)) if tokens is not None else None
        if changes:
            meta = replace(meta or cur.meta, **changes)
        bound = None
        if idem is not None:
            head = {"version": records[-1].version, "head": records[-1].hash}
            bound = (idem[0], json.dumps({"response": dict(idem[1]), **head}))
        old = {h for h in cur.meta.tokens if h}
        new = old if tokens is None else {h for h in tokens if h}
        if new - old:  # before the append: a seat never misses its own unlisted game
            self.store.index_tokens(cur.game_id, sorted(new - old))
        match = self._append(cur, records, idem=bound, whole=meta)
        if old - new:  # a seat left: its entry goes (the list checks the meta anyway)
            self.store.index_tokens(cur.game_id, (), sorted(old - new))
        return match

    def idempotent(self, game_id: str, idem: str) -> dict[str, Any] | None:
        """The answer stored under ``idem`` if the log still holds what it appended (None:
        no answer stored; 422 ``idempotency_key_reused``: it was undone)."""
        stored = self.store.idempotent(game_id, idem)
        return None if stored is None else self._replayed(game_id, stored)

    def undo(
        self, game_id: str, caller: Caller, to_version: int | None, if_match: str | None = None
    ) -> dict[str, Any]:
        """Truncate the log (policy: the game's ``undo`` option, ``domain/undo.py``); with
        ``if_match``, only if the head is the one it names."""
        if caller.role == SEAT and caller.seat is not None:
            requester: int | str = caller.seat
        elif caller.role == HOST:
            requester = HOST_REQUESTER
        else:
            raise Forbidden("not_a_player", "only a seat or the host may undo")
        meta, records = self.loader.log(game_id)
        check_if_match(if_match, meta.version, meta.head)
        game = rules_of(game_id, meta.game)
        match = fold(game, records)
        if requester != HOST_REQUESTER and match.bot(int(requester)):
            raise UndoRefused("played_by_bot", f"seat {requester} is played by a bot")
        floor = match.table.floor if match.table is not None else 0
        target = undo_target(
            game,
            match.config.options.get("undo", DEFAULT_UNDO),
            requester,
            logged(records),
            to_version,
            max(meta.setup_version, floor),  # never across a join, a timeout, ...
            revealed(match.status(game)),
        )
        kept, removed = records[:target], records[target:]
        new_match = fold(game, kept)
        at = self.clock()
        record: dict[str, Any] = {
            "by": "host" if requester == HOST_REQUESTER else f"seat:{requester}",
            "at": iso(at),
            "from_version": match.version,
            "to_version": target,
            "events": [full(r) for r in removed],
        }
        # The undo trail's own chain (a concurrent undo fails the conditional truncate below);
        # after a legacy import's unsigned records it starts again from the genesis.
        last = self.store.last_undone(game_id)
        prev = str(last["hash"]) if last and "hash" in last else chain.GENESIS
        record["hash"] = chain.link_undo(chain.chain_key(meta.seed), prev, record)
        head = kept[-1].hash
        try:
            self.store.truncate(
                game_id, match.version, meta.head, target, head, record,
                progress(game, new_match, at),
            )  # fmt: skip
        except Conflict as exc:
            raise VersionConflict(exc.current) from exc
        self._started(game_id, game, new_match, kept[-1].hash, meta)
        self.hooks.undone(Current(game_id, meta, game, new_match, head), target)
        return {
            "version": target,
            "undone": events_for(game, removed, caller, reveal=False, config=match.config),
        }

    def import_log(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """Check an exported document whole (``service/imports.py``: ids, times, the undo
        trail and its chain, the chat lines; the rules by replay), then store it as a new game
        with new tokens.  Nothing is stored unless every check passed."""
        now = self.clock()
        game, records, match = verify_export(doc, now)
        seed = doc["seed"]
        setup = setup_length(records)
        seats = len(match.config.players)
        undone = imports.check_undone(doc.get("undone") or [], records, seed, seats, setup, now)
        lines = imports.check_chat(doc.get("chat") or [], seats, now)
        self.budget.check(NEW_GAME)
        tokens = [None if p.bot else auth.new_token() for p in match.config.players]
        host_token = auth.new_token()
        meta = new_meta(
            game, match, records, seed, tokens, host_token, records[0].at,
            setup, now, imported_from=doc["id"], seed_chosen=True,
        )  # fmt: skip
        unsigned = imports.unsigned_prefix(undone)  # a legacy trail: all, else none
        meta = replace(meta, verified=imports.verified(unsigned), unsigned_undos=unsigned)
        gid = secrets.token_hex(8)
        self.store.append(gid, 0, "", records, meta)
        self.store.add_undone(gid, undone)
        chat.restore_into(self.store, gid, lines)
        listing.index(self.store, gid, meta)
        self._started(gid, game, match, records[-1].hash, meta)
        return _created(gid, game, match.config, tokens, host_token, meta, match.version)

    def _started(self, game_id: str, game: Game, match: Match, head: str, meta: GameMeta) -> None:
        """After a write that did not go through ``_append``: cache it, enqueue what follows."""
        self.loader.remember(game_id, match, head, replace(meta, version=match.version, head=head))
        self.jobs.enqueue(engine.follow_ups(game, game_id, match))

    def _checks(self, game_id: str, match: Match, records: Sequence[Recorded]) -> list[Job]:
        """The deadline checks of the turns ``records`` begin, for the append to write where
        the store can (else the clocks' hook writes them after it)."""
        return clocks.began(game_id, match, records[-1].at) if self.folds_checks else []

    def _append(
        self,
        cur: Current,
        records: Sequence[Recorded],
        idem: tuple[str, str] | None = None,
        whole: GameMeta | None = None,
        admit: Admission | None = None,
    ) -> Match:
        """``whole``: the game's meta to write whole (a join's new tokens), else the progress."""
        match = fold(cur.game, records, cur.match)
        snapshot = None
        crossed = match.version // SNAPSHOT_EVERY > cur.match.version // SNAPSHOT_EVERY
        if crossed or match.status(cur.game) != engine.ACTIVE:  # a finished game loads at once
            snapshot = (match.version, snapshot_blob(cur.game, match, records[-1].hash))
        jobs = engine.follow_ups(cur.game, cur.game_id, match)
        now = progress(cur.game, match, records[-1].at, jobs)
        written: GameMeta | Progress = now if whole is None else replace(whole, progress=now)
        checks = self._checks(cur.game_id, match, records)
        try:
            self.store.append(
                cur.game_id, cur.match.version, cur.head, records, written, idem, snapshot,
                hooks=cur.meta.hooks,  # a webhook registered since cur was read: a conflict
                admit=admit, checks=checks,
            )  # fmt: skip
        except Conflict as exc:
            raise VersionConflict(exc.current) from exc
        head = records[-1].hash
        kept = cur.meta if whole is None else whole
        self.loader.remember(cur.game_id, match, head, kept.moved(match.version, head, now))
        faults.point("after_append")  # tests only: die between the append and the enqueue
        self.jobs.enqueue(jobs)
        self.hooks.appended(cur, match, records)
        return match


def _created(
    gid: str,
    game: Game,
    config: Config,
    tokens: Sequence[str | None],
    host_token: str,
    meta: GameMeta,
    version: int,
) -> dict[str, Any]:
    """The creation response: each human seat's token and the host token, shown once."""
    return {
        "id": gid,
        "game": game.id,
        "options": dict(config.options),
        "version": version,
        "seats": [
            {"seat": i, **p.doc(), **({"token": t} if t else {})}
            for i, (p, t) in enumerate(zip(config.players, tokens, strict=True))
        ],
        "host_token": host_token,
        "seed_commitment": meta.seed_commitment,
    }
