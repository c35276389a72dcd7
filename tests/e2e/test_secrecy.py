"""Hidden information: what each caller may see, checked through HTTP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.e2e.test_undo import advance_to_play
from tests.support.client import Client


def strip(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "id"}


def events_without_time(api: Client, gid: str, token: str | None) -> list[dict[str, Any]]:
    events = api.get(f"/api/v1/games/{gid}/events", token).json()["events"]
    return [{k: v for k, v in e.items() if k != "at"} for e in events]


def test_AR_8_non_interference_between_seeds(api: Client) -> None:
    games = []
    for seed in ("seed-one", "seed-two"):
        created = api.create("artus", [{"name": "A"}, {"name": "B"}, {"name": "C"}], seed=seed)
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        advance_to_play(api, created["id"], tokens)
        games.append((created["id"], tokens))
    (g1, t1), (g2, t2) = games
    assert strip(api.view(g1)) == strip(api.view(g2))
    assert events_without_time(api, g1, None) == events_without_time(api, g2, None)
    for seat in range(3):
        v1, v2 = api.view(g1, t1[seat]), api.view(g2, t2[seat])
        differing = {k for k in v1["state"] if v1["state"][k] != v2["state"][k]}
        assert differing <= {"hand"}
    assert any(
        api.view(g1, t1[s])["state"]["hand"] != api.view(g2, t2[s])["state"]["hand"]
        for s in range(3)
    ), "different seeds deal different hands"


def test_spectator_and_host_see_no_hand_and_no_seed(api: Client) -> None:
    secret = "my-secret-seed-4242"
    created = api.create("artus", [{"name": "A"}, {"name": "B"}], seed=secret)
    gid = created["id"]
    assert secret not in str(created)
    for token in (None, created["host_token"]):
        view = api.view(gid, token)
        assert "hand" not in view["state"] and "hands" not in view["state"]
        assert view["you"] is None
        for e in api.get(f"/api/v1/games/{gid}/events", token).json()["events"]:
            if e["type"] == "GameStarted":
                assert e["data"]["hands"] == [None, None]
        for path in ("", "/view", "/events", "/audit", "/actions"):
            r = api.get(f"/api/v1/games/{gid}{path}", token)
            assert r.status_code == 200 and secret not in r.text
    assert api.get(f"/api/v1/games/{gid}/export", created["host_token"]).status_code == 403


def test_a_seat_sees_only_its_own_hand_and_draws(api: Client) -> None:
    created = api.create("artus", [{"name": "A"}, {"name": "B"}], options={"rules": "basic"})
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    advance_to_play(api, gid, tokens)
    hands = {s: api.view(gid, tokens[s])["state"]["hand"] for s in (0, 1)}
    assert not set(hands[0]) & set(hands[1])
    for s in (0, 1):
        text = api.get(f"/api/v1/games/{gid}/view", tokens[s]).text
        assert not any(card in text for card in hands[1 - s])
    listed = api.actions(gid, tokens[0])
    assert api.act(gid, tokens[0], listed["actions"][0], listed["version"]).status_code == 201
    listed = api.actions(gid, tokens[0])
    drawn = api.act(gid, tokens[0], listed["actions"][0], listed["version"]).json()["events"][0]
    assert drawn["type"] == "CardDrawn" and "card" in drawn["data"]
    seen_by_other = api.get(
        f"/api/v1/games/{gid}/events", tokens[1], after=drawn["version"] - 1
    ).json()
    assert seen_by_other["events"][0]["data"] == {"pile": drawn["data"]["pile"]}
    assert drawn["data"]["card"] not in api.get(f"/api/v1/games/{gid}/view", tokens[1]).text
