"""Who sees which game in the list of games (``GET /games``), and the indexes that answer it.

A table created without ``public`` is unlisted: anyone with its link may watch it, but only a
caller holding one of its seats or its host token, and the operator, find it in the list.  So
the list reads the public index for everyone, adds the one game a presented token stands for
(found by its hash in the token index, then checked against the game's meta with
``service.auth``: an entry left behind by a seat that was given back lists nothing), and reads
the whole index for the operator only.  ``total`` counts what the caller may see, never the
unlisted tables of others.

Games stored before the public index existed are unlisted until ``backfill`` lists them (the
safe side: a public table is hidden for a while, never a private one shown).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from service import auth
from service.errors import Unauthorized
from service.meta import GameMeta
from service.store import EventStore

CHUNK = 500  # ids read per round trip when a filtered list walks an index


@dataclass(frozen=True)
class Viewer:
    """What a caller may see in the list: every game (the operator), else the public ones and
    ``own``, the unlisted games it holds a token of (a seat or host token: at most one; an
    account: those it holds a seat of)."""

    everything: bool = False
    own: tuple[tuple[str, GameMeta], ...] = ()


STRANGER = Viewer()


def viewer(store: EventStore, token: str | None, admin_token: str | None) -> Viewer:
    """The viewer a bearer token stands for; a token that stands for nothing (unknown, or
    void since its seat was left) is a stranger, as no token is."""
    if token is None:
        return STRANGER
    if auth.is_admin(token, admin_token):
        return Viewer(everything=True)
    game_id = store.game_of(auth.token_hash(token))
    meta = store.meta(game_id) if game_id is not None else None
    if game_id is None or meta is None:
        return STRANGER
    try:
        auth.resolve(meta, token, None)
    except Unauthorized:
        return STRANGER
    return Viewer(own=((game_id, meta),))


def of_account(store: EventStore, player: str, games: list[str]) -> Viewer:
    """An account's viewer: the public games and the unlisted ones it holds a seat of (its
    index of games, each checked against the game's meta: a seat it no longer holds lists
    nothing; its public games are in the public index already)."""
    own = tuple(
        (game_id, meta)
        for game_id, meta in zip(games, store.metas(games), strict=True)
        if meta is not None and player in meta.players and not meta.public
    )
    return Viewer(own=own)


def tokens_of(meta: GameMeta) -> list[str]:
    """The token hashes a game's meta holds (its seats' and its host's)."""
    return [h for h in (*meta.tokens, meta.host) if h]


def index(store: EventStore, game_id: str, meta: GameMeta) -> None:
    """List a new game (created, imported, restored) in each index it belongs to."""
    store.index(game_id, meta.created_at, meta.public, tokens_of(meta))


def page(store: EventStore, who: Viewer, skip: int, count: int) -> tuple[list[str], int]:
    """The ids of one unfiltered page, newest first, and the total the caller may see: a slice
    of the index, with the caller's own unlisted games put in their places by rank."""
    if who.everything:
        return store.list_ids(skip, count), store.count()
    ranks = sorted(
        (rank, gid)
        for gid, meta in who.own
        if (rank := store.rank(gid, meta.created_at)) is not None
    )
    placed = [(rank + i, gid) for i, (rank, gid) in enumerate(ranks)]  # places in the page
    ahead = sum(1 for at, _ in placed if at < skip)
    inside = {at - skip: gid for at, gid in placed if skip <= at < skip + count}
    wanted = count - len(inside)
    public = iter(store.list_ids(skip - ahead, wanted, public=True) if wanted else ())
    ids = [inside[i] if i in inside else next(public, "") for i in range(count)]
    return [i for i in ids if i], store.count(public=True) + len(placed)


def walk(store: EventStore, who: Viewer) -> Iterator[tuple[str, GameMeta]]:
    """Every game the caller may see with its meta, newest first (for filtered lists): the
    index read in chunks, one pipelined read of the metas per chunk."""
    own = sorted(who.own, key=lambda gm: (gm[1].created_at, gm[0]), reverse=True)
    seen: set[str] = set()
    start, public = 0, not who.everything
    while ids := store.list_ids(start, CHUNK, public):
        start += CHUNK
        for gid, meta in zip(ids, store.metas(ids), strict=True):
            if meta is None:
                continue
            while own and (own[0][1].created_at, own[0][0]) > (meta.created_at, gid):
                mine = own.pop(0)
                if mine[0] not in seen:
                    yield mine
            seen.add(gid)
            yield gid, meta
    yield from (mine for mine in own if mine[0] not in seen)


def backfill(store: EventStore) -> int:
    """The one-off listing of games stored before the public and token indexes existed (each
    game's public flag and token hashes, from its meta); safe to run again or while the
    service runs (an entry is only ever set to what the meta says).  Answers the games read."""
    start, done = 0, 0
    while ids := store.list_ids(start, CHUNK):
        start += CHUNK
        for gid, meta in zip(ids, store.metas(ids), strict=True):
            if meta is not None:
                index(store, gid, meta)
                done += 1
    return done


MIGRATION = "listing"


def backfill_once(store: EventStore) -> int | None:
    """``backfill`` unless it already ran to its end on this store (the worker calls it at
    start: an upgraded deployment lists its older public tables with no operator step).
    Answers the games read, None if there was nothing to do.  Several workers may run it at
    once: it only ever writes what the metas say."""
    if store.migrated(MIGRATION):
        return None
    done = backfill(store)
    store.mark_migrated(MIGRATION)
    return done
