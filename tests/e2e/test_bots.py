"""Bot turns and final scoring played by a real RQ worker process, through the same rules."""

from __future__ import annotations

import pytest

from domain.games import GAMES
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_a_game_of_bots_is_played_to_the_end_by_the_worker(
    api: Client, worker, game_id, bot
) -> None:
    game = GAMES[game_id]
    n = game.max_players if bot == "random" else game.min_players
    created = api.create(game_id, [{"name": f"bot{i}", "bot": bot} for i in range(n)])
    assert all("token" not in s for s in created["seats"])
    final = api.wait_status(created["id"], "finished", timeout=120)
    assert final["result"]["winners"]
    audit = api.get(f"/api/v1/games/{created['id']}/audit", ADMIN_TOKEN).json()
    assert audit["chain_ok"]
    actors = {e["actor"] for e in audit["events"]}
    assert actors - {None} == set(range(n)), "every bot seat acted through the write path"
    assert audit["events"][-1]["type"] == "GameFinished" and audit["events"][-1]["actor"] is None


def test_humans_and_bots_share_a_game(api: Client, worker) -> None:
    created = api.create("artus", [{"name": "me"}, {"name": "bot", "bot": "greedy"}])
    gid, token = created["id"], created["seats"][0]["token"]
    for _ in range(400):
        s = api.summary(gid)
        if s["status"] != "active":
            break
        if s["to_act"] != [0]:
            r = api.get(f"/api/v1/games/{gid}/events", token, after=s["version"], wait=5)
            assert r.status_code == 200
            continue
        listed = api.actions(gid, token)
        assert api.act(gid, token, listed["actions"][0], listed["version"]).status_code in (
            201,
            409,
        )
    assert api.wait_status(gid, "finished")["result"]


def test_no_human_can_act_for_a_bot_seat(api: Client) -> None:
    created = api.create("artus", [{"name": "me"}, {"name": "bot", "bot": "random"}])
    gid = created["id"]
    host = created["host_token"]
    s = api.summary(gid)
    r = api.act(gid, host, {"type": "place_knight", "seat": 27}, s["version"])
    assert r.status_code == 403 and r.json()["error"]["details"]["reason"] == "not_a_player"


def test_unknown_bot_is_refused(api: Client) -> None:
    r = api.post(
        "/api/v1/games",
        {"game": "artus", "players": [{"name": "a"}, {"name": "b", "bot": "skynet"}]},
    )
    assert r.status_code == 400 and "players.1.bot" in r.json()["error"]["details"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_searching_bot_plays_a_game_to_the_end_on_the_worker(
    api: Client, worker, game_id
) -> None:
    """``mcts:easy`` against ``random`` (the short Kings and Castles, to keep the test short)."""
    options = {"length": "short"} if game_id == "kings-and-castles" else {}
    players = [{"name": "search", "bot": "mcts:easy"}, {"name": "dice", "bot": "random"}]
    created = api.create(game_id, players, options=options)
    final = api.wait_status(created["id"], "finished", timeout=300)
    assert final["result"]["winners"]
    audit = api.get(f"/api/v1/games/{created['id']}/audit", ADMIN_TOKEN).json()
    assert audit["chain_ok"] and 0 in {e["actor"] for e in audit["events"]}


def test_the_catalog_offers_the_search_levels_and_create_accepts_them(api: Client) -> None:
    catalog = api.get("/api/v1/catalog").json()
    entries = catalog["games"] if isinstance(catalog, dict) else catalog
    for entry in entries:
        assert {"mcts", "mcts:easy", "mcts:normal", "mcts:hard"} <= set(entry["bots"])
    created = api.create("artus", [{"name": "me"}, {"name": "bot", "bot": "mcts:hard"}])
    assert created["seats"][1]["bot"] == "mcts:hard"
