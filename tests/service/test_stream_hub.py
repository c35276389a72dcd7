"""The stream hub on a real Redis, without its subscription: a feed whose notices were lost
(a reconnect) is brought back by ``resync``, appends and undos alike; and every change the
scripts make is announced on the channel, in order; chat lines and hides whose notices were lost
are found the same way, each for the rooms its watcher may read."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import redis

from projections.views import HOST, SEAT, SPECTATOR, Caller
from service import chat
from service.chat_stream import ChatSource
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.redis_store import RedisEventStore
from service.stream import CHANNEL, Feed, Head, Hub, Watch, sse


def _act(ch: Chronicle, gid: str, rng: random.Random) -> int:
    cur = ch.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
    return ch.act(gid, Caller(SEAT, seat), action, cur.match.version)["version"]


def _head(ch: Chronicle, gid: str) -> Head:
    cur = ch.current(gid)
    return Head(cur.match.version, cur.head, cur.match.status(cur.game), ())


def test_resync_finds_lost_appends_and_undos(redis_url: str) -> None:
    store = RedisEventStore(redis.Redis.from_url(redis_url))
    ch = Chronicle(store, NoJobs())
    players = [{"name": "a"}, {"name": "b"}]
    gid = ch.create(None, "artus", players, {"undo": "host"}, "hub-seed")["id"]
    rng = random.Random(3)
    for _ in range(4):
        _act(ch, gid, rng)
    hub = Hub(store, store.r)
    feed = hub.feeds[gid] = Feed(gid, _head(ch, gid))
    # two appends whose notices were lost
    for _ in range(2):
        version = _act(ch, gid, rng)
    hub.resync()
    assert feed.version == version and [r.version for r in feed.records] == [
        version - 1,
        version,
    ]
    assert feed.head.hash == ch.current(gid).head and feed.seq == 1
    # an undo and a different append to the same version, both unheard
    old = feed.head.hash
    ch.undo(gid, Caller(HOST), version - 1)
    for _ in range(20):
        if _act(ch, gid, random.Random(rng.random())) == version and ch.current(gid).head != old:
            break
        ch.undo(gid, Caller(HOST), version - 1)
    assert ch.current(gid).head != old
    hub.resync()
    assert feed.cut_since(0) == version - 1, feed.undos
    assert feed.version == version and feed.head.hash == ch.current(gid).head


def test_every_write_is_announced_in_order(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    ch = Chronicle(RedisEventStore(client), NoJobs())
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(CHANNEL)
    pubsub.get_message(timeout=1)
    players = [{"name": "a"}, {"name": "b"}]
    gid = ch.create(None, "artus", players, {"undo": "host"}, "hub-seed-2")["id"]
    created = ch.current(gid).match.version
    rng = random.Random(4)
    v1 = _act(ch, gid, rng)
    appended = ch.store.read(gid, created, 10)
    ch.undo(gid, Caller(HOST), created)
    got = []
    for _ in range(50):
        msg = pubsub.get_message(timeout=1)
        if msg and msg["data"].split()[1].decode() == gid:
            got.append(msg["data"])
        if len(got) == 3:
            break
    assert [m.partition(b"\n")[0].decode() for m in got] == [
        f"append {gid} 1 {created}",
        f"append {gid} {created + 1} {v1}",
        f"undo {gid} {created}",
    ]
    pubsub.close()
    # an append's notice carries its records and the head after it: a hub that hears it
    # has the change without reading the store (this one has no Redis to read)
    hub = Hub(ch.store, None)
    feed = hub.feeds[gid] = Feed(
        gid, Head(created, ch.store.read(gid, 0, created)[-1].hash, "", ())
    )
    hub.dispatch(got[1])
    assert [r.version for r in feed.records] == [created + 1] == [v1]
    assert feed.records == appended
    assert feed.head.version == v1 and feed.head.status == "active"
    assert feed.head.to_act and feed.seq == 1


class Chat:
    """A second kind of notice, as another part of the service would add one."""

    kind = "chat"

    def notice(self, hub: Hub, feed: Feed, args: Sequence[str]) -> None:
        with feed.cond:
            feed.extra["chat"] = int(args[0])
            feed.changed()

    def resync(self, hub: Hub, feeds: Sequence[Feed]) -> None:
        return None  # the test sends its notices: none are lost

    def start(self, hub: Hub, watch: Watch, after: Any) -> list[bytes]:
        return []

    def frames(self, watch: Watch) -> list[bytes]:
        last = watch.feed.extra.get("chat", 0)
        if watch.marks.get("chat", 0) >= last:
            return []
        watch.marks["chat"] = last
        return [sse("chat", None, {"id": last})]


def test_another_kind_is_one_more_source(redis_url: str) -> None:
    store = RedisEventStore(redis.Redis.from_url(redis_url))
    ch = Chronicle(store, NoJobs())
    gid = ch.create(None, "artus", [{"name": "a"}, {"name": "b"}], None, "hub-seed-3")["id"]
    hub = Hub(store, store.r)
    hub.register(Chat())
    head = _head(ch, gid)
    feed = hub.feeds[gid] = Feed(gid, head)
    cur = ch.current(gid)
    watch = Watch(
        feed, cur.game, cur.match.config, Caller(SEAT, 0), head.version, 0, 0, (head.status, ())
    )
    hub.dispatch(f"chat {gid} 7".encode())
    assert feed.seq == 1 and feed.extra == {"chat": 7}
    assert hub._changes(watch) == [sse("chat", None, {"id": 7})]
    assert hub._changes(watch) == []  # delivered once


def test_resync_finds_lost_chat_lines_and_hides_for_the_rooms_each_may_read(
    redis_url: str,
) -> None:
    client = redis.Redis.from_url(redis_url)
    ch = Chronicle(RedisEventStore(client), NoJobs())
    gid = ch.create(None, "artus", [{"name": "a"}, {"name": "b"}], {}, "hub-chat")["id"]
    hub = Hub(ch.store, client)
    source = ChatSource(client)
    hub.register(source)
    feed = hub.feeds[gid] = Feed(gid, _head(ch, gid))
    cur = ch.current(gid)
    watches = {
        who: Watch(feed, cur.game, cur.match.config, caller, feed.version, 0, 0, ("", ()))
        for who, caller in (("seat", Caller(SEAT, 0)), ("spectator", Caller(SPECTATOR)))
    }
    for w in watches.values():
        assert source.start(hub, w, None) == []
    names = ["a", "b"]
    seat = chat.post(client, gid, Caller(SEAT, 0), names, "our plan", None, None, "s", 0)
    fan = chat.post(client, gid, Caller(SPECTATOR), names, "go!", None, "Fan", "f", 0)
    hub.resync()  # the notices were never heard (no subscription): found by the resync
    with feed.cond:
        got = {who: source.frames(w) for who, w in watches.items()}
    assert [b"our plan" in f for f in got["seat"]] == [True, False]
    assert len(got["spectator"]) == 1 and b"go!" in got["spectator"][0]
    assert chat.hide(client, gid, fan["id"], 0) and chat.hide(client, gid, seat["id"], 0)
    hub.resync()
    with feed.cond:
        got = {who: source.frames(w) for who, w in watches.items()}
    assert len(got["seat"]) == 2 and all(b'"hidden":true' in f for f in got["seat"])
    assert len(got["spectator"]) == 1 and b"go!" not in got["spectator"][0]
    assert b"our plan" not in b"".join(got["seat"] + got["spectator"])


def test_watchers_at_one_position_share_bytes_and_others_get_their_own(redis_url: str) -> None:
    """``Hub.push`` works out a change once per position (version, caller, ...): watchers
    behind, or of another caller, must still get exactly what they would get alone."""
    import socket

    ch = Chronicle(RedisEventStore(redis.Redis.from_url(redis_url)), NoJobs())
    players = [{"name": "a"}, {"name": "b"}]
    gid = ch.create(None, "artus", players, {}, "push-seed")["id"]
    rng = random.Random(5)
    for _ in range(3):
        _act(ch, gid, rng)
    start = _head(ch, gid)
    for _ in range(2):
        _act(ch, gid, rng)
    cur = ch.current(gid)
    records = ch.store.read(gid, 0, 1000)
    head = _head(ch, gid)
    callers = [Caller(SPECTATOR), Caller(SPECTATOR), Caller(SEAT, 0), Caller(SEAT, 1)]
    behind = [start.version, start.version, start.version, start.version - 1]

    def delivered(watching: list[tuple[Caller, int]]) -> list[bytes]:
        feed = Feed(gid, start)
        feed.records = [r for r in records if r.version <= start.version][-50:]
        pairs = [socket.socketpair() for _ in watching]
        for (ours, _), (caller, version) in zip(pairs, watching, strict=True):
            ours.setblocking(False)
            watch = Watch(feed, cur.game, cur.match.config, caller, version, 0, 0, ("", ()))
            watch.sock = ours
            watch.status = (start.status, start.to_act)
            feed.direct.add(watch)
        with feed.cond:
            feed.records = [r for r in records if r.version <= head.version][-50:]
            feed.head = head
            feed.changed()
        Hub(ch.store, None).push(feed)
        out = []
        for ours, theirs in pairs:
            theirs.setblocking(False)
            out.append(theirs.recv(1 << 20))
            ours.close()
            theirs.close()
        return out

    together = delivered(list(zip(callers, behind, strict=True)))
    alone = [delivered([(c, v)])[0] for c, v in zip(callers, behind, strict=True)]
    assert together == alone
    assert together[0] == together[1]  # one position: one rendering
    assert together[3] != together[2]  # a watcher one version behind: one more event
    assert f"id: {head.version}\n".encode() in together[3]
