"""The event store: one Redis stream per game, appended by Lua scripts.

Keys of a game share the hash tag ``{g:<id>}`` so that they live in one Redis Cluster slot and
every script can declare all of its keys:

- ``{g:ID}:log``     the stream; entry ids are ``<version>-0`` (contiguous from 1);
- ``{g:ID}:meta``    hash: version, head hash, status, to_act, config, seed, token hashes ...;
- ``{g:ID}:snap``    hash: the latest snapshot (``v``, ``blob``);
- ``{g:ID}:undone``  list: JSON records of truncated events (the audit trail of undo);
- ``{g:ID}:idem:*``  stored responses of idempotent POSTs (with a TTL).

``games:index`` (a sorted set by creation time) lists the games; it is the only key shared by all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis

from projections.records import Recorded

INDEX = "games:index"
IDEMPOTENCY_TTL = 24 * 3600


def _script(name: str) -> str:
    return resources.files("service").joinpath(f"lua/{name}.lua").read_text()


def keys(game_id: str) -> dict[str, str]:
    tag = f"{{g:{game_id}}}"
    return {
        "log": f"{tag}:log",
        "meta": f"{tag}:meta",
        "snap": f"{tag}:snap",
        "undone": f"{tag}:undone",
        "idem": f"{tag}:idem:",
    }


def encode_record(rec: Recorded) -> list[str]:
    """Stream fields of a record (compact: one-letter names, empty for None)."""
    fields = [
        "t", rec.type,
        "s", "" if rec.seat is None else str(rec.seat),
        "a", str(rec.at),
        "c", "" if rec.actor is None else str(rec.actor),
        "d", json.dumps(rec.data, separators=(",", ":"), ensure_ascii=False),
        "h", rec.hash,
    ]  # fmt: skip
    if rec.command is not None:
        fields += ["x", json.dumps(rec.command, separators=(",", ":"), ensure_ascii=False)]
    return fields


def decode_entry(entry_id: bytes | str, fields: Mapping[Any, Any] | Sequence[Any]) -> Recorded:
    if not isinstance(fields, Mapping):
        fields = dict(zip(fields[::2], fields[1::2], strict=True))
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
    return v.decode() if isinstance(v, bytes) else str(v)


@dataclass(frozen=True)
class Loaded:
    """A raw read: the meta hash, a snapshot blob (or None) and entries from some base."""

    meta: dict[str, str]
    snapshot: str | None
    records: list[Recorded]


class Conflict(Exception):
    """The log moved on: the expected version (or head) is no longer current."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class EventStore:
    """Narrow interface over Redis; every write is one atomic, conditional script call."""

    def __init__(self, client: redis.Redis) -> None:
        self.r = client
        self._append = client.register_script(_script("append"))
        self._load = client.register_script(_script("load"))
        self._truncate = client.register_script(_script("truncate"))

    def append(
        self,
        game_id: str,
        expected_version: int,
        expected_head: str,
        records: Sequence[Recorded],
        meta: Mapping[str, str],
        idem: tuple[str, str] | None = None,
        snapshot: tuple[int, str] | None = None,
    ) -> int:
        """Append ``records`` (versions expected+1..); raise ``Conflict`` if the log moved."""
        k = keys(game_id)
        args: list[Any] = [expected_version, expected_head, len(records)]
        for rec in records:
            fields = encode_record(rec)
            args += [len(fields) // 2, *fields]
        head = records[-1].hash if records else expected_head
        args += [len(meta), *[x for kv in meta.items() for x in kv], head]
        args += [idem[1], IDEMPOTENCY_TTL] if idem else ["", 0]
        args += [snapshot[0], snapshot[1]] if snapshot else ["", ""]
        idem_key = k["idem"] + (idem[0] if idem else "")
        ok, version = self._append(keys=[k["log"], k["meta"], idem_key, k["snap"]], args=args)
        if not ok:
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
        meta = {_s(a): _s(b) for a, b in zip(flat[::2], flat[1::2], strict=True)}
        return Loaded(meta, _s(blob) if blob else None, [decode_entry(i, f) for i, f in entries])

    def meta(self, game_id: str) -> dict[str, str]:
        return {_s(a): _s(b) for a, b in self.r.hgetall(keys(game_id)["meta"]).items()}

    def read(self, game_id: str, after: int, limit: int) -> list[Recorded]:
        entries = self.r.xrange(keys(game_id)["log"], f"{after + 1}-0", "+", count=limit)
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
        record: Mapping[str, Any],
        meta: Mapping[str, str],
    ) -> None:
        k = keys(game_id)
        args: list[Any] = [expected_version, expected_head, to_version, json.dumps(record)]
        args += [len(meta), *[x for kv in meta.items() for x in kv]]
        ok, version = self._truncate(keys=[k["log"], k["meta"], k["undone"], k["snap"]], args=args)
        if not ok:
            raise Conflict(int(version))

    def undone(self, game_id: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.r.lrange(keys(game_id)["undone"], 0, -1)]

    def idempotent(self, game_id: str, key: str) -> dict[str, Any] | None:
        raw = self.r.get(keys(game_id)["idem"] + key)
        return json.loads(raw) if raw else None

    def index(self, game_id: str, created_ms: int) -> None:
        self.r.zadd(INDEX, {game_id: created_ms})

    def list_ids(self, start: int, count: int) -> list[str]:
        """Game ids, newest first."""
        return [_s(x) for x in self.r.zrevrange(INDEX, start, start + count - 1)]

    def count(self) -> int:
        return int(self.r.zcard(INDEX))

    def metas(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            pipe.hgetall(keys(gid)["meta"])
        return [{_s(a): _s(b) for a, b in m.items()} for m in pipe.execute()]
