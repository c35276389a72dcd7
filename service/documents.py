"""The documents of a game's history: its summary, the list of games, the audit and the export.

Summaries come from the meta alone (no fold); the audit and the export read the whole log.
What a caller may see follows ``projections.views``: redacted until the game is finished
(the operator sees everything)."""

from __future__ import annotations

from typing import Any

from domain import table as tables
from domain.errors import Forbidden
from projections import chain
from projections.records import from_full, full, iso
from projections.views import ADMIN, Caller, events_for, revealed
from service import chat, clocks, listing
from service.listing import Viewer
from service.loading import Loader
from service.meta import GameMeta
from service.store import EventStore

EXPORT_FORMAT = "chronicle-export/1"


def summary_doc(game_id: str, meta: GameMeta) -> dict[str, Any]:
    """The contract's summary, from the meta alone (no fold needed)."""
    p = meta.progress
    doc: dict[str, Any] = {
        "id": game_id,
        "game": meta.game,
        "options": dict(meta.options),
        "seats": _seats(meta),
        "status": p.status,
        "version": meta.version,
        "to_act": list(p.to_act),
        "seed_commitment": meta.seed_commitment,
        "seed_chosen": meta.seed_chosen,
        "created_at": iso(meta.created_at),
        "updated_at": iso(p.updated_at),
    }
    if p.result is not None:
        doc["result"] = dict(p.result)
    if meta.table:
        doc["public"] = meta.public
        if meta.table.get("rated"):
            doc["rated"] = True
        if meta.table.get("turn_time") or meta.table.get("time_control"):
            if meta.table.get("turn_time"):
                doc["turn_time"] = meta.table["turn_time"]
            deadlines = p.deadlines or {}
            doc["deadlines"] = {s: iso(ms) for s, ms in sorted(deadlines.items())}
            clocks.add_to(doc, meta.table, p.clocks)
    return doc


def _seats(meta: GameMeta) -> list[dict[str, Any]]:
    """The seats, each one an account holds with its public id (``player``)."""
    seats = [dict(s) for s in meta.seats]
    for seat, player in enumerate(meta.players):
        if player is not None and seat < len(seats):
            seats[seat]["player"] = player
    return seats


def unsigned_reason(count: int) -> str | None:
    """Why ``undo_chain_ok`` is null: the first ``count`` undo records were imported from an
    export made before undo records were signed."""
    if not count:
        return None
    return (
        f"the first {count} undo records came from an export made before undo records were "
        "signed: checked against the log on import, but not covered by the undo trail's chain"
    )


class Documents:
    def __init__(self, store: EventStore, loader: Loader) -> None:
        self.store = store
        self.loader = loader

    def list_games(
        self, who: Viewer, game: str | None, status: str | None, page: int, per_page: int
    ) -> dict[str, Any]:
        """Newest first, what ``who`` may see (``service.listing``).  Unfiltered pages are a
        slice of an index; filtered ones walk it, reading the metas one chunk at a time."""
        skip = (page - 1) * per_page
        if not (game or status):
            ids, total = listing.page(self.store, who, skip, per_page)
            docs = [summary_doc(g, m) for g, m in zip(ids, self.store.metas(ids), strict=True) if m]
            return {"games": docs, "page": page, "per_page": per_page, "total": total}
        out: list[dict[str, Any]] = []
        matched = 0
        for gid, meta in listing.walk(self.store, who):
            if game and meta.game != game:
                continue
            if status and meta.progress.status != status:
                continue
            if status == tables.WAITING and not meta.public:
                continue  # the lobby lists public tables only
            if skip <= matched < skip + per_page:
                out.append(summary_doc(gid, meta))
            matched += 1
        return {"games": out, "page": page, "per_page": per_page, "total": matched}

    def audit(self, game_id: str, caller: Caller) -> dict[str, Any]:
        """Who did what and when, the hash chain check and every undo (redacted before the
        end)."""
        cur = self.loader.current(game_id)
        meta, records = self.loader.log(game_id)
        broken = chain.first_break(chain.chain_key(cur.seed), records)
        if broken is None and records and records[-1].hash != meta.head:
            broken = records[-1].version
        reveal = caller.role == ADMIN or revealed(cur.match.status(cur.game))
        undone = []
        trail = self.store.undone(game_id)
        bare = meta.unsigned_undos  # a legacy import's records: no hash to check
        undo_broken = chain.first_undo_break(chain.chain_key(cur.seed), trail[bare:])
        if undo_broken is not None:
            undo_broken += bare
        for u in trail:
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
            # None: nothing to say of a legacy trail's own chain (reason in undo_chain_unsigned)
            "undo_chain_ok": False if undo_broken is not None else (None if bare else True),
            "first_bad_undo": undo_broken,
            "undo_chain_unsigned": unsigned_reason(bare),
            "imported": (
                {"from": meta.imported_from, "verified": list(meta.verified)}
                if meta.imported_from is not None
                else None
            ),
            "head_hash": meta.head,
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
        """The whole log with the revealed seed (finished games, or the operator)."""
        cur = self.loader.current(game_id)
        if caller.role != ADMIN and not revealed(cur.match.status(cur.game)):
            raise Forbidden(
                "not_finished", "a game can be exported once it is finished (or by the operator)"
            )
        meta, records = self.loader.log(game_id)
        return {
            "format": EXPORT_FORMAT,
            "id": game_id,
            "game": cur.game.id,
            "options": dict(cur.match.config.options),
            "players": [p.doc() for p in cur.match.config.players],
            **({"table": dict(cur.match.config.table)} if cur.match.config.table else {}),
            "seed": cur.seed,
            "seed_commitment": cur.meta.seed_commitment,
            "created_at": iso(cur.meta.created_at),
            "head_hash": meta.head,
            "events": [full(r) for r in records],
            "undone": self.store.undone(game_id),
            "chat": chat.export_of(self.store, game_id),
        }
