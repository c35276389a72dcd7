"""Conditional appends under contention, and idempotent retries."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.support.client import Client
from tests.support.play import new_game


def test_twenty_concurrent_posts_one_winner(server_url: str) -> None:
    api = Client(server_url)
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    seat = api.summary(gid)["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    action, version = listed["actions"][0], listed["version"]

    def post(_: int) -> int:
        return Client(server_url).act(gid, tokens[seat], action, version).status_code

    with ThreadPoolExecutor(20) as pool:
        codes = sorted(pool.map(post, range(20)))
    assert codes == [201] + [409] * 19
    events = api.get(f"/api/v1/games/{gid}/events").json()["events"]
    assert [e["version"] for e in events] == list(range(1, version + 2))
    assert sum(e["type"] == "KnightPlaced" for e in events) == 1


def test_retried_idempotency_key_returns_the_first_response(server_url: str) -> None:
    api = Client(server_url)
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    seat = api.summary(gid)["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    first = api.act(gid, tokens[seat], listed["actions"][0], listed["version"], key="k-1")
    assert first.status_code == 201
    again = api.act(gid, tokens[seat], listed["actions"][0], listed["version"], key="k-1")
    assert again.status_code == 201 and again.json() == first.json()
    assert api.summary(gid)["version"] == listed["version"] + 1

    def post(_: int) -> dict:
        r = Client(server_url).act(gid, tokens[1 - seat], nxt["actions"][0], nxt["version"], "k-2")
        assert r.status_code == 201, r.text
        return r.json()

    nxt = api.actions(gid, tokens[1 - seat])
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(post, range(10)))
    assert all(a == answers[0] for a in answers)
    assert api.summary(gid)["version"] == nxt["version"] + 1


def test_idempotency_keys_are_per_seat(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    seat = api.summary(gid)["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    assert (
        api.act(gid, tokens[seat], listed["actions"][0], listed["version"], "same").status_code
        == 201
    )
    # the other seat's same key is a different request: it is not answered from seat's response
    nxt = api.actions(gid, tokens[1 - seat])
    r = api.act(gid, tokens[1 - seat], nxt["actions"][0], nxt["version"], "same")
    assert r.status_code == 201 and r.json()["events"][0]["seat"] == 1 - seat
