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
from domain.engine import Event, Game, Match, Player
from domain.undo import Logged
from projections.records import Recorded

SNAPSHOT_EVERY = 25
SNAPSHOT_FORMAT = 1


def fold(game: Game, records: Iterable[Recorded], match: Match | None = None) -> Match:
    """``engine.evolve`` over the records, the ``Match`` built once at the end instead of once
    per event (the same result: the engine's rules for GameCreated and GameFinished, inlined)."""
    if match is None:
        config, state, version, result = None, None, 0, None
    else:
        config, state, version, result = match.config, match.state, match.version, match.result
    evolve = game.evolve
    for rec in records:
        kind = rec.type
        if kind == engine.GAME_CREATED:
            config = engine.config_from_created(rec.data)
            state, version, result = game.initial(config), 1, None
            continue
        assert config is not None, "a log starts with GameCreated"
        version += 1
        if kind == engine.GAME_FINISHED:
            result = dict(rec.data)
        else:
            state, result = evolve(state, Event(kind, rec.seat, rec.data)), None
    assert config is not None, "cannot fold an empty log"
    if match is not None and version == match.version and config is match.config:
        return match
    return Match(config, state, version, result)


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
