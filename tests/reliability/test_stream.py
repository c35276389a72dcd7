"""Push updates through `chronicle serve` (issue 10): ``GET /games/{id}/stream``.

One Artus game is played by random legal actions (with undos) while a spectator, seat 0 (by
its header) and seat 1 (by a stream ticket) watch.  Every event each receives is checked
against what that caller may not see at that version (the leak sweep's oracle,
``tests/reliability/secrets.py``); each undo arrives as an ``undo`` notice; a stream resumes
after its ``Last-Event-ID`` or ``?after``; heartbeats come while nothing happens; and thirty
more watchers do not add Redis connections.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import requests

from domain.engine import Match
from domain.errors import Refused
from domain.games import GAMES
from projections.fold import fold
from projections.views import SEAT, Caller
from service.chronicle import Chronicle
from service.connections import connect
from service.jobs import NoJobs
from service.redis_store import RedisEventStore
from tests.conftest import ADMIN_TOKEN
from tests.reliability.secrets import problems
from tests.reliability.served import served
from tests.support.client import Client
from tests.support.openapi import Validators, published
from tests.support.sse import Frame, Stream


def _matches(ch: Chronicle, gid: str) -> list[Any]:
    game = GAMES["artus"]
    out: list[Match | None] = [None]
    for rec in ch.store.read(gid, 0, 100_000):
        out.append(fold(game, [rec], out[-1]) if out[-1] is not None else fold(game, [rec]))
    return out


def test_the_stream_delivers_redacts_resumes_and_beats(tmp_path: Path) -> None:
    with served(tmp_path, CHRONICLE_STREAM_HEARTBEAT="1") as s:
        api = Client(s.base)
        ch = Chronicle(
            RedisEventStore(connect(f"unix://{s.data / 'redis' / 'redis.sock'}")),
            NoJobs(),
            ADMIN_TOKEN,
        )
        game = api.create(
            "artus", [{"name": "a"}, {"name": "b"}], options={"rules": "basic", "undo": "turn"}
        )
        gid, tokens = game["id"], [x["token"] for x in game["seats"]]
        url = f"{s.base}/api/v1/games/{gid}/stream"

        # a ticket for seat 1: a seat token only, a minute, and never the token in the URL
        r = api.post(f"/api/v1/games/{gid}/stream-ticket", {}, tokens[1])
        assert r.status_code == 200, r.text
        ticket = r.json()
        assert ticket["expires_in"] == 60 and tokens[1] not in ticket["ticket"]
        assert api.post(f"/api/v1/games/{gid}/stream-ticket", {}).status_code in (401, 403)
        bad = Stream(url, params={"ticket": ticket["ticket"][:-2] + "xx"})
        assert bad.status == 401 and bad.response.json()["error"]["code"] == "unauthorized"
        assert Stream(f"{s.base}/api/v1/games/nosuchgame/stream").status == 404

        watchers = {
            "spectator": (Stream(url), None),
            "seat0": (Stream(url, headers={"Authorization": f"Bearer {tokens[0]}"}), 0),
            "seat1": (Stream(url, params={"ticket": ticket["ticket"]}), 1),
        }
        version = game["version"]
        for name, (st, _) in watchers.items():
            assert st.status == 200, name
            assert st.response.headers["Content-Type"].startswith("text/event-stream")
            first, _ = st.until("status")
            _checked(first)
            assert first.data["version"] == version and first.id == str(version), first

        # heartbeats while nothing happens
        beats = [f for f in watchers["spectator"][0].until("comment")[1] if f.kind == "comment"]
        beats += [f for f in watchers["spectator"][0].until("comment")[1] if f.kind == "comment"]
        assert len(beats) == 2 and beats[1].at - beats[0].at < 2.5

        rng = random.Random(7)
        seen: dict[str, list[dict]] = {name: [] for name in watchers}
        undos = drawn_by_other = 0
        for _step in range(60):
            cur = ch.current(gid)
            to_act = cur.match.to_act(cur.game)
            seat = rng.choice(to_act)
            action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
            version = ch.act(gid, Caller(SEAT, seat), action, cur.match.version)["version"]
            for name, (st, _) in watchers.items():
                frame, _ = _next_data(st)
                assert frame.kind == "events", (name, frame)
                assert frame.id == str(version) and frame.data["version"] == version
                seen[name] += frame.data["events"]
            if rng.random() < 0.15:
                try:
                    version = ch.undo(gid, Caller(SEAT, seat), None)["version"]
                except Refused:  # a draw revealed something since
                    pass
                else:
                    undos += 1
                    for name, (st, _) in watchers.items():
                        frame, _ = _next_data(st)
                        assert frame.kind == "undo" and frame.data == {"version": version}, frame
                        assert frame.id == str(version)
                        seen[name] = [e for e in seen[name] if e["version"] <= version]
            matches = _matches(ch, gid)
            for name, (_, sight) in watchers.items():
                for e in seen[name]:
                    if e["version"] > version:
                        continue
                    found = problems("artus", "event", e, matches[e["version"]], sight)
                    assert not found, (name, found)
        assert undos >= 2
        # what one seat drew, the other saw as a draw from a pile only
        for e0, e1 in zip(seen["seat0"], seen["seat1"], strict=True):
            if e0["type"] == "CardDrawn" and e0["seat"] == 1:
                assert set(e0["data"]) == {"pile"} and "card" in e1["data"]
                drawn_by_other += 1
        assert drawn_by_other, "no draw by seat 1 to compare"

        # resume: after the id last seen (header) or ?after, no status first
        last = version
        watchers["seat0"][0].close()
        for _ in range(3):
            cur = ch.current(gid)
            seat = cur.match.to_act(cur.game)[0]
            action = cur.game.legal_actions(cur.match.state, seat)[0]
            version = ch.act(gid, Caller(SEAT, seat), action, cur.match.version)["version"]
        headers = {"Authorization": f"Bearer {tokens[0]}", "Last-Event-ID": str(last)}
        for resumed in (
            Stream(url, headers=headers),
            Stream(
                url, params={"after": last}, headers={"Authorization": headers["Authorization"]}
            ),
        ):
            frames: list[Frame] = []
            skipped: list[Frame] = []
            while not frames or _version_of(frames[-1]) < version:
                frame, passed = _next_data(resumed)
                frames.append(frame)
                skipped += passed
            assert [f.kind for f in frames] == ["events"] * len(frames)
            assert not [f for f in skipped if f.kind == "status"], "a resumed stream: no status"
            got = [e["version"] for f in frames for e in f.data["events"]]
            assert got == list(range(last + 1, version + 1))
            resumed.close()

        # a resume past the head (the log was undone since) is told where the log is
        stale = Stream(url, params={"after": version + 5})
        frame, _ = _next_data(stale)
        assert frame.kind == "undo" and frame.data == {"version": version}
        stale.close()

        # thirty more watchers, no more Redis connections
        before = int(s.redis().info("clients")["connected_clients"])
        more = [Stream(url) for _ in range(30)]
        for st in more:
            st.until("status")
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        action = cur.game.legal_actions(cur.match.state, seat)[0]
        version = ch.act(gid, Caller(SEAT, seat), action, cur.match.version)["version"]
        for st in more:
            assert _next_data(st)[0].id == str(version)
        after = int(s.redis().info("clients")["connected_clients"])
        assert after <= before + 2, (before, after)
        for st in more:
            st.close()
        for st, _ in watchers.values():
            st.close()

        doc = requests.get(f"{s.base}/api/v1/openapi.json", timeout=5).json()
        assert "/api/v1/games/{game_id}/stream" in doc["paths"]
        assert "/api/v1/games/{game_id}/stream-ticket" in doc["paths"]
        print(
            f"\nFIGURE stream: {sum(len(v) for v in seen.values())} events to 3 watchers checked, "
            f"{undos} undo notices; Redis connections {before} -> {after} with 30 more watchers"
        )


_DOC: list[Validators] = []


def _checked(frame: Frame) -> Frame:
    """A data frame validates against its component in the published document (by the stream
    response's ``x-frame-data``)."""
    if not _DOC:
        _DOC.append(Validators(published()))
    ok = _DOC[0].doc["paths"]["/api/v1/games/{game_id}/stream"]["get"]["responses"]["200"]
    refs = ok["content"]["text/event-stream"]["schema"]["x-frame-data"]
    if frame.kind in refs:
        _DOC[0].check(refs[frame.kind]["$ref"].rsplit("/", 1)[1], frame.data)
    return frame


def _version_of(frame: Frame) -> int:
    """The version an ``events`` or ``undo`` frame's id names."""
    assert frame.id is not None, frame
    return int(frame.id)


def _next_data(st: Stream) -> tuple[Frame, list[Frame]]:
    """The next ``events`` or ``undo`` frame (heartbeats and status changes skipped), each
    frame checked against the document."""
    skipped: list[Frame] = []
    for _ in range(100):
        frame = _checked(st.next())
        if frame.kind not in ("comment", "retry", "status"):
            return frame, skipped
        skipped.append(frame)
    raise AssertionError("only heartbeats")


def test_a_stream_ticket_expires(tmp_path: Path) -> None:
    with served(tmp_path, CHRONICLE_STREAM_TICKET_SECONDS="1") as s:
        api = Client(s.base)
        game = api.create("artus", [{"name": "a"}, {"name": "b"}])
        gid, token = game["id"], game["seats"][0]["token"]
        ticket = api.post(f"/api/v1/games/{gid}/stream-ticket", {}, token).json()["ticket"]
        other = api.create("artus", [{"name": "a"}, {"name": "b"}])["id"]
        url = f"{s.base}/api/v1/games/{{}}/stream"
        assert Stream(url.format(other), params={"ticket": ticket}).status == 401
        ok = Stream(url.format(gid), params={"ticket": ticket})
        assert ok.status == 200
        ok.close()
        time.sleep(2.1)
        assert Stream(url.format(gid), params={"ticket": ticket}).status == 401
