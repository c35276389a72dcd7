"""A POST whose body is not declared JSON is answered 415 with a message naming the content type
to send (not "Missing data for required field" for every field), and nothing is appended.
Why 415 rather than reading any body as JSON: see service/http/middleware.py."""

from __future__ import annotations

import json

import pytest
import requests

from tests.support.client import Client

CREATE = {"game": "artus", "players": [{"name": "A"}, {"name": "B"}]}


def post(api: Client, path: str, body: object, headers: dict[str, str]) -> requests.Response:
    data = json.dumps(body).encode()
    return api.http.post(api.base + path, data=data, headers=headers, timeout=10)


@pytest.mark.parametrize(
    ("headers", "named"),
    [
        ({}, "none"),  # no Content-Type at all
        ({"Content-Type": "application/x-www-form-urlencoded"}, "x-www-form-urlencoded"),  # curl -d
        ({"Content-Type": "text/plain"}, "text/plain"),
    ],
)
def test_a_json_body_without_the_json_content_type_is_415(
    api: Client, headers: dict[str, str], named: str
) -> None:
    total = api.get("/api/v1/games").json()["total"]
    r = post(api, "/api/v1/games", CREATE, headers)
    assert r.status_code == 415, r.text
    error = r.json()["error"]
    assert error["code"] == "bad_request"
    assert "Content-Type: application/json" in error["message"] and named in error["message"]
    assert "Missing data" not in r.text
    assert api.get("/api/v1/games").json()["total"] == total


def test_an_action_without_the_json_content_type_appends_nothing(api: Client) -> None:
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid, tokens = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    summary = api.summary(gid)
    seat = summary["to_act"][0]
    action = api.actions(gid, tokens[seat])["actions"][0]
    body = {"action": action, "expected_version": summary["version"]}
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    r = post(api, f"/api/v1/games/{gid}/actions", body, {**auth, "Content-Type": "text/plain"})
    assert r.status_code == 415
    assert api.summary(gid)["version"] == summary["version"]
    # the same body, declared JSON (or a +json type), is taken
    vendor = {**auth, "Content-Type": "application/vnd.chronicle+json"}
    assert post(api, f"/api/v1/games/{gid}/actions", body, vendor).status_code == 201


def test_a_post_without_a_body_is_left_to_its_schema(api: Client) -> None:
    r = api.http.post(f"{api.base}/api/v1/games", timeout=10)
    assert r.status_code == 400 and "game" in r.json()["error"]["details"]
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    r = api.http.post(
        f"{api.base}/api/v1/games/{created['id']}/undo",
        headers={"Authorization": f"Bearer {created['host_token']}"},
        timeout=10,
    )
    assert r.status_code in (200, 409) and r.status_code != 415, r.text
