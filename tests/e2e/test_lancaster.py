"""Lancaster through HTTP: secret simultaneous votes (LA-2.4, LA-5)."""

from __future__ import annotations

from typing import Any

from tests.support.client import Client
from tests.support.play import new_game


def drive_to_first_vote(api: Client, gid: str, tokens: dict[int, str]) -> None:
    """Everyone takes their first legal action until parliament opens."""
    for _ in range(500):
        if api.view(gid)["state"]["phase"] == "vote":
            return
        s = api.summary(gid)
        seat = s["to_act"][0]
        listed = api.actions(gid, tokens[seat])
        assert (
            api.act(gid, tokens[seat], listed["actions"][0], listed["version"]).status_code == 201
        )
    raise AssertionError("no vote reached")


def seen_by(
    api: Client, gid: str, token: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    view = {k: v for k, v in api.view(gid, token).items() if k != "id"}
    events = api.get(f"/api/v1/games/{gid}/events", token, limit=1000).json()["events"]
    return view, [{k: v for k, v in e.items() if k != "at"} for e in events]


def test_LA_5_a_vote_is_invisible_to_others_until_the_reveal(api: Client) -> None:
    games = []
    for tile in ("yes", "no"):
        gid, tokens = new_game(api, "lancaster", {}, 3, seed="same-seed")
        drive_to_first_vote(api, gid, tokens)
        s = api.summary(gid)
        assert sorted(s["to_act"]) == [0, 1, 2], "votes are simultaneous"
        vote = next(
            a
            for a in api.actions(gid, tokens[1])["actions"]
            if a["tile"] == tile and a["markers"] == 0
        )
        r = api.act(gid, tokens[1], vote, s["version"])
        assert r.status_code == 201, r.text
        assert r.json()["events"][0]["data"]["tile"] == tile  # the voter sees its own vote
        games.append((gid, tokens))
    (g1, t1), (g2, t2) = games
    assert seen_by(api, g1, t1[0]) == seen_by(api, g2, t2[0])
    assert seen_by(api, g1, t1[2]) == seen_by(api, g2, t2[2])
    assert seen_by(api, g1, None) == seen_by(api, g2, None)
    assert seen_by(api, g1, t1[1]) != seen_by(api, g2, t2[1])
    # the reveal is its own event, after the last commitment
    for gid, tokens in games:
        for seat in (0, 2):
            s = api.summary(gid)
            listed = api.actions(gid, tokens[seat])
            assert api.act(gid, tokens[seat], listed["actions"][0], s["version"]).status_code == 201
        types = [
            e["type"]
            for e in api.get(f"/api/v1/games/{gid}/events", tokens[0], limit=1000).json()["events"]
        ]
        assert "VotesRevealed" in types
    revealed = [
        next(
            e
            for e in api.get(f"/api/v1/games/{g}/events", t[0], limit=1000).json()["events"]
            if e["type"] == "VotesRevealed"
        )
        for g, t in games
    ]
    assert revealed[0]["data"] != revealed[1]["data"]


def test_LA_2_4_a_seat_may_take_back_its_vote_before_the_others_vote(api: Client) -> None:
    gid, tokens = new_game(api, "lancaster", {}, 3)
    drive_to_first_vote(api, gid, tokens)
    s = api.summary(gid)
    vote = api.actions(gid, tokens[1])["actions"][0]
    assert api.act(gid, tokens[1], vote, s["version"]).status_code == 201
    assert api.summary(gid)["to_act"] == [0, 2]
    r = api.post(f"/api/v1/games/{gid}/undo", {}, tokens[1])
    assert r.status_code == 200, r.text
    assert sorted(api.summary(gid)["to_act"]) == [0, 1, 2]
    # two seats voting on the same version: the second must reload (409), then succeeds
    v = api.summary(gid)["version"]
    assert api.act(gid, tokens[0], api.actions(gid, tokens[0])["actions"][0], v).status_code == 201
    stale = api.act(gid, tokens[2], api.actions(gid, tokens[2])["actions"][0], v)
    assert stale.status_code == 409 and stale.json()["error"]["details"]["current_version"] == v + 1
