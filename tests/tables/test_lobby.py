"""Tables through HTTP (contract: v1 additions): open seats, invitations, the lobby, leaving,
starting early, resigning and abandoning; the acceptance game is a Lancaster table of three
people who join by invitation and play it to the end with the real worker scoring it."""

from __future__ import annotations

import random
from typing import Any

from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import play_random

OPEN = {"open": True}


def join(api: Client, gid: str, name: str, invitation: str | None = None):
    body = {"name": name, **({"invitation": invitation} if invitation else {})}
    return api.post(f"/api/v1/games/{gid}/join", body)


def error(r) -> str:
    return r.json()["error"]["code"]


def test_three_people_join_a_lancaster_table_by_invitation_and_play_it_to_the_end(
    api: Client, worker
) -> None:
    created = api.create("lancaster", [OPEN, OPEN, OPEN])
    gid = created["id"]
    assert created["seats"] == [{"seat": s, "open": True} for s in range(3)]
    assert [i["seat"] for i in created["invitations"]] == [0, 1, 2]
    codes = {i["seat"]: i["code"] for i in created["invitations"]}
    assert all(c.replace("-", "").replace("_", "").isalnum() for c in codes.values()), "link-safe"
    s = api.summary(gid)
    assert s["status"] == "waiting" and s["to_act"] == []
    assert s["seats"] == [{"seat": i, "open": True} for i in range(3)]
    version = s["version"]

    # no invitation, a wrong one: 403, nothing appended
    assert error(join(api, gid, "Eve")) == "forbidden"
    assert join(api, gid, "Eve", "not-a-code").status_code == 403
    assert api.summary(gid)["version"] == version

    tokens: dict[int, str] = {}
    for seat, name in ((1, "Bea"), (0, "Ann")):
        r = join(api, gid, name, codes[seat])
        assert r.status_code == 201, r.text
        assert r.json()["seat"] == seat
        tokens[seat] = r.json()["token"]
    # a used invitation
    r = join(api, gid, "Mallory", codes[1])
    assert r.status_code == 409 and error(r) == "seat_taken"
    s = api.summary(gid)
    assert s["status"] == "waiting"
    assert s["seats"][2] == {"seat": 2, "open": True}
    assert s["seats"][0]["name"] == "Ann" and s["seats"][1]["name"] == "Bea"

    r = join(api, gid, "Cid", codes[2])
    assert r.status_code == 201, r.text
    tokens[2] = r.json()["token"]
    s = api.summary(gid)
    assert s["status"] == "active" and s["to_act"]
    # a late join, with or without a (used or unused) invitation
    for code in (codes[0], None, "x"):
        r = join(api, gid, "Late", code)
        assert r.status_code == 409 and error(r) == "game_not_waiting", r.text
    r = api.post(f"/api/v1/games/{gid}/leave", {}, tokens[0])
    assert r.status_code == 409 and error(r) == "game_not_waiting"

    events = api.get(f"/api/v1/games/{gid}/events", tokens[0], limit=1000).json()["events"]
    kinds = ("Seat", "GameStarted")
    table = [(e["type"], e["data"]) for e in events if e["type"].startswith(kinds)]
    assert table == [
        ("SeatJoined", {"seat": 1, "name": "Bea"}),
        ("SeatJoined", {"seat": 0, "name": "Ann"}),
        ("SeatJoined", {"seat": 2, "name": "Cid"}),
        ("GameStarted", {"filled": {}}),
    ]

    play_random(api, gid, tokens, random.Random(5))
    final = api.wait_status(gid, "finished", timeout=60)
    assert set(final["result"]["scores"]) == {"0", "1", "2"}
    assert final["result"]["details"]["resigned"] == []

    # replay: the exported log, joins included, replays through the rules
    export = api.get(f"/api/v1/games/{gid}/export").json()
    r = api.post("/api/v1/games/import", export, ADMIN_TOKEN)
    assert r.status_code == 201, r.text
    again = api.summary(r.json()["id"])
    assert again["result"] == final["result"]
    assert [x["name"] for x in again["seats"]] == ["Ann", "Bea", "Cid"]


def test_leaving_opens_the_seat_again_and_voids_the_token(api: Client) -> None:
    created = api.create("artus", [{"name": "Host"}, OPEN, OPEN])
    gid = created["id"]
    codes = {i["seat"]: i["code"] for i in created["invitations"]}
    assert created["seats"][0]["token"] and created["seats"][1] == {"seat": 1, "open": True}
    first = join(api, gid, "Bob", codes[1]).json()
    r = api.post(f"/api/v1/games/{gid}/leave", {}, first["token"])
    assert r.status_code == 200, r.text
    assert api.summary(gid)["seats"][1] == {"seat": 1, "open": True}
    assert api.get(f"/api/v1/games/{gid}/view", first["token"]).status_code == 401
    # the host's own seat was named at creation: it cannot be left
    r = api.post(f"/api/v1/games/{gid}/leave", {}, created["seats"][0]["token"])
    assert r.status_code == 403
    # the invitation works again, with a new token
    second = join(api, gid, "Carl", codes[1])
    assert second.status_code == 201 and second.json()["token"] != first["token"]
    assert api.summary(gid)["status"] == "waiting"
    assert join(api, gid, "Dora", codes[2]).status_code == 201
    s = api.summary(gid)
    assert s["status"] == "active" and s["seats"][1]["name"] == "Carl"
    types = [e["type"] for e in api.get(f"/api/v1/games/{gid}/events", limit=100).json()["events"]]
    assert types[-5:] == ["SeatJoined", "SeatLeft", "SeatJoined", "SeatJoined", "GameStarted"]


def test_the_lobby_lists_public_tables_and_a_public_join_takes_the_lowest_open_seat(
    api: Client, worker
) -> None:
    public = api.create("kings-and-castles", [OPEN, {"name": "Host"}, OPEN], public=True)
    private = api.create("kings-and-castles", [OPEN, {"name": "Host"}])
    listed = api.get("/api/v1/games", status="waiting", per_page=100).json()["games"]
    ids = {g["id"] for g in listed}
    assert public["id"] in ids and private["id"] not in ids
    assert all(g["status"] == "waiting" and g["public"] for g in listed)

    r = join(api, public["id"], "Pat", "ignored-invitation")
    assert r.status_code == 201 and r.json()["seat"] == 0
    # the host starts early: the other open seat goes to a bot
    host = public["host_token"]
    assert api.post(f"/api/v1/games/{public['id']}/start", {}, r.json()["token"]).status_code == 403
    r = api.post(f"/api/v1/games/{public['id']}/start", {"fill": "random"}, host)
    assert r.status_code == 200, r.text
    assert r.json()["filled"] == {"2": "random"}
    s = api.summary(public["id"])
    assert s["status"] == "active"
    assert s["seats"][2]["bot"] == "random"
    r = api.post(f"/api/v1/games/{public['id']}/start", {}, host)
    assert r.status_code == 409 and error(r) == "game_not_waiting"
    assert public["id"] not in {
        g["id"] for g in api.get("/api/v1/games", status="waiting", per_page=100).json()["games"]
    }


def test_a_waiting_table_takes_no_action(api: Client) -> None:
    created = api.create("artus", [{"name": "A"}, OPEN])
    gid, token = created["id"], created["seats"][0]["token"]
    assert api.actions(gid, token)["actions"] == []
    r = api.act(gid, token, {"type": "place_knight", "seat": 1}, api.summary(gid)["version"])
    assert r.status_code == 403 and r.json()["error"]["details"]["reason"] == "not_started"


def test_creation_fields_are_checked(api: Client) -> None:
    bad: list[dict[str, Any]] = [
        {"players": [{"open": True, "name": "x"}, {"name": "b"}]},
        {"players": [{"open": True, "bot": "greedy"}, {"name": "b"}]},
        {"players": [{}, {"name": "b"}]},
        {"players": [{"name": "a"}, {"name": "b"}], "turn_time": "P1M"},
        {"players": [{"name": "a"}, {"name": "b"}], "turn_time": "PT0.5S"},
        {"players": [{"name": "a"}, {"name": "b"}], "turn_time": "soon"},
        {"players": [{"name": "a"}, {"name": "b"}], "resign_bot": "skynet"},
        {"players": [{"name": "a"}, {"name": "b"}], "timeouts_before_takeover": 0},
    ]
    for body in bad:
        r = api.post("/api/v1/games", {"game": "artus", **body})
        assert r.status_code == 400, (body, r.text)


def test_resign_the_bot_finishes_and_the_result_names_the_resigning_seat(
    api: Client, worker
) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}], resign_bot="random")
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    r = api.post(f"/api/v1/games/{gid}/resign", {}, tokens[0])
    assert r.status_code == 200 and r.json()["bot"] == "random", r.text
    r = api.post(f"/api/v1/games/{gid}/resign", {}, tokens[0])
    assert r.status_code == 403
    s = api.summary(gid)
    assert s["seats"][0] == {"seat": 0, "name": "Ann", "bot": "random", "resigned": True}
    # the resigned seat may still look, not act
    rng = random.Random(3)
    for _ in range(5000):
        s = api.summary(gid)
        if s["status"] != "active":
            break
        if 1 not in s["to_act"]:
            api.get(f"/api/v1/games/{gid}/events", tokens[1], after=s["version"], wait=2)
            continue
        listed = api.actions(gid, tokens[1])
        if not listed["actions"]:
            continue
        r = api.act(gid, tokens[1], rng.choice(listed["actions"]), listed["version"])
        assert r.status_code in (201, 409), r.text
    final = api.wait_status(gid, "finished", timeout=60)
    assert final["result"]["details"]["resigned"] == [0]
    audit = api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
    resigned_at = next(e["version"] for e in audit["events"] if e["type"] == "SeatResigned")
    assert any(e["actor"] == 0 and e["version"] > resigned_at for e in audit["events"]), (
        "the bot played the resigned seat"
    )
    r = api.act(gid, tokens[0], {"type": "draw", "pile": "knight"}, final["version"])
    assert r.status_code == 403


def test_a_resigned_seat_cannot_act_or_undo(api: Client) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    s = api.summary(gid)
    seat = s["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    assert api.act(gid, tokens[seat], listed["actions"][0], listed["version"]).status_code == 201
    assert api.post(f"/api/v1/games/{gid}/resign", {}, tokens[seat]).status_code == 200
    r = api.post(f"/api/v1/games/{gid}/undo", {}, tokens[seat])
    assert r.status_code == 409 and r.json()["error"]["code"] == "undo_refused"
    assert r.json()["error"]["details"]["reason"] == "played_by_bot"


def test_abandon_ends_the_game_without_a_result_and_reveals_everything(api: Client) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid, host = created["id"], created["host_token"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    assert api.post(f"/api/v1/games/{gid}/abandon", {}, tokens[0]).status_code == 403
    assert api.get(f"/api/v1/games/{gid}/export").status_code == 403
    r = api.post(f"/api/v1/games/{gid}/abandon", {}, host)
    assert r.status_code == 200 and r.json()["status"] == "abandoned", r.text
    s = api.summary(gid)
    assert s["status"] == "abandoned" and s["to_act"] == [] and "result" not in s
    assert api.get(f"/api/v1/games/{gid}/export").status_code == 200
    spectator = api.view(gid)
    assert spectator["state"] == api.view(gid, ADMIN_TOKEN)["state"], "all is revealed"
    assert api.post(f"/api/v1/games/{gid}/abandon", {}, host).status_code == 403
    r = api.act(gid, tokens[0], {"type": "place_knight", "seat": 1}, s["version"])
    assert r.status_code == 403
    types = [e["type"] for e in api.get(f"/api/v1/games/{gid}/events", limit=100).json()["events"]]
    assert types[-1] == "GameAbandoned"


def test_racing_joins_of_a_public_table_get_distinct_seats(api: Client) -> None:
    from concurrent.futures import ThreadPoolExecutor

    created = api.create("kings-and-castles", [OPEN] * 4, public=True)
    gid = created["id"]
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda i: join(api, gid, f"p{i}"), range(6)))
    won = [r.json() for r in answers if r.status_code == 201]
    lost = [r for r in answers if r.status_code != 201]
    assert sorted(w["seat"] for w in won) == [0, 1, 2, 3]
    assert len(lost) == 2 and all(error(r) in ("game_not_waiting", "seat_taken") for r in lost)
    s = api.summary(gid)
    assert s["status"] == "active"
    events = api.get(f"/api/v1/games/{gid}/events", limit=100).json()["events"]
    assert [e["type"] for e in events].count("SeatJoined") == 4
