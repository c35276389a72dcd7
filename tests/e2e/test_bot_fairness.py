"""Bot turns share the workers fairly: a flood of games of bots only (searching bots at their
hardest level, each move cut at the operator's cap) must not hold up the bot of a game where a
person waits by more than about one budget.  Real Redis, API and worker process."""

from __future__ import annotations

import time

import pytest
import redis
from rq import Queue

from service.app import create_app
from service.jobs import BACKGROUND_QUEUE
from service.redis_server import RedisServer, free_port
from tests.conftest import running_worker, settings
from tests.support.client import Client
from tests.support.server import serving

CAP = 0.5  # CHRONICLE_BOT_MAX_SECONDS of the worker
FLOOD = 12  # bot-only games: played first come first served, the human's turn would wait ~6 s
SLACK = 1.5  # HTTP, Redis and the worker's own loop on a loaded 2-core machine


def _wait_version(api: Client, gid: str, above: int, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if api.summary(gid)["version"] > above:
            return time.monotonic() - start
        time.sleep(0.02)
    raise AssertionError(f"the bot did not move within {timeout} s")


def test_a_flood_of_bot_games_does_not_delay_a_game_with_a_person(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = RedisServer(tmp_path, port=free_port(), persistent=False)
    url = server.start()
    monkeypatch.setenv("CHRONICLE_BOT_MAX_SECONDS", str(CAP))
    try:
        with serving(create_app(settings(url))) as base, running_worker(url):
            api = Client(base)
            flood = [
                api.create("artus", [{"name": f"b{i}", "bot": "mcts:hard"} for i in range(2)])
                for _ in range(FLOOD)
            ]
            background = Queue(BACKGROUND_QUEUE, connection=redis.Redis.from_url(url))
            started = api.summary(flood[0]["id"])["version"]
            _wait_version(api, flood[0]["id"], started, timeout=60)  # the worker is up and busy
            created = api.create("artus", [{"name": "me"}, {"name": "bot", "bot": "mcts"}])
            gid, token = created["id"], created["seats"][0]["token"]
            waits = []
            version = api.summary(gid)["version"]  # the bot (seat 1) places first
            for _ in range(4):
                waiting_before = background.count
                waits.append(_wait_version(api, gid, version, timeout=30))
                assert waiting_before >= FLOOD // 2, "the flood was queued while the bot played"
                listed = api.actions(gid, token)
                played = api.act(gid, token, listed["actions"][0], listed["version"])
                assert played.status_code == 201
                version = listed["version"] + 1
            assert max(waits) < 2 * CAP + SLACK, waits
            # the flood is played too, behind the person's game
            assert sum(api.summary(g["id"])["version"] > 2 for g in flood) > 1
    finally:
        server.stop()
