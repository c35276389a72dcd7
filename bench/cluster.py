"""``python -m bench.cluster [--seconds S] [--processes P] [--threads T] [--json]``: the event
store on a local Redis Cluster of 1, 2 and 3 masters, for sizing.

For each cluster size it runs P client processes of T threads each for S seconds; each thread
appends whole recorded games (the append script, arguments encoded ahead of time, exactly the
appends the service makes, conditional on version and head), one game after another, every
game under a new id, so games spread over the slots and the masters.  It reports:

- appends per second, in all and per master;
- the Redis CPU time each append cost on the master that took it (``INFO cpu`` before and
  after, divided by the appends it served): a master running on a core of its own takes about
  ``1 s / that`` appends per second.  On a small machine the clients share the cores with the
  masters, so the appends/s stop growing with the masters long before the masters are busy:
  the CPU per append is the figure that carries over to a real deployment;
- memory per finished game and per event (``MEMORY USAGE`` of the game's keys), per game.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.report import median
from bench.scripts import all_games, scripts
from bench.throughput import encoded
from service.connections import connect
from service.redis_store import RedisEventStore, keys
from tests.support.redis_cluster import RedisClusterServer

PREBUILT: list[tuple[str, list[list[Any]]]] = []  # (game, the args of each append); forked


def _client(url: str, threads: int, seconds: float, out: Any) -> None:
    store = RedisEventStore(connect(url))
    counts = [0] * threads
    done: list[tuple[str, str]] = []
    start = time.perf_counter() + 0.2
    end = start + seconds

    def run(i: int) -> None:
        k = i
        while True:
            game, game_args = PREBUILT[k % len(PREBUILT)]
            k += threads
            gid = secrets.token_hex(8)
            for args in game_args:
                if time.perf_counter() >= end:
                    return
                store.append_encoded(gid, "", args)
                if time.perf_counter() >= start:
                    counts[i] += 1
            if len(done) < 200:
                done.append((game, gid))

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    out.put((sum(counts), done))


def _cpu(r: Any) -> dict[str, tuple[float, int]]:
    """Per master: CPU seconds (user + system) and EVALSHA calls so far."""
    out: dict[str, tuple[float, int]] = {}
    for node in r.get_primaries():
        conn = r.get_redis_connection(node)
        cpu = conn.info("cpu")
        stats = conn.info("commandstats").get("cmdstat_evalsha", {"calls": 0})
        out[node.name] = (cpu["used_cpu_user"] + cpu["used_cpu_sys"], stats["calls"])
    return out


def measure(shards: int, processes: int, threads: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="chronicle-cluster-") as tmp:
        cluster = RedisClusterServer(Path(tmp), masters=shards)
        url = cluster.start()
        try:
            r = connect(url)
            before = _cpu(r)
            ctx = mp.get_context("fork")
            out = ctx.Queue()
            procs = [
                ctx.Process(target=_client, args=(url, threads, seconds, out))
                for _ in range(processes)
            ]
            for p in procs:
                p.start()
            results = [out.get(timeout=seconds + 60) for _ in procs]
            for p in procs:
                p.join()
            after = _cpu(r)
            appends = sum(c for c, _ in results)
            served = {name: after[name][1] - before[name][1] for name in after}
            per_master = {}
            for name, (cpu, _) in after.items():
                share = served[name] / max(1, sum(served.values()))
                per_master[name] = {
                    "share": share,
                    "appends_per_s": share * appends / seconds,
                    "cpu_us_per_append": (cpu - before[name][0]) / max(1, served[name]) * 1e6,
                }
            memory = _memory(r, [g for _, done in results for g in done])
        finally:
            cluster.stop()
    cpu_us = median([m["cpu_us_per_append"] for m in per_master.values()])
    return {
        "shards": shards,
        "appends_per_s": appends / seconds,
        "per_master": per_master,
        "cpu_us_per_append": cpu_us,
        "capacity_per_master_core": 1e6 / cpu_us if cpu_us else 0.0,
        "memory": memory,
    }


def _memory(r: Any, finished: list[tuple[str, str]]) -> dict[str, dict[str, float]]:
    """Per game: bytes per finished game (log, meta, snapshot) and per event."""
    by_game: dict[str, list[tuple[int, int]]] = {}
    for game, gid in finished[:300]:
        k = keys(gid)
        total = sum(r.memory_usage(k[n], samples=0) or 0 for n in ("log", "meta", "snap"))
        events = r.xlen(k["log"])
        by_game.setdefault(game, []).append((total, events))
    return {
        game: {
            "games": len(rows),
            "bytes_per_game": sum(t for t, _ in rows) / len(rows),
            "events_per_game": sum(e for _, e in rows) / len(rows),
            "bytes_per_event": sum(t for t, _ in rows) / sum(e for _, e in rows),
        }
        for game, rows in sorted(by_game.items())
    }


def prebuild(per_game: int) -> None:
    for game in all_games():
        pool = scripts(game, per_game, "cluster")
        PREBUILT.extend((game.id, args) for args in encoded(pool))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--processes", type=int, default=max(2, os.cpu_count() or 2))
    parser.add_argument("--threads", type=int, default=4, help="client threads per process")
    parser.add_argument("--shards", default="1,2,3")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    print("bench.cluster: encoding recorded games ...", file=sys.stderr)
    prebuild(4)
    runs = []
    for shards in (int(x) for x in args.shards.split(",")):
        print(f"bench.cluster: {shards} master(s) ...", file=sys.stderr, flush=True)
        runs.append(measure(shards, args.processes, args.threads, args.seconds))
    meta = {
        "cpus": os.cpu_count(),
        "processes": args.processes,
        "threads": args.threads,
        "seconds": args.seconds,
    }
    if args.json:
        print(json.dumps({**meta, "runs": runs}, indent=2))
        return 0
    print(
        f"Event store on a local Redis Cluster: {meta['cpus']} CPUs, {args.processes} client "
        f"processes x {args.threads} threads, {args.seconds:g} s per size\n"
    )
    print("| masters | appends/s | per master | Redis CPU per append | one master on a core |")
    print("|--------:|----------:|-----------:|---------------------:|---------------------:|")
    for run in runs:
        per = ", ".join(f"{m['appends_per_s']:,.0f}" for m in run["per_master"].values())
        print(
            f"| {run['shards']} | {run['appends_per_s']:,.0f} | {per} | "
            f"{run['cpu_us_per_append']:.1f} µs | {run['capacity_per_master_core']:,.0f}/s |"
        )
    print("\n| game | events/game | bytes/finished game | bytes/event |")
    print("|------|------------:|--------------------:|------------:|")
    for game, m in runs[-1]["memory"].items():
        print(
            f"| {game} | {m['events_per_game']:.0f} | {m['bytes_per_game']:,.0f} | "
            f"{m['bytes_per_event']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
