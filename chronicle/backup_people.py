"""The people's records in a backup: accounts, the Web Push keys, the ratings.

A game line carries a game whole (its log is checked through the rules on restore); the
people's records are not logs but plain Redis keys, so they travel as they are stored: one
line per key, ``{"format": "chronicle-backup/1", "key", "type", "value", "ttl_ms"?}``, for
every key under ``PREFIXES``:

- ``acct:`` the accounts (profile and email, token and session hashes, passkeys, push
  subscriptions, blocks, each account's game index, the unsubscribe secret, notice marks);
- ``push:`` the VAPID key pair: a browser's subscription is bound to its public key, so a
  restore without it would silence every subscription;
- ``ratings:`` the ratings (a projection of the finished rated games: kept so that a restore
  needs no refold; ``chronicle ratings`` recomputes it from exports).

A key with a time to live (a session, a sign-in code, a rate window) keeps what was left of it.
Locks (``...:lock``) are left out: a restored lock would only delay the first writer.
Values are text where they are UTF-8, else base64 (``"b64": true`` on the line: every value of
that key), so nothing is lost either way; keys are text names.  The backup file holds email
addresses now too: it was already as secret as the Redis it came from (owner-only), and
``docs/operate/persistence.md`` says so.

Restore writes a key only where none exists (a live account is never overwritten), with the
public commands of its type, and reports how many it wrote and kept.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import redis

FORMAT = "chronicle-backup/1"
PREFIXES = ("acct:", "push:", "ratings:")
TYPES = ("string", "hash", "set", "zset", "list")


class KeyRefused(Exception):
    pass


def is_key_line(line: dict[str, Any]) -> bool:
    return "key" in line and "export" not in line


def _in(text: Any, b64: bool) -> bytes:
    if not isinstance(text, str):
        raise KeyRefused("a value must be a string")
    return base64.b64decode(text, validate=True) if b64 else text.encode("utf-8")


def _b(value: bytes | str) -> bytes:
    """redis-py answers bytes without ``decode_responses``; its types say either."""
    return value if isinstance(value, bytes) else value.encode("utf-8")


def _raw(r: redis.Redis, key: bytes, kind: str) -> tuple[Any, list[bytes]]:
    """The key's value as stored (bytes in lists, dicts, pairs), and every bytes part of it."""
    if kind == "string":
        value = _b(r.get(key) or b"")
        return value, [value]
    if kind == "hash":
        pairs = {_b(k): _b(v) for k, v in r.hgetall(key).items()}
        return pairs, [*pairs.keys(), *pairs.values()]
    if kind == "set":
        members = sorted(_b(m) for m in r.smembers(key))
        return members, members
    if kind == "zset":
        ranked: list[Any] = r.zrange(key, 0, -1, withscores=True)
        scored = [(_b(m), float(score)) for m, score in ranked]
        return scored, [m for m, _ in scored]
    items = [_b(m) for m in r.lrange(key, 0, -1)]
    return items, items


def _read(r: redis.Redis, key: bytes, kind: str) -> tuple[Any, bool]:
    """The key's value as JSON data, and whether it is written in base64 (every part is, when
    one part is not UTF-8)."""
    raw, parts = _raw(r, key, kind)
    try:
        for part in parts:
            part.decode("utf-8")
        b64 = False
    except UnicodeDecodeError:
        b64 = True

    def out(value: bytes) -> str:
        return base64.b64encode(value).decode("ascii") if b64 else value.decode("utf-8")

    if kind == "string":
        return out(raw), b64
    if kind == "hash":
        return {out(k): out(v) for k, v in raw.items()}, b64
    if kind == "zset":
        return [[out(m), score] for m, score in raw], b64
    return [out(m) for m in raw], b64


def lines(r: redis.Redis) -> Iterator[dict[str, Any]]:
    """One line per durable key of the people's records, in key order."""
    keys: set[bytes] = set()
    for prefix in PREFIXES:
        keys.update(_b(k) for k in r.scan_iter(match=f"{prefix}*", count=1000))
    for key in sorted(keys):
        if key.endswith(b":lock"):
            continue
        kind = _b(r.type(key)).decode()
        if kind not in TYPES:
            continue
        value, b64 = _read(r, key, kind)
        ttl = int(r.pttl(key))
        if ttl == -2:  # gone meanwhile (an expired code)
            continue
        try:
            name = key.decode("utf-8")
        except UnicodeDecodeError:  # not one of ours: every key of the records is a text name
            continue
        line: dict[str, Any] = {"format": FORMAT, "key": name, "type": kind, "value": value}
        if b64:
            line["b64"] = True
        if ttl > 0:
            line["ttl_ms"] = ttl
        yield line


def check(line: dict[str, Any]) -> None:
    """A key line's shape (raises ``KeyRefused``): a known prefix and type, a value of it."""
    key, kind, value = line.get("key"), line.get("type"), line.get("value")
    b64 = bool(line.get("b64"))
    if not isinstance(key, str) or not key.startswith(PREFIXES):
        raise KeyRefused("a key line's key must be one of the people's records")
    if kind not in TYPES:
        raise KeyRefused(f"a key line's type must be one of {', '.join(TYPES)}")
    ttl = line.get("ttl_ms")
    if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0):
        raise KeyRefused("ttl_ms must be a positive whole number")
    try:
        _value(kind, value, b64)
    except (TypeError, ValueError) as exc:
        raise KeyRefused(f"a {kind} key's value is malformed ({exc})") from None


def _value(kind: str, value: Any, b64: bool) -> Any:
    if kind == "string":
        return _in(value, b64)
    if kind == "hash":
        if not isinstance(value, dict):
            raise TypeError("not an object")
        return {_in(k, b64): _in(v, b64) for k, v in value.items()}
    if not isinstance(value, list):
        raise TypeError("not a list")
    if kind == "zset":
        scored = {}
        for pair in value:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise TypeError("a member is not [member, score]")
            member, score = pair
            if not isinstance(score, int | float) or isinstance(score, bool):
                raise TypeError("a score is not a number")
            scored[_in(member, b64)] = float(score)
        return scored
    return [_in(m, b64) for m in value]


def write(r: redis.Redis, line: dict[str, Any]) -> bool:
    """Writes a checked key line where the key does not exist; whether it wrote."""
    b64 = bool(line.get("b64"))
    key, kind = line["key"].encode("utf-8"), line["type"]
    if r.exists(key):
        return False
    value = _value(kind, line["value"], b64)
    pipe = r.pipeline(transaction=True)
    if kind == "string":
        pipe.set(key, value)
    elif kind == "hash" and value:
        pipe.hset(key, mapping=value)
    elif kind == "set" and value:
        pipe.sadd(key, *value)
    elif kind == "zset" and value:
        pipe.zadd(key, value)
    elif kind == "list" and value:
        pipe.rpush(key, *value)
    if line.get("ttl_ms"):
        pipe.pexpire(key, int(line["ttl_ms"]))
    pipe.execute()
    return True
