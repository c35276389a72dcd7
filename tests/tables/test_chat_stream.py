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


def frames_until(st: Stream, last: int) -> list[dict[str, Any]]:
    """Chat frames up to the one of line ``last``."""
    out: list[dict[str, Any]] = []
    while not out or out[-1]["id"] != last:
        out += chat_frames(st, 1)
    return out


def firsts(lines: list[dict[str, Any]]) -> list[int]:
    """Line ids in the order they first came."""
    return list(dict.fromkeys(x["id"] for x in lines))


def finals(lines: list[dict[str, Any]]) -> dict[int, str]:
    """Each line as its last frame left it."""
    return {x["id"]: "(hidden)" if x.get("hidden") else x["text"] for x in lines}


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
        got = frames_until(st, end)
        # a watcher that woke late may get a line only as it is by then (hidden), once
        assert firsts(got) == [plan, hi, go, end]
        assert finals(got) == {plan: "(hidden)", hi: "hi all", go: "(hidden)", end: "the end"}
        shown = [x for x in got if x["id"] == plan and not x.get("hidden")]
        assert all(
            x
            == {
                "id": plan,
                "room": "players",
                "seat": 0,
                "name": "Ann",
                "at": x["at"],
                "text": "secret plan",
            }
            for x in shown
        )
        hidden = [x for x in got if x.get("hidden")]
        assert hidden and all("text" not in x for x in hidden)
        assert {x["room"] for x in got if x["id"] == plan} == {"players"}
    for st in (spectator, host_st):  # the host has powers, not sight
        got = frames_until(st, end)
        assert firsts(got) == [hi, go, end]
        assert finals(got) == {hi: "hi all", go: "(hidden)", end: "the end"}
        assert {x["room"] for x in got} == {"spectators"}
        assert all("text" not in x for x in got if x.get("hidden"))
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
