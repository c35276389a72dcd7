"""The stream hub on a real Redis, without its subscription: a feed whose notices were lost
(a reconnect) is brought back by ``resync``, appends and undos alike; and every change the
scripts make is announced on the channel, in order; chat lines and hides whose notices were lost
are found the same way, each for the rooms its watcher may read."""

from __future__ import annotations

import random

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
    ch = Chronicle(RedisEventStore(redis.Redis.from_url(redis_url)), NoJobs())
    players = [{"name": "a"}, {"name": "b"}]
    gid = ch.create(None, "artus", players, {"undo": "host"}, "hub-seed")["id"]
    rng = random.Random(3)
    for _ in range(4):
        _act(ch, gid, rng)
    hub = Hub(ch.store, ch.store.r)
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
    ch.undo(gid, Caller(HOST), created)
    got = []
    for _ in range(50):
        msg = pubsub.get_message(timeout=1)
        if msg and msg["data"].split()[1].decode() == gid:
            got.append(msg["data"].decode())
        if len(got) == 3:
            break
    assert got == [
        f"append {gid} 1 {created}",
        f"append {gid} {created + 1} {v1}",
        f"undo {gid} {created}",
    ]
    pubsub.close()


class Chat:
    """A second kind of notice, as another part of the service would add one."""

    kind = "chat"

    def notice(self, hub: Hub, feed: Feed, args: list[str]) -> None:
        with feed.cond:
            feed.extra["chat"] = int(args[0])
            feed.changed()

    def frames(self, watch: Watch) -> list[bytes]:
        last = watch.feed.extra.get("chat", 0)
        if watch.marks.get("chat", 0) >= last:
            return []
        watch.marks["chat"] = last
        return [sse("chat", None, {"id": last})]


def test_another_kind_is_one_more_source(redis_url: str) -> None:
    ch = Chronicle(RedisEventStore(redis.Redis.from_url(redis_url)), NoJobs())
    gid = ch.create(None, "artus", [{"name": "a"}, {"name": "b"}], None, "hub-seed-3")["id"]
    hub = Hub(ch.store, ch.store.r)
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
