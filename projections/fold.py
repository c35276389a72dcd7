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
from domain.engine import Game, Match, Player
from domain.undo import Logged
from projections.records import Recorded

SNAPSHOT_EVERY = 25
SNAPSHOT_FORMAT = 1


def fold(game: Game, records: Iterable[Recorded], match: Match | None = None) -> Match:
    """``engine.fold`` over recorded events (``match`` itself when there are none)."""
    return engine.fold(game, (rec.event for rec in records), match)


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
            },
            "state": codec.encode(match.state),
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
        )
        state = codec.decode(game.state_type, doc["state"])
        return Match(config, state, doc["version"], doc["result"]), doc["hash"]
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
