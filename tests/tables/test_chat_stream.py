"""Table chat on the push stream, through HTTP: each watcher receives exactly the lines its
caller may read (the players' room: the seats only, until the end), a hide as the line again
without its text, a resume by ``?chat_after=`` with what it missed, and at the end the
players' room for everyone."""

from __future__ import annotations

from typing import Any

from tests.support.client import Client
from tests.support.sse import Stream


def chat_frames(st: Stream, n: int) -> list[dict[str, Any]]:
    """The next ``n`` chat frames (other frames skipped); none has an ``id:``."""
    out: list[dict[str, Any]] = []
    while len(out) < n:
        f = st.next()
        if f.kind == "chat":
            assert f.id is None, f
            out.append(f.data)
    return out


def short(lines: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(x["id"], "(hidden)" if x.get("hidden") else x["text"]) for x in lines]


def test_the_stream_carries_the_chat_each_caller_may_read(api: Client, server_url: str) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid, host = created["id"], created["host_token"]
    ann, bob = (s["token"] for s in created["seats"])
    url = f"{server_url}/api/v1/games/{gid}/stream"
    ticket = api.post(f"/api/v1/games/{gid}/stream-ticket", {}, bob).json()["ticket"]
    seat0 = Stream(url, headers={"Authorization": f"Bearer {ann}"})
    seat1 = Stream(url, params={"ticket": ticket})
    spectator = Stream(url)
    host_st = Stream(url, headers={"Authorization": f"Bearer {host}"})
    watchers = (seat0, seat1, spectator, host_st)
    for st in watchers:
        assert st.status == 200
        st.until("status")
    version = api.summary(gid)["version"]

    def say(body: dict[str, Any], token: str | None = None) -> int:
        r = api.post(f"/api/v1/games/{gid}/chat", body, token)
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    def hide(line: int) -> None:
        assert api.post(f"/api/v1/games/{gid}/chat/{line}/hide", {}, host).status_code == 200

    plan = say({"text": "secret plan"}, ann)  # the players' room
    hi = say({"text": "hi all", "room": "spectators"}, bob)
    go = say({"text": "go Ann!", "name": "Fan"})
    hide(plan)
    hide(go)
    end = say({"text": "the end", "name": "Fan"})
    for st in (seat0, seat1):
        got = chat_frames(st, 6)
        assert short(got) == [
            (plan, "secret plan"),
            (hi, "hi all"),
            (go, "go Ann!"),
            (plan, "(hidden)"),
            (go, "(hidden)"),
            (end, "the end"),
        ]
        assert got[0] == {
            "id": plan,
            "room": "players",
            "seat": 0,
            "name": "Ann",
            "at": got[0]["at"],
            "text": "secret plan",
        }
        assert "text" not in got[3] and got[3]["room"] == "players"
    for st in (spectator, host_st):  # the host has powers, not sight
        got = chat_frames(st, 4)
        assert short(got) == [(hi, "hi all"), (go, "go Ann!"), (go, "(hidden)"), (end, "the end")]
        assert {x["room"] for x in got} == {"spectators"}
    assert api.summary(gid)["version"] == version, "chat never changes the version"

    # a resume: the lines after the position, the hidden ones up to it again
    with Stream(url, params={"chat_after": 0}) as again:
        assert short(chat_frames(again, 3)) == [(hi, "hi all"), (go, "(hidden)"), (end, "the end")]
    params = {"after": version, "chat_after": hi}
    with Stream(url, headers={"Authorization": f"Bearer {bob}"}, params=params) as again:
        assert short(chat_frames(again, 3)) == [
            (plan, "(hidden)"),
            (go, "(hidden)"),
            (end, "the end"),
        ]
    assert Stream(url, params={"chat_after": -1}).status == 400

    # at the end the players' room is everyone's: a spectator is sent what it could not read
    gg = say({"text": "gg"}, bob)
    assert short(chat_frames(seat0, 1)) == [(gg, "gg")]
    assert api.post(f"/api/v1/games/{gid}/abandon", {}, host).status_code == 200
    assert short(chat_frames(spectator, 2)) == [(plan, "(hidden)"), (gg, "gg")]
    last = say({"text": "bye"}, ann)
    assert short(chat_frames(spectator, 1)) == [(last, "bye")]
    assert short(chat_frames(seat1, 2)) == [(gg, "gg"), (last, "bye")]
    for st in watchers:
        st.close()
