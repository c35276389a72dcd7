"""The store contract of the list's indexes (``service.store``): the public index, the token
index and the rank that puts a caller's own unlisted game in its place, alike on memory, a
single Redis and a Redis Cluster.  Other tests share the Redis servers: the games here are
older than theirs (but for the index test of ``test_event_store``, which must stay the oldest),
and every check is relative to what the index holds."""

from __future__ import annotations

import secrets

from service.store import Batch, EventStore
from tests.store.test_event_store import gid, new_meta, records, store

__all__ = ["store"]  # the fixture: each implementation of the contract

OLD = -500_000  # ms: older than the games of other tests (newer than test_event_store's)


def test_public_games_are_listed_apart_and_ranked_in_their_order(store: EventStore) -> None:
    public = [gid() for _ in range(3)]
    hidden = gid()
    for i, g in enumerate(public):
        store.append(g, Batch(records(1, 1), new_meta(created=OLD + 10 * i)))
        store.index(g, OLD + 10 * i, public=True)
    store.append(hidden, Batch(records(1, 1), new_meta(created=OLD + 15)))
    store.index(hidden, OLD + 15)
    total = store.count(public=True)
    ids = store.list_ids(0, total, public=True)
    assert ids[-3:] == public[::-1] and hidden not in ids
    assert hidden in store.list_ids(0, store.count())
    assert store.rank(hidden, OLD + 15) == ids.index(public[1])  # between the 2nd and the 3rd
    assert store.rank(public[1], OLD + 10) is None  # listed publicly itself
    assert store.rank(hidden, OLD - 1) == total  # older than every public game
    # as new as a public game: Redis orders equal scores by id, newest first reversed
    tie = store.rank(hidden, OLD + 10)
    assert tie == ids.index(public[1]) + (1 if public[1] > hidden else 0)


def test_token_hashes_name_their_game_until_removed(store: EventStore) -> None:
    g, (seat, host, joined) = gid(), (secrets.token_hex(32) for _ in range(3))
    store.append(g, Batch(records(1, 1), new_meta(created=OLD)))
    store.index(g, OLD, tokens=[seat, host])
    assert (store.game_of(seat), store.game_of(host), store.game_of(joined)) == (g, g, None)
    store.index_tokens(g, [joined])
    assert store.game_of(joined) == g
    store.index_tokens(g, [], [joined, seat])
    assert (store.game_of(seat), store.game_of(host), store.game_of(joined)) == (None, g, None)
