"""No secret in any log line: the output of the API (gunicorn at DEBUG, a request log line
per request) and of the worker over whole games (humans and bots, errors, undos, a Redis
outage) holds no seed, chain key, token or token hash, no card id of a hand and none of a
view's hidden fields; and the service's own loggers, in process at DEBUG, say nothing secret
either."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest
import redis
import requests

from chronicle_client.types import Created
from domain.engine import Config, Player
from domain.games import GAMES
from projections import chain
from service.redis_store import keys
from tests.conftest import ADMIN_TOKEN
from tests.reliability.stack import stack, wait_until
from tests.reliability.test_hostile_input import redis_bytes
from tests.support.client import Client


def card_ids() -> set[str]:
    """Every Artus card id: the piles of a 4-player advanced game before the deal."""
    game = GAMES["artus"]
    config = Config("artus", {"rules": "advanced"}, tuple(Player(f"p{i}") for i in range(4)))
    state = game.initial(config)
    return {c for own in state.piles for cards in own.values() for c in cards}


def secrets_of(r: redis.Redis, gid: str, created: Created) -> list[str]:
    meta = {
        redis_bytes(k).decode(): redis_bytes(v).decode()
        for k, v in r.hgetall(keys(gid)["meta"]).items()
    }
    return [
        meta["seed"],
        chain.chain_key(meta["seed"]).hex(),
        meta["host"],
        *[t for t in json.loads(meta["tokens"]) if t],
        created["host_token"],
        *[s["token"] for s in created["seats"] if "token" in s],
    ]


def play(api: Client, gid: str, tokens: dict[int, str], rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        s = api.summary(gid)
        if s["status"] != "active":
            return
        human = [seat for seat in s["to_act"] if seat in tokens]
        if not human:
            api.get(f"/api/v1/games/{gid}/events", tokens[min(tokens)], after=s["version"], wait=2)
            continue
        seat = rng.choice(human)
        listed = api.actions(gid, tokens[seat])
        api.act(gid, tokens[seat], rng.choice(listed["actions"]), listed["version"])
        # and some errors: stale, out of turn, illegal, unknown token
        api.act(gid, tokens[seat], listed["actions"][0], listed["version"] - 1)
        api.act(gid, "not-a-token", listed["actions"][0], listed["version"])
        api.act(gid, tokens[seat], {"type": "play", "card": "red/K1-3"}, listed["version"] + 1)
        if rng.random() < 0.1:
            api.post(f"/api/v1/games/{gid}/undo", {}, tokens[seat])


def test_no_secret_in_any_log_line(tmp_path: Path) -> None:
    with stack(tmp_path, persistent=True) as s:
        s.worker()
        _, base = s.api(GUNICORN_CMD_ARGS="--log-level debug")
        api = Client(base)
        r = s.client()
        created = []
        # humans, a human with a bot, and bots only, in every game
        for game in GAMES.values():
            n = game.min_players
            for bots in ((), (n - 1,), tuple(range(n))):
                players = [
                    {"name": f"p{i}", **({"bot": "random"} if i in bots else {})} for i in range(n)
                ]
                created.append(api.create(game.id, players, seed=f"log-seed-{game.id}-{bots}"))
        rng = random.Random(4)
        for i, g in enumerate(created):
            tokens = {x["seat"]: x["token"] for x in g["seats"] if "token" in x}
            if tokens:
                play(api, g["id"], tokens, rng, steps=25 if i % 3 else 400)
            api.get(f"/api/v1/games/{g['id']}/audit", ADMIN_TOKEN)
            api.get(f"/api/v1/games/{g['id']}/export", ADMIN_TOKEN)
            api.get(f"/api/v1/games/{g['id']}/view", "bad-token-value")
        # a Redis outage: warnings are logged; they must not carry request data
        s.redis.kill()
        for g in created[:3]:
            api.get(f"/api/v1/games/{g['id']}/view", created[0]["host_token"])
        s.redis.start()
        wait_until(lambda: _ready(base), 10, "no recovery")
        for g in created:
            if all("token" not in x for x in g["seats"]):
                api.wait_status(g["id"], "finished", timeout=60)
        secrets = [x for g in created for x in secrets_of(r, g["id"], g)] + [ADMIN_TOKEN]
        cards = card_ids()
        logs = s.logs()
    assert len(logs.splitlines()) > 500, "a line per request"
    lines = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    assert any(line.get("route") == "/api/v1/games/<game_id:game_id>/view" for line in lines)
    for secret in secrets:
        assert secret not in logs, f"a secret in the logs: {secret[:8]}..."
    assert "log-seed" not in logs
    leaked_cards = sorted(c for c in cards if c in logs)
    assert not leaked_cards, leaked_cards[:5]
    for word in ("Bearer", "Authorization", '"hand"', '"money"', '"gold"', '"votes"', '"seed"'):
        assert word not in logs, word


def _ready(base: str) -> bool:
    try:
        return requests.get(base + "/readyz", timeout=3).status_code == 200
    except requests.RequestException:
        return False


def test_the_services_own_loggers_say_nothing_secret(
    api: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """In process, every logger at DEBUG (werkzeug's request lines included)."""
    caplog.set_level(logging.DEBUG)
    created = api.create("artus", [{"name": "a"}, {"name": "b"}], seed="caplog-secret-seed")
    tokens = {x["seat"]: x["token"] for x in created["seats"]}
    play(Client(api.base), created["id"], tokens, random.Random(1), steps=20)
    text = "\n".join(rec.getMessage() for rec in caplog.records)
    for secret in ("caplog-secret-seed", created["host_token"], *tokens.values(), ADMIN_TOKEN):
        assert secret not in text
    assert not [c for c in card_ids() if c in text]
