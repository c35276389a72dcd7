"""Folding recorded events into a ``Match``, and the snapshots that keep loads short.

A snapshot is the encoded match at some version plus the hash of the event at that version; it
is used only if the log still holds that very event (same hash), so a snapshot can never be
applied to a log that was truncated and rewritten since.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from domain import codec, engine
from domain import table as tables
from domain.engine import Game, Match, Player
from domain.undo import Logged
from projections.records import Recorded

SNAPSHOT_EVERY = 25
SNAPSHOT_FORMAT = 2  # 2: with the table


def fold(game: Game, records: Iterable[Recorded], match: Match | None = None) -> Match:
    """``engine.fold`` over recorded events (``match`` itself when there are none).

    On a clocked table, the table is settled at the end of every batch with the batch's
    recorded time (``engine.settle``), exactly as a replay does; the records given always end
    a batch, but for a replay at a version inside one."""
    recs = records if isinstance(records, list) else list(records)
    if not _clocked(recs, match):
        return engine.fold(game, (rec.event for rec in recs), match)
    start = 0
    for i in range(1, len(recs) + 1):
        if i == len(recs) or recs[i].command is not None:
            match = engine.fold(game, (rec.event for rec in recs[start:i]), match)
            match = engine.settle(game, match, recs[i - 1].at)
            start = i
    assert match is not None, "cannot fold an empty log"
    return match


def _clocked(records: Sequence[Recorded], match: Match | None) -> bool:
    if match is not None:
        return match.table is not None and match.table.rules.clocked
    first = records[0] if records else None
    return bool(
        first is not None
        and first.type == engine.GAME_CREATED
        and any((first.data.get("table") or {}).get(k) for k in ("turn_time", "time_control"))
    )


def snapshot_blob(game: Game, match: Match, head: str) -> str:
    return json.dumps(
        {
            "format": SNAPSHOT_FORMAT,
            "version": match.version,
            "hash": head,
            "config": {
                "game": match.config.game,
                "options": dict(match.config.options),
                "players": [{"name": p.name, "bot": p.bot} for p in match.config.players],
                "rules_version": match.config.rules_version,
                "table": match.config.table,
            },
            "state": codec.encode(match.state),
            "table": codec.encode(match.table),
            "result": match.result,
        },
        separators=(",", ":"),
    )


def from_snapshot(game: Game, blob: str) -> tuple[Match, str] | None:
    """The match and the head hash it was taken at, or None if the snapshot is unusable."""
    try:
        doc: dict[str, Any] = json.loads(blob)
        if doc.get("format") != SNAPSHOT_FORMAT:
            return None
        config = engine.Config(
            game=doc["config"]["game"],
            options=doc["config"]["options"],
            players=tuple(Player(p["name"], p["bot"]) for p in doc["config"]["players"]),
            rules_version=doc["config"].get("rules_version", 1),
            table=doc["config"].get("table"),
        )
        state = codec.decode(game.state_type, doc["state"])
        table = codec.decode(tables.Table, doc["table"]) if doc.get("table") else None
        return Match(config, state, doc["version"], doc["result"], table), doc["hash"]
    except (ValueError, KeyError, TypeError):
        return None


def logged(records: Sequence[Recorded]) -> list[Logged]:
    """Records with the batch each belongs to (the version of its command's first event)."""
    out: list[Logged] = []
    batch = 0
    for rec in records:
        if rec.command is not None:
            batch = rec.version
        out.append(Logged(rec.version, rec.actor, batch, rec.event))
    return out
