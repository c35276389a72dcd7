"""Table chat through HTTP (contract: v1 additions): rooms, who reads what until the end,
increasing line ids, the length cap and rate limit, hiding (recorded, not erased), the
export, and the game's version untouched."""

from __future__ import annotations

from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client


def say(api: Client, gid: str, body: dict, token: str | None = None):
    return api.post(f"/api/v1/games/{gid}/chat", body, token)


def read(api: Client, gid: str, token: str | None = None, **query) -> list[dict]:
    r = api.get(f"/api/v1/games/{gid}/chat", token, **query)
    assert r.status_code == 200, r.text
    return r.json()["lines"]


def test_chat_rooms_readers_ids_and_the_version(api: Client) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid, host = created["id"], created["host_token"]
    ann, bob = (s["token"] for s in created["seats"])
    version = api.summary(gid)["version"]

    r = say(api, gid, {"text": "hi Bob"}, ann)
    assert r.status_code == 201, r.text
    first = r.json()
    assert say(api, gid, {"text": "hi all", "room": "spectators"}, bob).status_code == 201
    assert say(api, gid, {"text": "go Ann!", "name": "Fan"}).status_code == 201
    # a spectator may not speak in the players' room, nor without a name
    assert say(api, gid, {"text": "psst", "room": "players", "name": "Fan"}).status_code == 403
    assert say(api, gid, {"text": "anon"}).status_code == 400
    assert say(api, gid, {"text": "x" * 501}, ann).status_code == 400
    assert say(api, gid, {"text": ""}, ann).status_code == 400
    assert say(api, gid, {"text": "ok\u0007"}, ann).status_code == 400

    lines = read(api, gid, bob)
    assert [(x["room"], x["seat"], x["name"], x["text"]) for x in lines] == [
        ("players", 0, "Ann", "hi Bob"),
        ("spectators", 1, "Bob", "hi all"),
        ("spectators", None, "Fan", "go Ann!"),
    ]
    ids = [x["id"] for x in lines]
    assert ids == sorted(ids) and len(set(ids)) == 3 and ids[0] == first["id"]
    assert lines[0]["at"] == first["at"]
    assert [x["id"] for x in read(api, gid, bob, after=ids[0])] == ids[1:]
    # spectators (and the host, who has powers, not sight) read only the spectators' room
    assert [x["room"] for x in read(api, gid)] == ["spectators", "spectators"]
    assert [x["room"] for x in read(api, gid, host)] == ["spectators", "spectators"]
    assert api.get(f"/api/v1/games/{gid}/chat", room="players").status_code == 403
    assert len(read(api, gid, ADMIN_TOKEN)) == 3
    assert api.summary(gid)["version"] == version, "chat never changes the version"

    # the host hides a line: kept, shown without its text, exported with it
    assert api.post(f"/api/v1/games/{gid}/chat/{ids[2]}/hide", {}, ann).status_code == 403
    assert api.post(f"/api/v1/games/{gid}/chat/999/hide", {}, host).status_code == 404
    assert api.post(f"/api/v1/games/{gid}/chat/{ids[2]}/hide", {}, host).status_code == 200
    hidden = read(api, gid, ann)[2]
    assert hidden["hidden"] is True and "text" not in hidden and hidden["name"] == "Fan"

    # after the end the players' room is everyone's; the export holds all of it
    assert api.post(f"/api/v1/games/{gid}/abandon", {}, host).status_code == 200
    assert [x["room"] for x in read(api, gid)] == ["players", "spectators", "spectators"]
    export = api.get(f"/api/v1/games/{gid}/export").json()
    assert [x["text"] for x in export["chat"]] == ["hi Bob", "hi all", "go Ann!"]
    assert export["chat"][2]["hidden_by"]["by"] == "host"
    assert export["events"][-1]["type"] == "GameAbandoned"
    imported = api.post("/api/v1/games/import", export, ADMIN_TOKEN)
    assert imported.status_code == 201, imported.text
    assert [x["text"] for x in read(api, imported.json()["id"], ADMIN_TOKEN)[:2]] == [
        "hi Bob",
        "hi all",
    ]


def test_chat_is_rate_limited_per_sender(api: Client) -> None:
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid = created["id"]
    ann, bob = (s["token"] for s in created["seats"])
    codes = [say(api, gid, {"text": f"line {i}"}, ann).status_code for i in range(7)]
    assert codes[:5] == [201] * 5 and codes[5:] == [429, 429]
    r = say(api, gid, {"text": "again"}, ann)
    assert r.json()["error"]["code"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    assert say(api, gid, {"text": "my turn to talk"}, bob).status_code == 201
    assert len(read(api, gid, bob)) == 6
