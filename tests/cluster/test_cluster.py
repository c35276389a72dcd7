"""Chronicle on a Redis Cluster: games spread over the masters, each in one slot; whole games
(humans over HTTP, bots on a real worker whose queue is a separate plain Redis) play to the end
with a verified hash chain; and the configuration refuses a cluster without a queue Redis."""

from __future__ import annotations

import random

import pytest
from redis.cluster import RedisCluster

from bench.scripts import scripts
from domain.games import GAMES
from service.app import create_app
from service.config import Settings
from service.connections import connect
from service.http import move_path
from service.http.edge import EdgeLimits
from service.redis_store import keys
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import new_game, play_random


def test_games_spread_over_the_masters_each_in_one_slot(
    cluster_api: Client, cluster_url: str
) -> None:
    client = connect(cluster_url)
    assert isinstance(client, RedisCluster)
    nodes = set()
    for _ in range(12):
        gid, _ = new_game(cluster_api, "artus", {"rules": "basic"}, 2)
        slots = {client.keyslot(k) for k in keys(gid).values()}
        assert len(slots) == 1
        assert client.exists(keys(gid)["log"], keys(gid)["meta"]) == 2
        nodes.add(client.get_node_from_key(keys(gid)["log"]).name)
    assert len(nodes) >= 2, "twelve games all landed on one master"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_human_game_is_played_undone_and_audited(cluster_api: Client, game_id: str) -> None:
    game = GAMES[game_id]
    options = {k: v[0] for k, v in game.options.items()}
    gid, tokens = new_game(cluster_api, game_id, options, game.min_players)
    rng = random.Random(game_id)
    seat = cluster_api.summary(gid)["to_act"][0]
    listed = cluster_api.actions(gid, tokens[seat])
    r = cluster_api.act(gid, tokens[seat], listed["actions"][0], listed["version"], key="k1")
    again = cluster_api.act(gid, tokens[seat], listed["actions"][0], listed["version"], key="k1")
    assert r.status_code == 201 and again.status_code == 201 and again.json() == r.json()
    undo = cluster_api.post(f"/api/v1/games/{gid}/undo", {}, tokens[seat])
    assert undo.status_code in (200, 409), undo.text  # 409: the action revealed a draw
    play_random(cluster_api, gid, tokens, rng)
    assert cluster_api.summary(gid)["status"] in ("scoring", "finished")
    audit = cluster_api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
    assert audit["chain_ok"] is True


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_bots_play_to_the_end_on_a_worker_with_its_own_queue_redis(
    cluster_api: Client, cluster_worker, game_id: str
) -> None:
    game = GAMES[game_id]
    players = [{"name": f"bot{i}", "bot": "greedy"} for i in range(game.min_players)]
    created = cluster_api.create(game_id, players)
    final = cluster_api.wait_status(created["id"], "finished", timeout=120)
    assert final["result"]["winners"]
    audit = cluster_api.get(f"/api/v1/games/{created['id']}/audit", ADMIN_TOKEN).json()
    assert audit["chain_ok"] is True
    versions = [e["version"] for e in audit["events"]]
    assert versions == list(range(1, len(versions) + 1))
    export = cluster_api.get(f"/api/v1/games/{created['id']}/export").json()
    imported = cluster_api.post("/api/v1/games/import", export, ADMIN_TOKEN)
    assert imported.status_code == 201, imported.text


def test_a_cluster_needs_a_plain_queue_redis() -> None:
    with pytest.raises(ValueError, match="QUEUE_REDIS_URL"):
        Settings.from_env({"REDIS_URL": "redis+cluster://127.0.0.1:7000"})
    with pytest.raises(ValueError, match="plain Redis"):
        Settings.from_env(
            {"REDIS_URL": "redis://a", "QUEUE_REDIS_URL": "redis+cluster://127.0.0.1:7000"}
        )
    ok = Settings.from_env(
        {"REDIS_URL": "redis+cluster://h1:7000,h2:7001", "QUEUE_REDIS_URL": "redis://q:6379/0"}
    )
    assert ok.queue_url == "redis://q:6379/0"
    assert Settings.from_env({"REDIS_URL": "redis://r:6379/0"}).queue_url == "redis://r:6379/0"


def test_rate_limits_on_a_cluster_count_first_and_refuse_before_the_append(
    monkeypatch: pytest.MonkeyPatch, cluster_settings: Settings
) -> None:
    """On a cluster a move's counters are not in its game's slot: the move path counts them
    with their own call first (``service.admission``), and the limit still refuses."""
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT", "3/minute")
    app = create_app(cluster_settings)
    assert isinstance(app.wsgi_app, EdgeLimits)  # the outermost layer (service/app.py)
    moves = move_path.of(app)
    assert not moves.folds
    script = scripts(GAMES["artus"], 1, "cluster-limits")[0]
    ch = app.extensions["chronicle"]
    gid, tokens = script.create(ch)
    c = app.test_client()
    first = script.moves[0][0]
    answers, version = [], 0
    for seat, version, action in script.moves:
        if seat != first:  # the other seat's moves, by the service itself (no limit)
            ch.act_as(gid, f"Bearer {tokens[seat]}", action, version)
            continue
        body = {"action": action, "expected_version": version}
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        answers.append(c.post(f"/api/v1/games/{gid}/actions", json=body, headers=headers))
        if len(answers) == 4:
            break
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    refusal = answers[-1].json
    assert refusal is not None
    assert refusal["error"]["details"]["limit"] == "3 per 1 minute"
    summary = c.get(f"/api/v1/games/{gid}").json
    assert summary is not None
    assert summary["version"] == version  # nothing appended
