"""A game's meta: what the service keeps about a game besides its log, typed, and its stored
form, encoded and decoded here only.

The store keeps it as a flat hash of strings (``{g:<id>}:meta``; lists and maps as JSON); the
Lua scripts read ``version`` and ``head`` from it (the conditional append) and write them.
Everything else goes through ``encode`` / ``encode_progress`` and comes back by ``decode``:
auth reads the token hashes, the documents the summary fields, the reconciler the follow-ups.

Secrets are kept only as SHA-256 hashes (``tokens``, ``host``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain import jsontext
from domain.engine import SCORING, Job

# A follow-up as the meta keeps it: the job's kind and seat (its game and version are the
# meta's own).
FollowUp = tuple[str, int | None]


@dataclass(frozen=True)
class Progress:
    """What every write changes besides the version and head."""

    status: str
    to_act: tuple[int, ...]
    follow_ups: tuple[FollowUp, ...]
    updated_at: int
    result: Mapping[str, Any] | None = None
    # the table (``domain.table``): the summary's seats as they are now (joins, bots), and
    # each seat's deadline (ms) on a clocked table; None: not written (a meta from before)
    seats: tuple[Mapping[str, Any], ...] | None = None
    deadlines: Mapping[str, int] | None = None
    # each person's clock (``domain.clock.clock_state``), for the summary's ``clocks``
    clocks: Mapping[str, Mapping[str, int]] | None = None

    @property
    def live(self) -> bool:
        """The game awaits a follow-up or has a deadline to check: the only games the worker's
        reconciler must look at (the live index, ``service.store``).  A finished or abandoned
        game has neither."""
        return bool(self.follow_ups or self.deadlines)


@dataclass(frozen=True)
class GameMeta:
    game: str
    seed: str
    seed_commitment: str
    tokens: tuple[str | None, ...]  # per seat: the hash of its token (None: a bot seat)
    host: str  # the hash of the host token
    created_at: int  # ms since the epoch
    setup_version: int  # the length of the creation batch (undo never cuts into it)
    options: Mapping[str, str]
    seats: tuple[Mapping[str, Any], ...]  # the summary's seats: seat, name, bot
    progress: Progress
    version: int = 0  # written by the store (the append scripts)
    head: str = ""  # the hash of the last event, ditto
    imported_from: str | None = None
    verified: tuple[str, ...] = ()  # an imported game: the checks its import passed
    # an imported legacy undo trail: its first records, which carry no hash (``/audit`` says so)
    unsigned_undos: int = 0
    table: Mapping[str, Any] | None = None  # the table section of GameCreated (v1 additions)
    invitations: tuple[str | None, ...] = ()  # per seat open at creation: its code's hash
    hooks: bool = False  # a seat registered a webhook (``service.webhooks``)
    # the creator chose the seed (or imported a log, which holds it): they can know every
    # hidden card, and the summary says so to everyone (``seed_chosen``)
    seed_chosen: bool = False
    # per seat: the public id of the account holding it (``SeatClaimed``; ``service.accounts``),
    # the index that lets an account's token act for its seats; () while no seat is claimed
    players: tuple[str | None, ...] = ()
    host_player: str | None = None  # the account that created the table while signed in

    def seats_of(self, player: str) -> list[int]:
        return [seat for seat, held in enumerate(self.players) if held == player]

    def moved(self, version: int, head: str, progress: Progress) -> GameMeta:
        """This meta after a write: ``dataclasses.replace(self, version=..., head=...,
        progress=...)``, which every move makes, without ``replace``'s inspection of all 19
        fields: the same fields, three of them new."""
        new = object.__new__(GameMeta)
        new.__dict__.update(self.__dict__, version=version, head=head, progress=progress)
        return new

    @property
    def public(self) -> bool:
        return bool(self.table and self.table.get("public"))

    def jobs(self, game_id: str) -> list[Job]:
        """The follow-up jobs this version of the game awaits (bot turns or scoring)."""
        background = bool(self.seats) and all(s.get("bot") for s in self.seats)
        return [
            Job(kind, game_id, self.version, seat, kind == "bot" and background)
            for kind, seat in self.progress.follow_ups
        ]


_COMPACT = (",", ":")


def follow_ups_of(jobs: list[Job]) -> tuple[FollowUp, ...]:
    return tuple((j.kind, j.seat) for j in jobs)


def encode_progress(p: Progress) -> dict[str, str]:
    """The progress's fields (every write's): lists and maps as compact UTF-8 JSON (orjson's;
    older metas hold the C encoder's text, some of it spaced and ASCII: ``decode`` reads
    either)."""
    return {
        "status": p.status,
        "to_act": _json(list(p.to_act)),
        "follow_ups": _json([list(f) for f in p.follow_ups]),
        "updated_at": str(p.updated_at),
        **({"result": _json(p.result)} if p.result is not None else {}),
        **({"seats": _json(list(p.seats))} if p.seats is not None else {}),
        **({"deadlines": _json(p.deadlines)} if p.deadlines is not None else {}),
        **({"clocks": _json(p.clocks)} if p.clocks is not None else {}),
    }


def _json(value: Any) -> str:
    return jsontext.compact_bytes(value).decode()


def encode(meta: GameMeta) -> dict[str, str]:
    """The stored fields of a new game's meta (``version`` and ``head`` are the store's)."""
    config: dict[str, Any] = {
        "options": dict(meta.options),
        "seats": [dict(s) for s in meta.seats],
    }
    if meta.table is not None:
        config["table"] = dict(meta.table)
    return {
        "game": meta.game,
        "seed": meta.seed,
        "seed_commitment": meta.seed_commitment,
        "tokens": json.dumps(list(meta.tokens)),
        "host": meta.host,
        "created_at": str(meta.created_at),
        "setup_version": str(meta.setup_version),
        "config": json.dumps(config, separators=_COMPACT),
        **encode_progress(meta.progress),
        **({"imported_from": meta.imported_from} if meta.imported_from is not None else {}),
        **({"invitations": json.dumps(list(meta.invitations))} if meta.invitations else {}),
        **({"hooks": "1"} if meta.hooks else {}),
        **({"seed_chosen": "1"} if meta.seed_chosen else {}),
        **({"verified": json.dumps(list(meta.verified))} if meta.verified else {}),
        **({"players": json.dumps(list(meta.players))} if any(meta.players) else {}),
        **({"host_player": meta.host_player} if meta.host_player else {}),
        **({"unsigned_undos": str(meta.unsigned_undos)} if meta.unsigned_undos else {}),
    }


def decode(stored: Mapping[str, str]) -> GameMeta:
    """A stored meta hash, typed (``KeyError`` if a field every game has is missing)."""
    config = json.loads(stored["config"])
    status = stored["status"]
    if "follow_ups" in stored:
        follow_ups = tuple((k, s) for k, s in json.loads(stored["follow_ups"]))
    elif status == SCORING:  # a meta written before follow_ups was kept
        follow_ups = (("score", None),)
    else:
        follow_ups = tuple(("bot", s) for s in json.loads(stored.get("bots_to_act", "[]")))
    result = stored.get("result")
    # the seats as they are now (progress); a meta from before tables kept only its creation's
    now = tuple(json.loads(stored["seats"])) if "seats" in stored else None
    seats = now if now is not None else tuple(config["seats"])
    deadlines = json.loads(stored["deadlines"]) if "deadlines" in stored else None
    return GameMeta(
        game=stored["game"],
        seed=stored["seed"],
        seed_commitment=stored["seed_commitment"],
        tokens=tuple(json.loads(stored["tokens"])),
        host=stored["host"],
        created_at=int(stored["created_at"]),
        setup_version=int(stored["setup_version"]),
        options=config["options"],
        seats=seats,
        progress=Progress(
            status=status,
            to_act=tuple(json.loads(stored["to_act"])),
            follow_ups=follow_ups,
            updated_at=int(stored["updated_at"]),
            result=json.loads(result) if result is not None else None,
            seats=now,
            deadlines=deadlines,
            clocks=json.loads(stored["clocks"]) if "clocks" in stored else None,
        ),
        version=int(stored.get("version", "0")),
        head=stored.get("head", ""),
        imported_from=stored.get("imported_from"),
        table=config.get("table"),
        invitations=tuple(json.loads(stored.get("invitations") or "[]")),
        hooks=stored.get("hooks") == "1",
        seed_chosen=stored.get("seed_chosen") == "1",
        verified=tuple(json.loads(stored.get("verified", "[]"))),
        unsigned_undos=int(stored.get("unsigned_undos", "0")),
        players=tuple(json.loads(stored.get("players") or "[]")),
        host_player=stored.get("host_player") or None,
    )
