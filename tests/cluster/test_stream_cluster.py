"""Push on a Redis Cluster: games on every master, watched through one process; each stream
gets its own game's events, undo notices and chat lines, long-polls are answered, and the
process holds one subscription whatever the number of watchers."""

from __future__ import annotations

import threading

import requests
from redis.cluster import RedisCluster

from domain.errors import Refused
from projections.views import SEAT, Caller
from service.chronicle import Chronicle
from service.connections import connect
from service.jobs import NoJobs
from service.redis_store import RedisEventStore, keys
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import new_game
from tests.support.sse import Frame, Stream


def _next(st: Stream) -> Frame:
    for _ in range(50):
        frame = st.next()
        if frame.kind in ("events", "undo"):
            return frame
    raise AssertionError("no events")


def _clients(client: RedisCluster) -> int:
    info = client.info("clients", target_nodes=RedisCluster.PRIMARIES)
    return sum(int(v["connected_clients"]) for v in info.values())


def test_streams_and_long_polls_on_every_master(cluster_api_url: str, cluster_url: str) -> None:
    client = connect(cluster_url)
    ch = Chronicle(RedisEventStore(client), NoJobs(), ADMIN_TOKEN)
    api = Client(cluster_api_url)
    games: list[str] = []
    nodes: set[str] = set()
    while len(nodes) < 3 or len(games) < 6:
        gid, _ = new_game(api, "artus", {"rules": "basic", "undo": "turn"}, 2)
        games.append(gid)
        nodes.add(client.get_node_from_key(keys(gid)["log"]).name)
        assert len(games) < 40, "the games did not reach every master"
    streams = {gid: Stream(f"{cluster_api_url}/api/v1/games/{gid}/stream") for gid in games}
    for st in streams.values():
        assert st.until("status")[0].kind == "status"
    extra = [Stream(f"{cluster_api_url}/api/v1/games/{games[0]}/stream") for _ in range(20)]
    for st in extra:
        st.until("status")
    polls: dict[str, requests.Response] = {}

    def poll(gid: str, after: int) -> None:
        url = f"{cluster_api_url}/api/v1/games/{gid}/events"
        polls[gid] = requests.get(url, params={"after": after, "wait": 20}, timeout=30)

    waiting, mover = [], {}
    for gid in games:
        cur = ch.current(gid)
        t = threading.Thread(target=poll, args=(gid, cur.match.version))
        t.start()
        waiting.append(t)
    for gid in games:
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        action = cur.game.legal_actions(cur.match.state, seat)[0]
        version = ch.act(gid, Caller(SEAT, seat), action, cur.match.version)["version"]
        mover[gid] = seat
        frame = _next(streams[gid])
        assert frame.id == str(version) and frame.data["events"][0]["version"] == version
    # every watcher had the move before any undo: an undo cuts the move from the log, and a
    # watcher not yet past it has nothing to be told
    for t in waiting:
        t.join(30)
    assert sorted(polls) == sorted(games)
    assert all(r.status_code == 200 and r.json()["events"] for r in polls.values())
    for gid in games:  # chat lines too, from every master, each to its own game's streams
        r = api.post(f"/api/v1/games/{gid}/chat", {"text": f"hello {gid}", "name": "Fan"})
        assert r.status_code == 201, r.text
        frame, _ = streams[gid].until("chat")
        assert frame.data["text"] == f"hello {gid}" and frame.data["id"] == r.json()["id"]
    for st in extra:
        assert _next(st).kind == "events"
    for gid in games:
        try:
            undone = ch.undo(gid, Caller(SEAT, mover[gid]), None)["version"]
        except Refused:
            continue
        frame = _next(streams[gid])
        assert frame.kind == "undo" and frame.data == {"version": undone}
    # not one connection per watcher: 20 more watchers of a game on another master, once the
    # process's pools are warm (the chat posts and reads above open their own connections)
    before = _clients(client)
    more = [Stream(f"{cluster_api_url}/api/v1/games/{games[1]}/stream") for _ in range(20)]
    for st in more:
        st.until("status")
    after = _clients(client)
    assert after <= before + 3, (before, after)
    for st in [*streams.values(), *extra, *more]:
        st.close()
