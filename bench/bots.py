"""Row 6: bots.  The move time of every bot but ``random`` on positions of random games (the
bot function alone, given the seat's view and legal actions), and a bot turn end to end: a
human's POST through the API until the bot's event is visible (events long poll), the bot
having been played by the worker process through RQ."""

from __future__ import annotations

import itertools
import random
import time

from bench.client import Http
from bench.report import Row, median, pct
from bench.scripts import all_games, scripts
from bench.servers import Servers
from domain import bots as domain_bots
from domain import engine
from domain.engine import Game
from domain.rng import Rng

MOVE_BUDGET_MS = 20.0
TURN_BUDGET_MS = 50.0
STALL_S = 30.0


def move_rows(games: int) -> list[Row]:
    out = []
    for game in all_games():
        positions = []
        for script in scripts(game, games, "bots"):
            for before, step in itertools.pairwise(script.steps):
                if step.seat is not None:
                    state, seat = before.match.state, step.seat
                    rng = domain_bots.bot_rng(script.seed, before.match.version + 1, seat)
                    positions.append((game.view(state, seat), game.legal_actions(state, seat), rng))
        for name, bot in game.bots.items():
            if name == "random" or name.startswith("mcts"):  # searching bots: bench/mcts.py
                continue
            took = []
            for view, actions, rng in positions:
                start = time.perf_counter()
                bot(view, actions, rng)
                took.append((time.perf_counter() - start) * 1000)
            p99 = pct(took, 99)
            out.append(
                Row(f"bot move p99 [{game.id}/{name}]", p99, "ms", "budget", MOVE_BUDGET_MS,
                    f"< {MOVE_BUDGET_MS:g} ms", p99 < MOVE_BUDGET_MS,
                    f"{len(took):,} positions; p50 {median(took):.2f} ms, max {max(took):.2f} ms")
            )  # fmt: skip
    return out


def bot_name(game: Game) -> str:
    if "greedy" in game.bots:
        return "greedy"
    return next((b for b in game.bots if b != "random"), "random")


def turn_ms(env: Servers, game: Game, samples: int) -> tuple[list[float], list[int]]:
    """Client-side latencies (ms) of bot turns, and the server-side gaps (``at`` of the bot's
    event minus ``at`` of the human's, whole ms)."""
    ch, http, rnd = env.chronicle, Http(env.api), random.Random(game.id)
    n = max(2, game.min_players)
    name = bot_name(game)
    players = [{"name": "human"}] + [{"name": f"bot{i}", "bot": name} for i in range(1, n)]
    took: list[float] = []
    gaps: list[int] = []
    options = {k: v[0] for k, v in game.options.items()}
    try:
        while len(took) < samples:
            doc = ch.create(None, game.id, players, options, None)
            gid, token = doc["id"], doc["seats"][0]["token"]
            while len(took) < samples:
                cur = ch.current(gid)
                match = cur.match
                if match.status(game) != engine.ACTIVE:
                    break
                if 0 not in match.to_act(game):
                    if not ch.store.wait(gid, match.version, int(STALL_S * 1000)):
                        raise RuntimeError(f"no bot move in {gid} after {STALL_S}s (worker?)")
                    continue
                action = rnd.choice(game.legal_actions(match.state, 0))
                events = engine.decide(game, match, 0, action, Rng.at(cur.seed, match.version + 1))
                after = engine.fold(game, events, match)
                hands_over = after.status(game) == engine.ACTIVE and 0 not in after.to_act(game)
                start = time.perf_counter()
                status, body, _ = http.act(gid, token, action, match.version)
                if status == 409:  # a bot acting at the same time (simultaneous decisions)
                    continue
                if status != 201:
                    raise RuntimeError(f"POST action: {status} {body}")
                if not hands_over:
                    continue
                path = f"/api/v1/games/{gid}/events?after={body['version']}&wait={STALL_S:g}"
                status, body, _ = http.request("GET", path, token=token)
                if status != 200 or not body["events"]:
                    raise RuntimeError(f"no bot move in {gid}: {status} {body}")
                took.append((time.perf_counter() - start) * 1000)
                recs = ch.store.read(gid, after.version - 1, 2)
                gaps.append(recs[1].at - recs[0].at)
    finally:
        http.close()
    return took, gaps


def turn_rows(env: Servers, samples: int) -> list[Row]:
    out = []
    for game in all_games():
        took, gaps = turn_ms(env, game, samples)
        p50 = median(took)
        note = (
            f"{len(took)} turns of a {bot_name(game)} bot; p99 {pct(took, 99):.1f} ms; "
            f"server-side (event times) p50 {median(gaps):.0f} ms"
        )
        out.append(
            Row(f"bot turn: POST to bot event seen p50 [{game.id}]", p50, "ms", "budget",
                TURN_BUDGET_MS, f"< {TURN_BUDGET_MS:g} ms", p50 < TURN_BUDGET_MS, note)
        )  # fmt: skip
    return out
