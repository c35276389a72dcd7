"""Rows 1 and 7: one client's append latency through HTTP (gunicorn, as in production) beside a
bare Redis PING measured in the same run; and the same latency with many live games stored."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from bench.client import Http
from bench.report import Row, median, pct, ratio_row
from bench.scripts import Script, all_games, scripts
from bench.servers import Servers
from projections.records import Recorded
from projections.views import SEAT, Caller
from service.chronicle import Chronicle, now_ms
from service.jobs import QUEUE
from service.meta import GameMeta, Progress
from service.redis_store import INDEX, LIVE, RedisEventStore, keys
from service.store import Batch
from workers.main import fill_live_index, missing_follow_ups

WARMUP = 50


def ping_ms(r: redis.Redis, n: int) -> list[float]:
    r.ping()
    out = []
    for _ in range(n):
        start = time.perf_counter()
        r.ping()
        out.append((time.perf_counter() - start) * 1000)
    return out


def post_ms(ch: Chronicle, api: str, pool: Sequence[Script], n: int) -> list[float]:
    """POST the recorded actions of games created one after another: ``n`` timings in ms."""
    http = Http(api)
    out: list[float] = []
    try:
        for script in itertools.cycle(pool):
            gid, tokens = script.create(ch)
            for seat, version, action in script.moves:
                status, body, took = http.act(gid, tokens[seat], action, version)
                if status != 201:
                    raise RuntimeError(f"POST action: {status} {body}")
                out.append(took * 1000)
                if len(out) >= n:
                    return out
    finally:
        http.close()
    raise AssertionError("unreachable")


def service_ms(ch: Chronicle, pool: Sequence[Script], n: int) -> list[float]:
    """The same appends through the service object in this process, no HTTP: the state read
    (``Chronicle.current``, as the API reads it) and ``Chronicle.act``."""
    out: list[float] = []
    for script in itertools.cycle(pool):
        gid, _ = script.create(ch)
        for seat, version, action in script.moves:
            start = time.perf_counter()
            cur = ch.current(gid)
            ch.act(gid, Caller(SEAT, seat), action, version, loaded=cur)
            out.append((time.perf_counter() - start) * 1000)
            if len(out) >= n:
                return out
    raise AssertionError("unreachable")


def healthz_ms(api: str, n: int) -> list[float]:
    http = Http(api)
    try:
        for _ in range(WARMUP):
            http.request("GET", "/healthz")
        return [http.request("GET", "/healthz")[2] * 1000 for _ in range(n)]
    finally:
        http.close()


def floor_rows(env: Servers, posts: int) -> list[Row]:
    """Where an HTTP append's time goes: the same gunicorn answering a bare Flask route (no
    Redis, no schema), and the service's own work without HTTP."""
    ch = env.chronicle
    pool = [s for g in all_games() for s in scripts(g, 2, "floor")]
    service_ms(ch, pool, WARMUP)
    ping = ping_ms(env.events, posts)
    floor = healthz_ms(env.api, posts)
    service = service_ms(ch, pool, posts)
    ping += ping_ms(env.events, posts)
    return [
        ratio_row("GET /healthz via HTTP p50 (gunicorn + Flask floor)", median(floor), "ms",
                  "Redis PING p50", median(ping), "-", 0,
                  f"{len(floor)} GETs by one keep-alive client; no Redis, no schema"),
        ratio_row("append in process p50 (Chronicle, no HTTP)", median(service), "ms",
                  "Redis PING p50", median(ping), "-", 0,
                  f"current() + act(): 2 Redis round trips, rules, hash chain; all games; "
                  f"p99 {pct(service, 99):.2f} ms"),
    ]  # fmt: skip


def append_rows(env: Servers, posts: int) -> list[Row]:
    """Per game: PINGs just before and just after the POSTs (one client, quiet machine)."""
    ch = env.chronicle
    rows = []
    for game in all_games():
        pool = scripts(game, 6, "latency")
        post_ms(ch, env.api, pool, WARMUP)
        ping = ping_ms(env.events, posts)
        took = post_ms(ch, env.api, pool, posts)
        ping += ping_ms(env.events, posts)
        p50, p99 = median(took), pct(took, 99)
        note = f"{len(took)} POSTs by one keep-alive client; PING p99 {pct(ping, 99):.3f} ms"
        rows.append(
            ratio_row(f"append via HTTP p50 [{game.id}]", p50, "ms", "Redis PING p50",
                      median(ping), "<=", 15, note, samples=len(took))
        )  # fmt: skip
        rows.append(
            ratio_row(f"append via HTTP p99 [{game.id}]", p99, "ms", "Redis PING p50",
                      median(ping), "-", 0)
        )  # fmt: skip
    return rows


class Parked:
    """Games created once, then moved (``MOVE``) between database 0, where the service sees
    them, and database 1, out of its sight: the two conditions of the many-games row can then
    alternate in time (machine noise drifts by more than the effect measured)."""

    def __init__(self, env: Servers, count: int) -> None:
        ch = env.chronicle
        self.r0 = env.events
        self.r1 = redis.Redis.from_url(env.url.rsplit("/", 1)[0] + "/1")
        pools = itertools.cycle([s for g in all_games() for s in scripts(g, 4, "fill")])
        start = time.perf_counter()
        self.ids = []
        for script in itertools.islice(pools, count):
            self.ids.append(
                ch.create(None, script.game, script.players, script.options, None)["id"]
            )
        self.rate = count / (time.perf_counter() - start)
        scores = self.r0.zmscore(INDEX, self.ids)
        self.index = dict(zip(self.ids, scores, strict=True))
        marks = self.r0.zmscore(LIVE, self.ids)
        self.live = {g: m for g, m in zip(self.ids, marks, strict=True) if m is not None}
        self.park()

    def _move(self, src: redis.Redis, db: int) -> None:
        pipe = src.pipeline(transaction=False)
        for gid in self.ids:
            k = keys(gid)
            for name in ("log", "meta", "snap", "undone"):
                pipe.move(k[name], db)
        pipe.execute()

    def park(self) -> None:
        self._move(self.r0, 1)
        self.r0.zrem(INDEX, *self.ids)
        self.r0.zrem(LIVE, *self.ids)

    def unpark(self) -> None:
        self._move(self.r1, 0)
        self.r0.zadd(INDEX, self.index)
        if self.live:
            self.r0.zadd(LIVE, self.live)


def fill(ch: Chronicle, live: int) -> None:
    """Create games through the service object until ``live`` games are stored."""
    pools = itertools.cycle([s for g in all_games() for s in scripts(g, 4, "fill")])
    while ch.store.count() < live:
        script = next(pools)
        ch.create(None, script.game, script.players, script.options, None)


def reconciler_ms(ch: Chronicle, r: redis.Redis) -> float:
    """One pass of the worker's reconciler (every 10 s; it reads the live games' metas)."""
    start = time.perf_counter()
    queue = Queue(QUEUE, connection=r, serializer=JSONSerializer)
    missing_follow_ups(ch.store, queue, 5000, now_ms())
    return (time.perf_counter() - start) * 1000


def many_games_rows(env: Servers, posts: int, live: int, rounds: int) -> list[Row]:
    """Blocks of POSTs with ~10 and with ``live`` games stored, in ABBA order."""
    ch = env.chronicle
    pool = [s for g in all_games() for s in scripts(g, 4, "many")]
    env.clear_games()
    fill(ch, 10)
    parked = Parked(env, live - 10)
    post_ms(ch, env.api, pool, WARMUP)
    few: list[float] = []
    many: list[float] = []
    counts = [0, 0]
    scan = 0.0
    for i in range(rounds):
        for stored in (False, True) if i % 2 == 0 else (True, False):
            if stored:
                parked.unpark()
                many += post_ms(ch, env.api, pool, posts // rounds)
                counts[1] = max(counts[1], ch.store.count())
                scan = max(scan, reconciler_ms(ch, env.events))
                parked.park()
            else:
                few += post_ms(ch, env.api, pool, posts // rounds)
                counts[0] = max(counts[0], ch.store.count())
    note = (
        f"{counts[1]:,} games stored vs at most {counts[0]} (created by Chronicle.create at "
        f"{parked.rate:,.0f} games/s), {rounds} rounds ABBA; p99 {pct(many, 99):.2f} vs "
        f"{pct(few, 99):.2f} ms; one pass of the worker's reconciler over them: {scan:.0f} ms"
    )
    return [
        ratio_row(f"append via HTTP p50 @{live:,} live games", median(many), "ms",
                  "same @~10 live games", median(few), "<=", 1.2, note)
    ]  # fmt: skip


def reconciler_rows(env: Servers, finished: int) -> list[Row]:
    """One reconciler pass with ``finished`` finished games and 10 awaiting a bot stored,
    beside the walk over every game's meta that each pass made before the live index (the
    one-time backfill makes it still), in the same run."""
    env.clear_games()
    store = RedisEventStore(env.events)
    created = now_ms()
    meta = GameMeta(
        "bench", "seed", "c", ("t", None), "h", created, 1, {}, ({"seat": 0}, {"seat": 1}),
        Progress("active", (1,), (("bot", 1),), created),  # not quiet: no job looked up
    )  # fmt: skip
    done = Progress("finished", (), (), created - 60_000, {"winners": [0]})
    rec = Recorded(1, "Thing", None, created, None, None, {}, "0" * 64)
    pipe = env.events.pipeline(transaction=False)
    for i in range(finished + 10):
        gid = f"bench-rec-{i}"
        progress = done if i >= 10 else meta.progress
        store.append(gid, Batch([rec], replace(meta, progress=progress)))
        pipe.zadd(INDEX, {gid: created + i})
    pipe.execute()
    store.fill_live([], True)
    passes, walks = [], []
    for _ in range(5):
        walks.append(_timed(lambda: fill_live_index(store)))
        passes.append(reconciler_ms(env.chronicle, env.events))
    env.clear_games()
    note = (
        f"{finished:,} finished + 10 live games stored; median of 5 each; the walk reads "
        f"{finished + 10:,} metas, the pass 10"
    )
    return [
        ratio_row(f"reconciler pass @{finished:,} finished games", median(passes), "ms",
                  "walk over every meta (the pass before)", median(walks), "<=", 0.1, note)
    ]  # fmt: skip


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000
