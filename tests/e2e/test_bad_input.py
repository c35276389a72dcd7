"""Bad input gets a clear 4xx in the contract's error shape; nothing is appended; no 5xx."""

from __future__ import annotations

import json

import pytest
import requests

from tests.support.client import Client


@pytest.fixture
def game(api: Client) -> tuple[str, dict[int, str], int]:
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    return created["id"], tokens, api.summary(created["id"])["to_act"][0]


def error(r: requests.Response, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["code"] == code and body["message"] and isinstance(body["details"], dict)
    return body


def unchanged(api: Client, gid: str, version: int) -> None:
    assert api.summary(gid)["version"] == version


def raw_post(
    api: Client, path: str, data: bytes, token: str | None = None, ctype: str = "application/json"
) -> requests.Response:
    headers = {"Content-Type": ctype, **({"Authorization": f"Bearer {token}"} if token else {})}
    return api.http.post(api.base + path, data=data, headers=headers, timeout=10)


def test_malformed_json(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    error(
        raw_post(api, f"/api/v1/games/{gid}/actions", b"{not json", tokens[seat]),
        400,
        "bad_request",
    )
    error(raw_post(api, "/api/v1/games", b"[1, 2", None), 400, "bad_request")
    unchanged(api, gid, v)


def test_wrong_types_and_unknown_fields_are_named(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    path = f"/api/v1/games/{gid}/actions"
    body = error(
        api.post(
            path,
            {"action": {"type": "place_knight", "seat": 3}, "expected_version": "2"},
            tokens[seat],
        ),
        400,
        "bad_request",
    )
    assert "expected_version" in body["details"]
    body = error(
        api.post(
            path,
            {"action": {"type": "place_knight", "seat": 3}, "expected_version": v, "x": 1},
            tokens[seat],
        ),
        400,
        "bad_request",
    )
    assert "x" in body["details"]
    body = error(
        api.post(
            path,
            {"action": {"type": "place_knight", "seat": "3"}, "expected_version": v},
            tokens[seat],
        ),
        400,
        "bad_request",
    )
    assert "action.seat" in body["details"]
    body = error(
        api.post(
            path,
            {"action": {"type": "place_knight", "seat": 3, "colour": "red"}, "expected_version": v},
            tokens[seat],
        ),
        400,
        "bad_request",
    )
    assert body["details"]["action.colour"] == ["unknown field"]
    body = error(
        api.post(path, {"action": {"type": "fly", "seat": 3}, "expected_version": v}, tokens[seat]),
        400,
        "bad_request",
    )
    assert "action.type" in body["details"]
    body = error(
        api.post(path, {"action": [1], "expected_version": v}, tokens[seat]), 400, "bad_request"
    )
    unchanged(api, gid, v)


def test_illegal_action_names_the_rule(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    occupied = api.view(gid)["state"]["seats"].index("silver-1")
    body = error(
        api.act(gid, tokens[seat], {"type": "place_knight", "seat": occupied}, v),
        422,
        "illegal_action",
    )
    assert body["message"].startswith("AR-")
    body = error(
        api.act(gid, tokens[seat], {"type": "place_knight", "seat": 40}, v), 422, "illegal_action"
    )
    assert body["message"].startswith("AR-")
    unchanged(api, gid, v)


def test_out_of_turn_spectators_and_tokens(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    other = 1 - seat
    body = error(
        api.act(gid, tokens[other], {"type": "place_knight", "seat": 27}, v), 403, "forbidden"
    )
    assert body["details"]["reason"] == "not_your_turn"
    move = {"action": {"type": "place_knight", "seat": 27}, "expected_version": v}
    error(api.post(f"/api/v1/games/{gid}/actions", move), 403, "forbidden")  # no token
    error(api.act(gid, "wrong-token", {"type": "place_knight", "seat": 27}, v), 401, "unauthorized")
    r = api.http.get(api.base + f"/api/v1/games/{gid}/view", headers={"Authorization": "Basic abc"})
    error(r, 401, "unauthorized")
    # a token of another game is a wrong token here
    other_game = api.create("artus", [{"name": "A"}, {"name": "B"}])
    error(
        api.act(gid, other_game["seats"][0]["token"], {"type": "place_knight", "seat": 27}, v),
        401,
        "unauthorized",
    )
    error(api.get(f"/api/v1/games/{gid}/view", other_game["host_token"]), 401, "unauthorized")
    unchanged(api, gid, v)


def test_stale_version_is_a_conflict_with_the_current_version(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    listed = api.actions(gid, tokens[seat])
    body = error(api.act(gid, tokens[seat], listed["actions"][0], v - 1), 409, "version_conflict")
    assert body["details"]["current_version"] == v
    unchanged(api, gid, v)


def test_unknown_things(api: Client) -> None:
    error(api.get("/api/v1/games/does-not-exist"), 404, "not_found")
    error(api.get("/api/v1/games/does-not-exist/view"), 404, "not_found")
    error(api.act("does-not-exist", "t", {"type": "x"}, 1), 404, "not_found")
    error(api.get("/api/v1/nowhere"), 404, "not_found")
    error(api.http.delete(api.base + "/api/v1/catalog"), 405, "method_not_allowed")
    body = error(
        api.post("/api/v1/games", {"game": "chess", "players": [{"name": "a"}]}), 400, "bad_request"
    )
    assert "game" in body["details"]


def test_game_creation_is_checked(api: Client) -> None:
    two = [{"name": "a"}, {"name": "b"}]
    body = error(
        api.post("/api/v1/games", {"game": "artus", "players": [{"name": "a"}]}), 400, "bad_request"
    )
    assert "players" in body["details"]
    body = error(
        api.post("/api/v1/games", {"game": "artus", "players": two * 3}), 400, "bad_request"
    )
    body = error(
        api.post(
            "/api/v1/games", {"game": "artus", "players": two, "options": {"rules": "expert"}}
        ),
        400,
        "bad_request",
    )
    assert "options.rules" in body["details"]
    body = error(
        api.post("/api/v1/games", {"game": "artus", "players": two, "options": {"speed": "x"}}),
        400,
        "bad_request",
    )
    assert "options.speed" in body["details"]
    body = error(
        api.post(
            "/api/v1/games", {"game": "artus", "players": [{"name": "x" * 65}, {"name": "b"}]}
        ),
        400,
        "bad_request",
    )
    error(
        api.post("/api/v1/games", {"game": "artus", "players": [{"name": ""}, {"name": "b"}]}),
        400,
        "bad_request",
    )
    ok = api.post(
        "/api/v1/games", {"game": "artus", "players": [{"name": "Ærøskøbing 🐉"}, {"name": "李白"}]}
    )
    assert ok.status_code == 201
    assert api.summary(ok.json()["id"])["seats"][1]["name"] == "李白"


def test_oversized_and_deeply_nested_bodies(api: Client, game) -> None:
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    big = json.dumps(
        {"action": {"type": "place_knight", "seat": 1, "pad": "x" * 70_000}, "expected_version": v}
    )
    error(
        raw_post(api, f"/api/v1/games/{gid}/actions", big.encode(), tokens[seat]),
        413,
        "payload_too_large",
    )
    deep = ("[" * 20_000 + "]" * 20_000).encode()
    error(raw_post(api, f"/api/v1/games/{gid}/actions", deep, tokens[seat]), 400, "bad_request")
    unchanged(api, gid, v)
    assert api.get("/healthz").status_code == 200


def test_query_parameters_are_checked(api: Client, game) -> None:
    gid, tokens, _ = game
    v = api.summary(gid)["version"]
    error(api.get(f"/api/v1/games/{gid}/view", version=0), 400, "bad_request")
    error(api.get(f"/api/v1/games/{gid}/view", version=v + 5), 400, "bad_request")
    error(api.get(f"/api/v1/games/{gid}/view", version="abc"), 400, "bad_request")
    error(api.get(f"/api/v1/games/{gid}/view", reveal="true"), 400, "bad_request")
    error(api.get(f"/api/v1/games/{gid}/events", limit=0), 400, "bad_request")
    error(api.get(f"/api/v1/games/{gid}/events", wait=31), 400, "bad_request")
    error(api.get("/api/v1/games", status="sleeping"), 400, "bad_request")
    error(api.post(f"/api/v1/games/{gid}/undo", {"to_version": "x"}, tokens[0]), 400, "bad_request")


def test_what_the_schema_refuses_is_refused_on_the_fast_path_too(api: Client, game) -> None:
    """POST .../actions takes a plain body without the schema: its edges are still the schema's."""
    gid, tokens, seat = game
    v = api.summary(gid)["version"]
    path = f"/api/v1/games/{gid}/actions"
    action = {"type": "place_knight", "seat": 3}
    for version in (True, False, 1.0, -1, 1_000_000_001, None):
        body = error(
            api.post(path, {"action": action, "expected_version": version}, tokens[seat]),
            400,
            "bad_request",
        )
        assert "expected_version" in body["details"], version
    for body_sent, field in (
        ({"action": action}, "expected_version"),
        ({"expected_version": v}, "action"),
        ({"action": None, "expected_version": v}, "action"),
    ):
        body = error(api.post(path, body_sent, tokens[seat]), 400, "bad_request")
        assert field in body["details"], body_sent
    error(raw_post(api, path, b"[]", tokens[seat]), 400, "bad_request")
    unchanged(api, gid, v)
