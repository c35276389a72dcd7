"""Row 2: appends per second through HTTP from several client threads on distinct games, beside
the raw rate of the conditional-append Lua script called by one Python client (pre-built
records, exactly the arguments the service sends)."""

from __future__ import annotations

import itertools
import math
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from bench.client import Http
from bench.report import Row, ratio_row
from bench.scripts import Script, all_games, scripts
from bench.servers import Servers
from domain.games import GAMES
from projections.fold import SNAPSHOT_EVERY, snapshot_blob
from projections.records import CREATE, FINISH
from service.chronicle import Chronicle, now_ms
from service.commands import chained, new_meta, progress
from service.meta import GameMeta, Progress
from service.redis_store import RedisEventStore, append_args

Batch = tuple[int, str, list[Any], GameMeta | Progress, tuple[int, str] | None]


def batches(script: Script) -> list[Batch]:
    """The appends the service makes for this game: expected version and head, records, meta,
    snapshot (when the batch crosses a multiple of ``SNAPSHOT_EVERY``)."""
    game = GAMES[script.game]
    out: list[Batch] = []
    head, version, at = "", 0, now_ms()
    last = len(script.steps) - 1
    for i, step in enumerate(script.steps):
        command = CREATE if i == 0 else FINISH if i == last else step.action
        records = chained(script.seed, version, head, step.events, step.seat, command, at)
        meta: GameMeta | Progress = progress(game, step.match, at)
        if i == 0:
            n = len(step.match.config.players)
            meta = new_meta(
                game, step.match, records, script.seed, [None] * n, "bench", at, len(records), at
            )
        snap = None
        if step.match.version // SNAPSHOT_EVERY > version // SNAPSHOT_EVERY:
            snap = (step.match.version, snapshot_blob(game, step.match, records[-1].hash))
        out.append((version, head, records, meta, snap))
        head, version = records[-1].hash, step.match.version
    return out


def encoded(pool: Sequence[Script]) -> list[list[list[Any]]]:
    """Per script, the arguments of each of its appends, encoded once (they do not name the
    game, so the same arguments append the same game under any id)."""
    return [
        [append_args(version, head, records, meta, None, snap)
         for version, head, records, meta, snap in batches(s)]
        for s in pool
    ]  # fmt: skip


def raw_rate(ch: Chronicle, pool: Sequence[Script], seconds: float) -> float:
    """Appends per second of the Lua script alone from one Python client: arguments encoded
    ahead of time, one game after another (the same round trips the service makes)."""
    store = ch.store
    assert isinstance(store, RedisEventStore)  # the script is the Redis store's
    prebuilt = encoded(pool)
    count, start = 0, time.perf_counter()
    end = start + seconds
    for game_args in itertools.cycle(prebuilt):
        gid = "raw" + secrets.token_hex(8)
        for args in game_args:
            store.append_encoded(gid, "", args)
        count += len(game_args)
        if time.perf_counter() >= end:
            return count / (time.perf_counter() - start)
    raise AssertionError("unreachable")


def http_rate(
    ch: Chronicle, api: str, pool: list[Script], threads: int, seconds: float
) -> tuple[float, int]:
    """Accepted POSTs per second over ``seconds``; games are created before the clock starts.
    Each client opens a connection per game: a keep-alive connection stays with the gunicorn
    worker that accepted it, and eight long-lived ones often land unevenly on two workers."""
    moves = sum(len(s.moves) for s in pool) / len(pool)
    each = math.ceil(seconds * 5000 / threads / moves) + 1
    games = [
        [(s, *s.create(ch)) for s in itertools.islice(itertools.cycle(pool[i:] + pool[:i]), each)]
        for i in range(threads)
    ]
    counts, errors = [0] * threads, [0] * threads
    barrier = threading.Barrier(threads + 1)
    end = [0.0]

    def client(i: int) -> None:
        http = Http(api)
        barrier.wait()
        for script, gid, tokens in games[i]:
            http.close()  # a new connection per game spreads clients over gunicorn's workers
            for seat, version, action in script.moves:
                if time.perf_counter() >= end[0]:
                    http.close()
                    return
                status = http.act(gid, tokens[seat], action, version)[0]
                if status == 201:
                    counts[i] += 1
                else:
                    errors[i] += 1
                    break
        http.close()

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    end[0] = time.perf_counter() + seconds
    start = time.perf_counter()
    barrier.wait()
    for w in workers:
        w.join()
    took = max(time.perf_counter() - start, seconds)
    return sum(counts) / took, sum(errors)


def rows(env: Servers, threads: int, seconds: float) -> list[Row]:
    ch = env.chronicle
    pool = [s for g in all_games() for s in scripts(g, 4, "throughput")]
    window = max(1.0, seconds / 4)
    before = raw_rate(ch, pool, window)
    rate, errors = http_rate(ch, env.api, pool, threads, seconds)
    after = raw_rate(ch, pool, window)
    raw = (before + after) / 2
    note = (
        f"{threads} client threads for {seconds:g}s, {env.api_processes} gunicorn workers x "
        f"{env.api_threads} threads; Lua rate {before:,.0f}/s before, {after:,.0f}/s after"
    )
    if errors:
        note += f"; {errors} POSTs refused (a client then moves to its next game)"
    return [
        ratio_row("appends/s via HTTP", rate, "/s", "Lua append, 1 client", raw, ">=", 0.5, note)
    ]
