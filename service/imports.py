"""Checking an imported document whole, before anything of it is stored.

An import is a hostile document until proven otherwise: whoever holds a finished game's export
also holds its revealed seed, so they can re-make the hash chain over anything.  The replay
(``projections.replay``) proves the log obeys the rules; this module checks everything else a
reader will later trust, so that a stored game never makes a reader fail:

- **ids**: the exported id (kept as ``imported_from``) is a game id (``[A-Za-z0-9_-]``, 1-64);
  every ``seat`` and ``actor`` is a seat of the game (or null);
- **timestamps**: every ``at`` (and ``created_at``) is ISO 8601 with a time zone, between
  ``MIN_AT`` and one day after now, and the log's are non-decreasing in version order;
- **chat lines** (``check_chat``): shape, rooms, seats, times and text as a posted line's;
- **the undo trail**: every record has exactly ``by`` (``host`` or ``seat:<n>``), ``at``,
  ``from_version`` > ``to_version`` >= the set-up's length, ``events`` (exactly the versions
  ``to_version+1 .. from_version``, each well-formed, seats in range, not after the undo, and
  hash-chained from the head the log had at ``to_version`` then), and ``hash``: the undo
  trail's own chain (``projections.chain.link_undo``) must verify.  A **legacy** trail (an
  export made before undo records were signed) has no ``hash`` in any record: every other
  check still holds, it is kept without hashes, and the game's meta counts those records as
  unsigned (``GameMeta.unsigned_undos``), so that ``/audit`` never calls them verified and
  ``verified`` leaves out ``undo_trail``.  Some records with ``hash`` and some without is
  refused: a signed trail cannot shed the hashes that would show it altered.

Every refusal is 422 ``illegal_action`` naming the field (and the version or undo index).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from projections import chain
from projections.records import Recorded, from_full
from service.errors import ImportRefused

ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
BY = re.compile(r"host|seat:(0|[1-9][0-9]?)")
AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
MIN_AT = int(datetime(2000, 1, 1, tzinfo=UTC).timestamp() * 1000)
FUTURE_SLACK_MS = 24 * 3600 * 1000
UNDO_FIELDS = frozenset({"by", "at", "from_version", "to_version", "events", "hash"})
LEGACY_UNDO_FIELDS = UNDO_FIELDS - {"hash"}  # an export from before the undo trail's chain
EVENT_FIELDS = frozenset({"version", "type", "seat", "at", "data", "actor", "command", "hash"})

# What the audit of an imported game says was checked.
VERIFIED = ("rules_replay", "hash_chain", "head_hash", "timestamps", "ids", "undo_trail")


def verified(unsigned_undos: int) -> tuple[str, ...]:
    """``VERIFIED`` for a game whose first ``unsigned_undos`` undo records carry no hash: the
    undo trail's own chain was not verified, so it is not listed."""
    return tuple(v for v in VERIFIED if v != "undo_trail") if unsigned_undos else VERIFIED


def unsigned_prefix(trail: Sequence[Mapping[str, Any]]) -> int:
    """How many records at the start of ``trail`` carry no ``hash``."""
    n = 0
    while n < len(trail) and "hash" not in trail[n]:
        n += 1
    return n


def refuse(message: str, **details: Any) -> ImportRefused:
    return ImportRefused(message, details)


def timestamp(value: Any, where: str, now_ms: int) -> int:
    """Milliseconds since the epoch of an ISO 8601 time in range, else ``ImportRefused``."""
    if not isinstance(value, str) or AT.fullmatch(value) is None:
        raise refuse(f"{where}: not an ISO 8601 time with a time zone", field=where)
    try:
        ms = round(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except (ValueError, OverflowError) as exc:
        raise refuse(f"{where}: not a valid time ({exc})", field=where) from None
    if not MIN_AT <= ms <= now_ms + FUTURE_SLACK_MS:
        raise refuse(f"{where}: the time is out of range (2000 to now)", field=where)
    return ms


def _seat(value: Any, seats: int) -> bool:
    return value is None or (type(value) is int and 0 <= value < seats)


def _events(raw: Any, where: str, seats: int, now_ms: int) -> list[Recorded]:
    """Well-formed events (times and seats checked) as records."""
    if not isinstance(raw, list):
        raise refuse(f"{where}: must be a list of events", field=where)
    out = []
    for i, e in enumerate(raw):
        here = f"{where}.{i}"
        if not isinstance(e, dict) or not {"version", "type", "seat", "at", "data"} <= set(e):
            raise refuse(f"{here}: not an event", field=here)
        if set(e) - EVENT_FIELDS:
            raise refuse(f"{here}: unknown fields {sorted(set(e) - EVENT_FIELDS)}", field=here)
        timestamp(e["at"], f"{here}.at", now_ms)
        if not (type(e["version"]) is int and isinstance(e["type"], str)):
            raise refuse(f"{here}: version and type must be an integer and a string", field=here)
        if not isinstance(e["data"], dict) or not isinstance(e.get("hash", ""), str):
            raise refuse(f"{here}: data must be an object and hash a string", field=here)
        if not _seat(e["seat"], seats) or not _seat(e.get("actor"), seats):
            raise refuse(
                f"{here}: version {e['version']}: seat and actor must be seats of the game",
                field=here, version=e["version"],
            )  # fmt: skip
        out.append(from_full(e))
    return out


def check_log(doc: Mapping[str, Any], seats: int, now_ms: int) -> list[Recorded]:
    """The log's records, with ids, seats and times checked (the rules are the replay's)."""
    if not isinstance(doc.get("id"), str) or ID.fullmatch(doc["id"]) is None:
        raise refuse("id: not a game id ([A-Za-z0-9_-], 1 to 64 characters)", field="id")
    created = timestamp(doc.get("created_at"), "created_at", now_ms)
    records = _events(doc.get("events"), "events", seats, now_ms)
    if not records:
        raise refuse("events: the log is empty", field="events")
    last = created
    for rec in records:
        if rec.at < last:
            raise refuse(
                f"events: version {rec.version} is dated before the one before it",
                field="events", version=rec.version,
            )  # fmt: skip
        last = rec.at
    return records


def check_undone(
    raw: Any,
    records: Sequence[Recorded],
    seed: str,
    seats: int,
    setup_version: int,
    now_ms: int,
    unsigned: int | None = None,
) -> list[dict[str, Any]]:
    """The undo trail, every field checked and both chains verified (see the module).

    ``unsigned``: how many leading records may lack ``hash`` (``chronicle restore`` passes
    the count its meta keeps; a legacy import's later undos are signed, chained from the
    genesis).  None (an import): none of them, or all of them (a legacy trail)."""
    if not isinstance(raw, list):
        raise refuse("undone: must be a list", field="undone")
    key = chain.chain_key(seed)
    trail: list[tuple[dict[str, Any], list[Recorded]]] = []
    last_at = records[0].at
    for i, u in enumerate(raw):
        here = f"undone.{i}"
        if not isinstance(u, dict) or set(u) not in (UNDO_FIELDS, LEGACY_UNDO_FIELDS):
            raise refuse(f"{here}: an undo record has exactly {sorted(UNDO_FIELDS)}", field=here)
        by = u["by"]
        if not isinstance(by, str) or BY.fullmatch(by) is None:
            raise refuse(f"{here}.by: 'host' or 'seat:<n>'", field=f"{here}.by")
        if by != "host" and int(by.split(":")[1]) >= seats:
            raise refuse(f"{here}.by: no such seat", field=f"{here}.by")
        at = timestamp(u["at"], f"{here}.at", now_ms)
        if at < last_at:
            raise refuse(f"{here}.at: before the undo or event before it", field=f"{here}.at")
        last_at = at
        low, high = u["to_version"], u["from_version"]
        if not (type(low) is int and type(high) is int and setup_version <= low < high):
            raise refuse(
                f"{here}: needs setup length ({setup_version}) <= to_version < from_version",
                field=here,
            )
        events = _events(u["events"], f"{here}.events", seats, now_ms)
        if [e.version for e in events] != list(range(low + 1, high + 1)):
            raise refuse(f"{here}.events: must be versions {low + 1}..{high}", field=here)
        if any(e.at > at for e in events):
            raise refuse(f"{here}.events: an event dated after its undo", field=here)
        trail.append((u, events))
    for i, (u, events) in enumerate(trail):
        prev = _head_after(i, u["to_version"], trail, records)
        if prev is None or chain.first_break(key, events, prev) is not None:
            raise refuse(
                f"undone.{i}.events: not chained to the log's head at version {u['to_version']}",
                field=f"undone.{i}.events",
            )
    bare = unsigned_prefix(raw)
    odd = next((i for i, u in enumerate(raw[bare:], bare) if "hash" not in u), None)
    if odd is not None or bare not in ((0, len(raw)) if unsigned is None else (unsigned,)):
        first = bare if unsigned is None else min(bare, unsigned)  # the first record amiss
        where = f"undone.{first if odd is None else odd}.hash"
        raise refuse(
            f"{where}: some undo records are signed and some are not (all or none)"
            if unsigned is None
            else f"{where}: the first {unsigned} undo records (only) may be unsigned",
            field=where,
        )
    broken = chain.first_undo_break(key, raw[bare:])
    if broken is not None:
        broken += bare
        raise refuse(
            f"undone.{broken}.hash: the undo trail's chain is broken (it was altered)",
            field=f"undone.{broken}.hash",
        )
    return [dict(u) for u in raw]


def _head_after(
    i: int,
    version: int,
    trail: Sequence[tuple[Mapping[str, Any], Sequence[Recorded]]],
    records: Sequence[Recorded],
) -> str | None:
    """The hash the log had at ``version`` right after undo ``i``: kept until a later undo
    cut below it (then it is among that undo's events), else it is still in the log."""
    if version == 0:
        return chain.GENESIS
    for u, events in trail[i + 1 :]:
        if u["to_version"] < version:
            found = [e.hash for e in events if e.version == version]
            return found[0] if found else None
    return records[version - 1].hash if version <= len(records) else None


CHAT_FIELDS = frozenset({"id", "room", "seat", "name", "at", "text"})
CHAT_HIDDEN = frozenset({"hidden", "hidden_by"})
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # as a posted line: newlines and tabs only


def check_chat(raw: Any, seats: int, now_ms: int) -> list[dict[str, Any]]:
    """The chat lines of an export (``service/chat.py``'s export shape): ids increasing from 1,
    a known room, the seat (or null) of the game, a name, a time in range, a text of 1 to
    ``chat.MAX_TEXT`` characters; a hidden line names who hid it and when.  The lines are
    outside the rules log, so no chain covers them: they are checked for shape only."""
    from service import invisible
    from service.chat import MAX_LINE, MAX_TEXT, ROOMS  # chat imports nothing of this module

    if not isinstance(raw, list):
        raise refuse("chat: must be a list of lines", field="chat")
    last = 0
    out = []
    for i, line in enumerate(raw):
        here = f"chat.{i}"
        if not isinstance(line, dict) or not set(line) >= CHAT_FIELDS:
            raise refuse(f"{here}: a chat line has {sorted(CHAT_FIELDS)}", field=here)
        if set(line) - CHAT_FIELDS - CHAT_HIDDEN:
            extra = sorted(set(line) - CHAT_FIELDS - CHAT_HIDDEN)
            raise refuse(f"{here}: unknown fields {extra}", field=here)
        n = line["id"]
        if type(n) is not int or not last < n <= MAX_LINE:
            raise refuse(f"{here}.id: line ids are increasing integers from 1", field=here)
        last = n
        if line["room"] not in ROOMS or not _seat(line["seat"], seats):
            raise refuse(f"{here}: room must be one of {list(ROOMS)}, seat a seat", field=here)
        if not isinstance(line["name"], str) or not 1 <= len(line["name"]) <= 64:
            raise refuse(f"{here}.name: 1 to 64 characters", field=f"{here}.name")
        if why := invisible.problem(line["name"]):
            raise refuse(f"{here}.name: {why}", field=f"{here}.name")
        text = line["text"]
        if not isinstance(text, str) or not 1 <= len(text) <= MAX_TEXT or CONTROL.search(text):
            raise refuse(
                f"{here}.text: 1 to {MAX_TEXT} characters, no control characters",
                field=f"{here}.text",
            )
        if why := invisible.problem(text, line=True):
            raise refuse(f"{here}.text: {why}", field=f"{here}.text")
        timestamp(line["at"], f"{here}.at", now_ms)
        hidden_by = line.get("hidden_by")
        if hidden_by is not None:
            if not isinstance(hidden_by, dict) or set(hidden_by) != {"by", "at"}:
                raise refuse(f"{here}.hidden_by: has exactly by and at", field=here)
            if hidden_by["by"] != "host":
                raise refuse(f"{here}.hidden_by.by: only the host hides lines", field=here)
            timestamp(hidden_by["at"], f"{here}.hidden_by.at", now_ms)
        if line.get("hidden", bool(hidden_by)) is not bool(hidden_by):
            raise refuse(f"{here}.hidden: a hidden line names who hid it", field=here)
        out.append(dict(line))
    return out
