"""Undo by truncation under the three policies of the contract (turn, host, none)."""

from __future__ import annotations

from typing import Any

from tests.support.client import Client
from tests.support.play import new_game


def advance_to_play(api: Client, gid: str, tokens: dict[int, str]) -> None:
    """Place every knight (the first legal seat each time)."""
    while (s := api.summary(gid))["to_act"] and api.view(gid)["state"]["phase"] == "placement":
        seat = s["to_act"][0]
        first = api.actions(gid, tokens[seat])["actions"][0]
        assert api.act(gid, tokens[seat], first, s["version"]).status_code == 201


def undo(api: Client, gid: str, token: str | None, to_version: int | None = None) -> Any:
    body = {} if to_version is None else {"to_version": to_version}
    return api.post(f"/api/v1/games/{gid}/undo", body, token)


def play_first(api: Client, gid: str, token: str) -> dict[str, Any]:
    listed = api.actions(gid, token)
    r = api.act(gid, token, listed["actions"][0], listed["version"])
    assert r.status_code == 201, r.text
    return r.json()


def test_player_undoes_a_card_play_exactly(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "advanced"}, 2)
    advance_to_play(api, gid, tokens)
    before = {t: api.view(gid, t) for t in [None, *tokens.values()]}
    played = play_first(api, gid, tokens[0])
    assert played["events"][0]["type"] == "CardPlayed"
    r = undo(api, gid, tokens[0])
    assert r.status_code == 200, r.text
    assert r.json()["version"] == before[None]["version"]
    assert [e["version"] for e in r.json()["undone"]] == [e["version"] for e in played["events"]]
    for token, view in before.items():
        assert api.view(gid, token) == view
    audit = api.get(f"/api/v1/games/{gid}/audit", tokens[1]).json()
    assert audit["chain_ok"] is True
    [record] = audit["undone"]
    assert record["by"] == "seat:0" and record["to_version"] == before[None]["version"]
    assert record["at"].endswith("Z")


def test_two_card_plays_undone_in_one_request(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "advanced"}, 2)
    advance_to_play(api, gid, tokens)
    start = api.view(gid, tokens[0])
    play_first(api, gid, tokens[0])
    play_first(api, gid, tokens[0])
    assert undo(api, gid, tokens[0], start["version"]).status_code == 200
    assert api.view(gid, tokens[0]) == start


def test_undo_refused_after_a_draw(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    advance_to_play(api, gid, tokens)
    play_first(api, gid, tokens[0])
    drawn = play_first(api, gid, tokens[0])
    assert drawn["events"][0]["type"] == "CardDrawn"
    version = api.summary(gid)["version"]
    r = undo(api, gid, tokens[0])
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "undo_refused"
    assert r.json()["error"]["details"]["reason"] == "hidden_information_revealed"
    assert api.summary(gid)["version"] == version


def test_undo_refused_after_another_seat_acted(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    first = api.summary(gid)["to_act"][0]  # placement starts right of the start player
    play_first(api, gid, tokens[first])
    play_first(api, gid, tokens[1 - first])
    r = undo(api, gid, tokens[first])
    assert r.status_code == 409
    assert r.json()["error"]["details"]["reason"] == "other_seat_acted"
    # ...while the seat that acted last may take its placement back (nothing was revealed).
    assert undo(api, gid, tokens[1 - first]).status_code == 200


def test_spectators_cannot_undo_and_policy_none_refuses(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic", "undo": "none"}, 2)
    first = api.summary(gid)["to_act"][0]
    play_first(api, gid, tokens[first])
    assert undo(api, gid, None).status_code == 403
    r = undo(api, gid, tokens[first])
    assert r.status_code == 409 and r.json()["error"]["details"]["reason"] == "undo_disabled"


def test_host_truncates_and_repeating_a_draw_cannot_reroll(api: Client) -> None:
    created = api.create(
        "artus", [{"name": "A"}, {"name": "B"}], options={"rules": "basic", "undo": "host"}
    )
    gid, host = created["id"], created["host_token"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    advance_to_play(api, gid, tokens)
    play_first(api, gid, tokens[0])
    before_draw = api.summary(gid)["version"]
    drawn = play_first(api, gid, tokens[0])["events"][0]["data"]["card"]
    play_first(api, gid, tokens[1])
    # the host may truncate past a draw and another seat's action
    r = undo(api, gid, host, before_draw)
    assert r.status_code == 200, r.text
    assert api.summary(gid)["version"] == before_draw
    again = play_first(api, gid, tokens[0])["events"][0]["data"]["card"]
    assert again == drawn
    # but never into the set-up (the deal), and not without naming a version
    assert undo(api, gid, host, 1).json()["error"]["details"]["reason"] == "bad_version"
    assert undo(api, gid, host).status_code == 409


def test_host_may_not_truncate_under_policy_turn(api: Client) -> None:
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    first = api.summary(gid)["to_act"][0]
    play_first(api, gid, tokens[first])
    r = undo(api, gid, created["host_token"], 2)
    assert r.status_code == 409 and r.json()["error"]["details"]["reason"] == "not_allowed"
