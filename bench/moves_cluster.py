"""``python -m bench.moves_cluster [--quick] [--shards 1,2,3] [--clients 8,32]``: moves on a
`chronicle serve` (the serving model of issue 10: gunicorn's gevent worker, 2 API processes)
whose events live on a local Redis Cluster of 1, 2 and 3 masters (issue 16's re-measure).

The same driver and recorded Artus games as ``bench.moves`` (rate limits off), with
``REDIS_URL=redis+cluster://...`` and a plain queue Redis (RQ needs one).  The masters keep
an append-only file written every second, as the embedded Redis does (nothing given up), on
TCP (the embedded Redis is on a unix socket).  For reference the same run measures the
embedded Redis too.  Printed per shard count and client count: moves/s, move p50 / p99, and
the server CPU per move split into the API processes, every Redis (masters and queue) and the
rest (supervisor, worker).  Everything shares this machine's cores with the driver, so moves/s
cannot grow with masters here; the CPU split says what each part would need on its own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bench.edge import raise_fd_limit
from bench.moves import LIMITS_OFF, ROOT, Figure, Serve, load_average, measure, median_figure
from bench.scripts import scripts
from domain.games import GAMES
from service.redis_server import RedisServer
from tests.support.redis_cluster import RedisClusterServer


class ClusterServe(Serve):
    """A serve on an outside Redis (a cluster, or none: the embedded one); the cluster's and
    the queue's processes count as the serve's."""

    def __init__(self, label: str, redis_env: dict[str, str], extra_pids: list[int]) -> None:
        super().__init__(ROOT, False, label)
        self.env.update(redis_env)
        self.extra_pids = extra_pids

    def pids(self) -> list[int]:
        return [*super().pids(), *self.extra_pids]


def run(shards: list[int], clients: list[int], moves: int, rounds: int) -> int:
    raise_fd_limit()
    pool = scripts(GAMES["artus"], 8, "moves")
    rows: list[tuple[str, int, Figure]] = []
    print(f"load average at start: {load_average()}", flush=True)
    for n in [0, *shards]:
        with tempfile.TemporaryDirectory(prefix="chronicle-moves-cluster-") as tmp:
            cluster = queue = None
            env: dict[str, str] = {}
            pids: list[int] = []
            if n:
                aof = ["--appendonly", "yes", "--appendfsync", "everysec"]
                cluster = RedisClusterServer(Path(tmp) / "cluster", masters=n, extra=aof)
                queue = RedisServer(Path(tmp) / "queue", persistent=False)
                env = {"REDIS_URL": cluster.start(), "QUEUE_REDIS_URL": queue.start()}
                assert queue.proc is not None
                pids = [p.pid for p in cluster.procs] + [queue.proc.pid]
            label = f"{n} master{'s' if n > 1 else ''}" if n else "embedded Redis"
            serve = ClusterServe(label, {**LIMITS_OFF, **env}, pids)
            try:
                serve.__enter__()
                measure(serve, pool, 8, 300)  # warm: both API processes, the worker's start
                for c in clients:
                    figs = [measure(serve, pool, c, moves) for _ in range(rounds)]
                    fig = median_figure(figs)
                    rows.append((label, c, fig))
                    print(f"  {label:>14} {c:>2} clients: {fig.rate:7.0f} moves/s", file=sys.stderr)
            finally:
                serve.__exit__(None, None, None)
                if cluster is not None:
                    cluster.stop()
                if queue is not None:
                    queue.stop()
    print(f"load average at end: {load_average()} ({os.cpu_count()} CPUs)")
    print(f"{moves} moves a figure, medians of {rounds} rounds, 2 API processes, limits off\n")
    print(
        "| Redis | clients | moves/s | move p50 / p99 ms | server CPU / move ms | API | Redis "
        "| other |"
    )
    print("|---|--:|--:|---|--:|--:|--:|--:|")
    for label, c, f in rows:
        s = f.split
        print(
            f"| {label} | {c} | {f.rate:,.0f} | {f.p50:.2f} / {f.p99:.2f} | "
            f"{f.cpu_per_move:.3f} | {s['api']:.3f} | {s['redis']:.3f} | {s['other']:.3f} |"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.moves_cluster", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small samples, one round")
    parser.add_argument("--shards", default="1,2,3")
    parser.add_argument("--clients", default="8,32")
    args = parser.parse_args(argv)
    shards = [int(x) for x in args.shards.split(",")]
    clients = [int(x) for x in args.clients.split(",")]
    return run(shards, clients, 600 if args.quick else 3000, 1 if args.quick else 3)


if __name__ == "__main__":
    sys.exit(main())
