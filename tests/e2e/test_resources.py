"""The remaining resources of the contract: catalog, list, summary, long-poll, health, docs."""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path

from service.app import create_app
from service.config import Settings
from service.redis_server import free_port
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import new_game
from tests.support.server import serving


def test_catalog_lists_every_game_with_options(api: Client) -> None:
    games = {g["id"]: g for g in api.get("/api/v1/catalog").json()["games"]}
    artus = games["artus"]
    assert artus["players"] == {"min": 2, "max": 4}
    rules = artus["options"]["rules"]
    assert (rules["values"], rules["default"]) == (["basic", "advanced"], "basic")
    assert artus["options"]["undo"]["values"] == ["turn", "host", "none"]
    assert set(artus["bots"]) >= {"random", "greedy"}
    assert artus["actions"]["place_knight"]["seat"]["kind"] == "int"


def test_summary_has_the_contract_fields(api: Client) -> None:
    created = api.create("artus", [{"name": "A"}, {"name": "B", "bot": "random"}])
    s = api.summary(created["id"])
    assert set(s) >= {
        "id",
        "game",
        "options",
        "seats",
        "status",
        "version",
        "to_act",
        "seed_commitment",
        "created_at",
        "updated_at",
    }
    assert s["status"] == "active" and s["seed_commitment"] == created["seed_commitment"]
    assert s["seats"] == [
        {"seat": 0, "name": "A", "bot": None},
        {"seat": 1, "name": "B", "bot": "random"},
    ]
    assert "result" not in s


def test_list_is_newest_first_filtered_and_paged(api: Client) -> None:
    ids = []
    for _ in range(3):  # the index orders by creation ms; games of one ms go by id
        ids.append(api.create("artus", [{"name": "A"}, {"name": "B"}])["id"])
        time.sleep(0.002)
    # unlisted tables: the admin sees them all (tests/e2e/test_listing.py: who sees what)
    listed = functools.partial(api.get, "/api/v1/games", ADMIN_TOKEN)
    page = listed(game="artus", status="active", per_page=2).json()
    assert [g["id"] for g in page["games"]] == ids[::-1][:2]
    assert page["total"] >= 3 and page["per_page"] == 2
    page2 = listed(game="artus", status="active", per_page=2, page=2).json()
    assert page2["games"][0]["id"] == ids[0]
    unfiltered = listed(per_page=1).json()
    assert unfiltered["games"][0]["id"] == ids[-1]
    assert listed(game="nothing").json()["games"] == []


def test_events_long_poll_returns_when_an_event_arrives(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    s = api.summary(gid)
    seat = s["to_act"][0]
    got: dict = {}

    def poll() -> None:
        started = time.monotonic()
        got["r"] = api.get(f"/api/v1/games/{gid}/events", tokens[0], after=s["version"], wait=10)
        got["t"] = time.monotonic() - started

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.5)
    listed = api.actions(gid, tokens[seat])
    assert api.act(gid, tokens[seat], listed["actions"][0], listed["version"]).status_code == 201
    t.join(15)
    assert got["r"].status_code == 200
    assert [e["version"] for e in got["r"].json()["events"]] == [s["version"] + 1]
    assert 0.4 < got["t"] < 5


def test_events_wait_is_bounded(api: Client) -> None:
    gid, _ = new_game(api, "artus", {"rules": "basic"}, 2)
    v = api.summary(gid)["version"]
    started = time.monotonic()
    r = api.get(f"/api/v1/games/{gid}/events", after=v, wait=1)
    assert r.status_code == 200 and r.json()["events"] == []
    assert 0.9 < time.monotonic() - started < 3


def test_health_readiness_openapi_and_docs(api: Client) -> None:
    assert api.get("/healthz").json() == {"status": "ok"}
    assert api.get("/readyz").status_code == 200
    spec = api.get("/api/v1/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    for path in (
        "/api/v1/games",
        "/api/v1/games/{game_id}/actions",
        "/api/v1/games/{game_id}/undo",
        "/api/v1/games/import",
        "/api/v1/catalog",
    ):
        assert path in spec["paths"], path
    assert "ActIn" in spec["components"]["schemas"]
    assert api.get("/api/v1/docs").status_code == 200


def test_redis_unreachable_answers_503_quickly() -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    app = create_app(
        Settings(redis_url=dead, queue_redis_url=None, admin_token=None, data_dir=Path("."), port=0)
    )
    with serving(app) as url:
        client = Client(url)
        for path in ("/readyz", "/api/v1/games/abc", "/api/v1/games"):
            started = time.monotonic()
            r = client.get(path)
            assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
            assert time.monotonic() - started < 2.5
        players = [{"name": "a"}, {"name": "b"}]
        r = client.post("/api/v1/games", {"game": "artus", "players": players})
        assert r.status_code == 503
        assert client.get("/healthz").status_code == 200
