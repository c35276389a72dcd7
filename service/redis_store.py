"""The Redis event store: one Redis stream per game, appended by Lua scripts.

Keys of a game share the hash tag ``{g:<id>}`` so that they live in one Redis Cluster slot and
every script can declare all of its keys:

- ``{g:ID}:log``     the stream; entry ids are ``<version>-0`` (contiguous from 1), one packed
                     field ``e`` per entry (see "stored form of an event" below);
- ``{g:ID}:meta``    hash: version, head hash, status, to_act, config, seed, token hashes ...;
- ``{g:ID}:snap``    hash: the latest snapshot (``v``, ``blob``: deflated JSON);
- ``{g:ID}:undone``  list: JSON records of truncated events (the audit trail of undo);
- ``{g:ID}:idem:*``  stored responses of idempotent POSTs (with a TTL).

``games:index`` (a sorted set by creation time) lists the games, ``games:public`` the public
ones, ``games:tokens`` (a hash: token hash -> game id) the games' token hashes (``service.store``
says what the list of games reads them for); ``games:live`` (a sorted set:
game id -> when a write last marked it live, ms) the live index of ``service.store``, and
``games:live:filled`` says its one-time backfill is done, ``games:migrated`` which other
one-time backfills are.  They are the only keys shared by all
(on a cluster each lives in a slot of its own; no script touches them with a game's keys: a
write marks the game live with a ZADD of its own before its script; the list's indexes are
written beside the script, as ``games:index`` always was).  The same
class runs on a single Redis and on a Redis Cluster (``service.connections``).  It implements
``service.store.EventStore``; the meta's stored form is ``service.meta``'s.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import redis

from domain import jsontext
from domain.engine import Job
from projections.records import Recorded
from service import connections, metrics
from service import meta as meta_codec
from service.admission import Admission, OverLimit
from service.clocks import DEADLINES
from service.meta import GameMeta, Progress
from service.store import IDEMPOTENCY_TTL, LIVE_GRACE_MS, Conflict, Loaded

INDEX = "games:index"
PUBLIC = "games:public"
TOKENS = "games:tokens"
LIVE = "games:live"
LIVE_FILLED = "games:live:filled"
MIGRATED = "games:migrated"  # a hash: one-time migration name -> when it ended (ms)
MARKS_KEPT = 10_000  # games whose last live mark a process remembers (to skip the next)


def _resource(name: str) -> str:
    return resources.files("service").joinpath(name).read_text(encoding="utf-8")


def _script(name: str) -> str:
    return _resource(f"lua/{name}.lua")


def keys(game_id: str) -> dict[str, str]:
    tag = f"{{g:{game_id}}}"
    return {
        "log": f"{tag}:log",
        "meta": f"{tag}:meta",
        "snap": f"{tag}:snap",
        "undone": f"{tag}:undone",
        "idem": f"{tag}:idem:",
    }


# ---- stored form of an event ------------------------------------------------------------------
#
# One stream field per entry, ``e``, whose value packs the whole record:
#
#     byte 0      the deflate dictionary id (bit 7 set: the hash is not 64 hex digits and is
#                 stored as a length byte and its UTF-8 instead of 32 raw bytes)
#     32 bytes    the hash, raw
#     8 bytes     ``at``, milliseconds since the epoch, big-endian signed
#     the rest    raw deflate, primed with the dictionary, of the compact JSON
#                 ``[type, seat, actor, data]`` (``[..., command]`` on a batch's first event)
#
# Every entry has the same single field, so the stream's listpack stores the field name once
# per node (its master entry), and a game's vocabulary (keys, event types, card names) is in
# the dictionary: an event takes about a fifth of its JSON.  The hashed content is unchanged:
# the chain (projections/chain.py) hashes the canonical JSON of the record, not these bytes.
# Entries of the first format (fields t, s, a, c, d, h, x) are still read.

FIELD = b"e"
DICT_ID = 1
DICT_SHA256 = {1: "b730e2b0a0f40e1f5daf850c11ff1c0f77b1606426c82e80967c5d25084f9de5"}
_HEX_HASH = 0x80
_dicts: dict[int, bytes] = {}
_compressors: dict[int, Any] = {}


def _dictionary(dict_id: int) -> bytes:
    zdict = _dicts.get(dict_id)
    if zdict is None:
        doc = json.loads(_resource(f"event_dict_{dict_id}.json"))
        zdict = "".join(doc["parts"]).encode()
        if hashlib.sha256(zdict).hexdigest() != DICT_SHA256[dict_id]:
            raise RuntimeError(f"event_dict_{dict_id}.json changed: stored logs depend on it")
        _dicts[dict_id] = zdict
    return zdict


def _compressor(dict_id: int) -> Any:
    """A deflate stream primed with the dictionary, copied for each event (cheaper than
    priming a new one)."""
    c = _compressors.get(dict_id)
    if c is None:
        zdict = _dictionary(dict_id)
        c = _compressors[dict_id] = zlib.compressobj(
            6, zlib.DEFLATED, -15, 4, zlib.Z_DEFAULT_STRATEGY, zdict
        )
    return c


def body_json(rec: Recorded) -> bytes:
    """The compact JSON of what a stored event holds besides its hash and time."""
    body: list[Any] = [rec.type, rec.seat, rec.actor, rec.data]
    if rec.command is not None:
        body.append(rec.command)
    return jsontext.compact_bytes(body)


def encode_record(rec: Recorded) -> bytes:
    """The value of a record's stream entry (field ``e``)."""
    c = _compressor(DICT_ID).copy()
    packed = c.compress(body_json(rec)) + c.flush()
    try:
        raw = bytes.fromhex(rec.hash)
        hex_hash = len(raw) == 32 and raw.hex() == rec.hash
    except ValueError:
        hex_hash = False
    if hex_hash:
        head = bytes((DICT_ID,)) + raw
    else:
        text = rec.hash.encode()
        if len(text) > 255:
            raise ValueError("a record hash is at most 255 bytes")
        head = bytes((DICT_ID | _HEX_HASH, len(text))) + text
    return head + rec.at.to_bytes(8, "big", signed=True) + packed


def decode_entry(entry_id: bytes | str, fields: Mapping[Any, Any] | Sequence[Any]) -> Recorded:
    """A stream entry (as redis-py returns it: a dict, or a flat list from a script)."""
    if isinstance(fields, Mapping):
        value = fields.get(FIELD)
        if value is None:
            return _decode_v0(entry_id, fields)
    elif len(fields) == 2 and fields[0] == FIELD:
        value = fields[1]
    else:
        return _decode_v0(entry_id, dict(zip(fields[::2], fields[1::2], strict=True)))
    flags = value[0]
    if flags & _HEX_HASH:
        n = value[1]
        hash_, i = value[2 : 2 + n].decode(), 2 + n
    else:
        hash_, i = value[1:33].hex(), 33
    at = int.from_bytes(value[i : i + 8], "big", signed=True)
    d = zlib.decompressobj(-15, _dictionary(flags & 0x7F))
    body = json.loads(d.decompress(memoryview(value)[i + 8 :]))
    if not d.eof:
        raise ValueError(f"entry {_s(entry_id)}: truncated event")
    eid = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return Recorded(
        version=int(eid[: eid.index("-")]),
        type=body[0],
        seat=body[1],
        at=at,
        actor=body[2],
        command=body[4] if len(body) > 4 else None,
        data=body[3],
        hash=hash_,
    )


def _decode_v0(entry_id: bytes | str, fields: Mapping[Any, Any]) -> Recorded:
    """An entry of the first format: one field per part, the hash as hex."""
    f = {_s(k): _s(v) for k, v in fields.items()}
    x = f.get("x")
    return Recorded(
        version=int(_s(entry_id).split("-", 1)[0]),
        type=f["t"],
        seat=int(f["s"]) if f["s"] else None,
        at=int(f["a"]),
        actor=int(f["c"]) if f["c"] else None,
        command=json.loads(x) if x else None,
        data=json.loads(f["d"]),
        hash=f["h"],
    )


def _s(v: Any) -> str:
    return v.decode() if v.__class__ is bytes else str(v)


# Snapshots are JSON; stored deflated behind a marker byte (a plain JSON blob starts with "{").
_SNAP_DEFLATED = b"\x01"


def encode_snapshot(blob: str) -> bytes:
    return _SNAP_DEFLATED + zlib.compress(blob.encode(), 6)


def decode_snapshot(stored: bytes | str) -> str:
    if isinstance(stored, bytes) and stored[:1] == _SNAP_DEFLATED:
        return zlib.decompress(memoryview(stored)[1:]).decode()
    return _s(stored)


def meta_fields(meta: GameMeta | Progress) -> dict[str, str]:
    """The meta hash fields an append writes (besides version and head)."""
    if isinstance(meta, GameMeta):
        return meta_codec.encode(meta)
    return meta_codec.encode_progress(meta)


def append_args(
    expected_version: int,
    expected_head: str,
    records: Sequence[Recorded],
    meta: GameMeta | Progress,
    idem: tuple[str, str] | None = None,
    snapshot: tuple[int, str] | None = None,
    hooks: bool | None = None,
    admit: Admission | None = None,
    checks: Sequence[Job] = (),
) -> list[Any]:
    """The arguments of append.lua (they do not name the game: its keys do); ``admit``'s
    counters' windows and amounts, then the deadline ``checks`` (their keys follow the
    game's)."""
    args: list[Any] = [expected_version, expected_head, len(records)]
    args += [encode_record(rec) for rec in records]
    head = records[-1].hash if records else expected_head
    fields = meta_fields(meta)
    args += [len(fields), *[x for kv in fields.items() for x in kv], head]
    args += [idem[1], IDEMPOTENCY_TTL] if idem else ["", 0]
    args += [snapshot[0], encode_snapshot(snapshot[1])] if snapshot else ["", ""]
    args.append("" if hooks is None else int(hooks))
    if admit is not None:
        args += [len(admit.keys), *admit.args()]
    elif checks:
        args.append(0)  # no counters
    if checks:
        args += [len(checks), *[x for job in checks for x in (job.version, job.id)]]
    return args


def _decoded(flat: Mapping[str, str]) -> GameMeta | None:
    return meta_codec.decode(flat) if flat else None


class RedisEventStore:
    """``EventStore`` over Redis; every write is one atomic, conditional script call."""

    def __init__(self, client: redis.Redis, deadlines: bool = False) -> None:
        """``deadlines``: this Redis is the queue's too, so an append writes the deadline
        checks it is given in the deadlines' index itself (``service.clocks``)."""
        self.r = client
        # a rate limit's counters are counted in the append (``service.admission``) only on a
        # single Redis: on a cluster their keys are not in the game's slot
        self.admits = isinstance(client, redis.Redis)
        self.indexes_deadlines = deadlines and self.admits
        self._append = connections.script(client, _script("append"))
        self._load = connections.script(client, _script("load"))
        self._truncate = connections.script(client, _script("truncate"))
        self._drop_live = connections.script(client, _script("drop_live"))
        self._marked: dict[str, int] = {}  # game id -> this process's last live mark (ms)

    def _mark(self, game_id: str, progress: Progress) -> None:
        """Before a write that leaves the game live: list it in the live index.  Skipped if
        this process marked it less than half the grace ago (the mark stands until the grace
        is over; ``service.store``), so a game in play costs a ZADD every 30 s, not a move."""
        if not progress.live:
            return
        now = time.time_ns() // 10**6
        if now - self._marked.get(game_id, now - LIVE_GRACE_MS) < LIVE_GRACE_MS // 2:
            return
        self.r.zadd(LIVE, {game_id: now}, gt=True)  # GT: a mark never moves back
        if len(self._marked) >= MARKS_KEPT:
            self._marked.clear()
        self._marked[game_id] = now

    def append(
        self,
        game_id: str,
        expected_version: int,
        expected_head: str,
        records: Sequence[Recorded],
        meta: GameMeta | Progress,
        idem: tuple[str, str] | None = None,
        snapshot: tuple[int, str] | None = None,
        hooks: bool | None = None,
        admit: Admission | None = None,
        checks: Sequence[Job] = (),
    ) -> int:
        """Append ``records`` (versions expected+1..); raise ``Conflict`` if the log moved,
        ``OverLimit`` if a counter of ``admit`` (counted here unless counted already) is over."""
        self._mark(game_id, meta.progress if isinstance(meta, GameMeta) else meta)
        if admit is not None and admit.counted:
            admit = None  # counted by an earlier attempt of the same request
        if admit is not None and not self.admits:
            raise ValueError("counters in another slot than the game's (service.admission)")
        if checks and not self.indexes_deadlines:
            raise ValueError("the deadlines' index is not in this store's Redis")
        args = append_args(
            expected_version, expected_head, records, meta, idem, snapshot, hooks, admit, checks
        )
        version = self.append_encoded(game_id, idem[0] if idem else "", args, admit, checks)
        metrics.appended(len(records))
        return version

    def append_encoded(
        self,
        game_id: str,
        idem_key: str,
        args: Sequence[Any],
        admit: Admission | None = None,
        checks: Sequence[Job] = (),
    ) -> int:
        """The append script with arguments from ``append_args`` (the benchmark encodes
        them ahead of time to time the script alone)."""
        k = keys(game_id)
        script_keys = [k["log"], k["meta"], k["idem"] + idem_key, k["snap"]]
        if admit is not None:
            script_keys += admit.keys
            admit.counted = True  # sent: counted, whatever the reply (never twice)
        if checks:
            script_keys.append(DEADLINES)
        ok, version = self._append(keys=script_keys, args=args)
        if ok != 1:
            if ok == -1 and admit is not None:
                raise OverLimit(admit.refusal(int(version) - 1))
            raise Conflict(int(version))
        return int(version)

    def load(
        self, game_id: str, target: int | None = None, base: int = 0, snapshot: bool = True
    ) -> Loaded | None:
        """Meta and the entries from ``base`` (or the snapshot, or 1) to ``target`` inclusive."""
        k = keys(game_id)
        raw = self._load(
            keys=[k["meta"], k["snap"], k["log"]],
            args=["" if target is None else target, base, 1 if snapshot else 0],
        )
        if not raw:
            return None
        flat, blob, entries = raw
        pairs = iter(flat)
        meta = meta_codec.decode({_s(a): _s(b) for a, b in zip(pairs, pairs, strict=True)})
        snap = decode_snapshot(blob) if blob else None
        return Loaded(meta, snap, [decode_entry(i, f) for i, f in entries])

    def meta(self, game_id: str) -> GameMeta | None:
        return _decoded({_s(a): _s(b) for a, b in self.r.hgetall(keys(game_id)["meta"]).items()})

    def read(self, game_id: str, after: int, limit: int) -> list[Recorded]:
        # redis-py types a response as "sync or async"; this client is sync.
        entries: Any = self.r.xrange(keys(game_id)["log"], f"{after + 1}-0", "+", count=limit)
        return [decode_entry(i, f) for i, f in entries]

    def wait(self, game_id: str, after: int, timeout_ms: int) -> bool:
        """Block up to ``timeout_ms`` until an event after ``after`` exists (XREAD BLOCK)."""
        log = keys(game_id)["log"]
        got = self.r.xread({log: f"{after}-0"}, count=1, block=max(1, timeout_ms))
        return bool(got)

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
        self._mark(game_id, progress)
        k = keys(game_id)
        fields = {**meta_codec.encode_progress(progress), "head": head}
        args: list[Any] = [expected_version, expected_head, to_version, json.dumps(record)]
        args += [len(fields), *[x for kv in fields.items() for x in kv]]
        ok, version = self._truncate(keys=[k["log"], k["meta"], k["undone"], k["snap"]], args=args)
        if not ok:
            raise Conflict(int(version))

    def undone(self, game_id: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.r.lrange(keys(game_id)["undone"], 0, -1)]

    def memory(self) -> tuple[int, int]:
        """``used_memory`` and ``maxmemory``; on a cluster, of the fullest node."""
        info = self.r.info("memory")
        nodes = [info] if "used_memory" in info else [v for v in info.values() if type(v) is dict]
        best = (0, 0)
        for node in nodes:
            used, limit = int(node.get("used_memory", 0)), int(node.get("maxmemory", 0))
            if limit and (not best[1] or used / limit > best[0] / best[1]):
                best = (used, limit)
            elif not best[1]:
                best = (max(best[0], used), 0)
        return best

    def last_undone(self, game_id: str) -> dict[str, Any] | None:
        raw = self.r.lindex(keys(game_id)["undone"], -1)
        return json.loads(raw) if raw is not None else None

    def add_undone(self, game_id: str, records: Sequence[Mapping[str, Any]]) -> None:
        if records:
            self.r.rpush(keys(game_id)["undone"], *[json.dumps(u) for u in records])

    def idempotent(self, game_id: str, key: str) -> dict[str, Any] | None:
        raw = self.r.get(keys(game_id)["idem"] + key)
        return json.loads(raw) if raw else None

    def index(
        self, game_id: str, created_ms: int, public: bool = False, tokens: Sequence[str] = ()
    ) -> None:
        pipe = self.r.pipeline(transaction=False)  # one key each: any slot on a cluster
        pipe.zadd(INDEX, {game_id: created_ms})
        if public:
            pipe.zadd(PUBLIC, {game_id: created_ms})
        if tokens:
            pipe.hset(TOKENS, mapping=dict.fromkeys(tokens, game_id))
        pipe.execute()

    def index_tokens(self, game_id: str, added: Sequence[str], removed: Sequence[str] = ()) -> None:
        if added:
            self.r.hset(TOKENS, mapping=dict.fromkeys(added, game_id))
        if removed:
            self.r.hdel(TOKENS, *removed)

    def game_of(self, token_hash: str) -> str | None:
        found = self.r.hget(TOKENS, token_hash)
        return _s(found) if found is not None else None

    def list_ids(self, start: int, count: int, public: bool = False) -> list[str]:
        """Game ids, newest first."""
        key = PUBLIC if public else INDEX
        return [_s(x) for x in self.r.zrevrange(key, start, start + count - 1)]

    def count(self, public: bool = False) -> int:
        return int(self.r.zcard(PUBLIC if public else INDEX))

    def rank(self, game_id: str, created_ms: int) -> int | None:
        pipe = self.r.pipeline(transaction=False)
        pipe.zscore(PUBLIC, game_id)
        pipe.zcount(PUBLIC, f"({created_ms}", "+inf")
        pipe.zrangebyscore(PUBLIC, created_ms, created_ms)  # ties: rarely more than none
        listed, newer, ties = pipe.execute()
        if listed is not None:
            return None
        return int(newer) + sum(1 for t in ties if _s(t) > game_id)

    def metas(self, game_ids: Sequence[str]) -> list[GameMeta | None]:
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            pipe.hgetall(keys(gid)["meta"])
        return [_decoded({_s(a): _s(b) for a, b in m.items()}) for m in pipe.execute()]

    def migrated(self, name: str) -> bool:
        return bool(self.r.hexists(MIGRATED, name))

    def mark_migrated(self, name: str) -> None:
        self.r.hset(MIGRATED, name, str(time.time_ns() // 10**6))

    def live(self) -> dict[str, int] | None:
        if not self.r.exists(LIVE_FILLED):
            return None
        marks: Any = self.r.zrange(LIVE, 0, -1, withscores=True)  # [(member, score)]
        return {_s(g): int(ms) for g, ms in marks}

    def fill_live(self, game_ids: Sequence[str], done: bool) -> None:
        if game_ids:
            now = time.time_ns() // 10**6
            self.r.zadd(LIVE, dict.fromkeys(game_ids, now), gt=True)
        if done:
            self.r.set(LIVE_FILLED, str(time.time_ns() // 10**6))

    def drop_live(self, marks: Mapping[str, int]) -> None:
        if marks:
            self._drop_live(keys=[LIVE], args=[x for kv in marks.items() for x in kv])

    def ping(self) -> None:
        self.r.ping()
