"""The `chronicle` command: serve (API + worker, embedded Redis by default), worker, replay,
ratings, backup and restore.

It sits above every other layer: it starts processes and wires them by environment variables.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chronicle.backup import add_commands as add_backup_commands


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "worker":
        from chronicle.supervise import forks_die_with_this_process
        from workers.main import run

        forks_die_with_this_process()  # RQ's scheduler process must not outlive its worker
        run(burst=args.burst)
        return 0
    if args.command == "replay":
        from chronicle.replay import run as replay_run

        return replay_run(args.file, verbose=args.verbose)
    if args.command == "ratings":
        from chronicle.ratings import run as ratings_run

        return ratings_run(args.files, everything=args.all, as_json=args.json)
    return int(args.run(args))


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chronicle", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve", help="run the API and a worker (embedded Redis if no REDIS_URL)"
    )
    serve.add_argument(
        "--host",
        default=os.environ.get("HOST", "127.0.0.1"),
        help="address the API listens on; 0.0.0.0 for every interface (default: $HOST or "
        "127.0.0.1)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("PORT") or 8000),
        help="port the API listens on (default: $PORT or 8000)",
    )
    serve.add_argument(
        "--data-dir",
        default=os.environ.get("CHRONICLE_DATA_DIR") or "var",
        help="where the embedded Redis keeps its data and the processes their metrics "
        "(default: $CHRONICLE_DATA_DIR or ./var)",
    )
    serve.add_argument(
        "--api-processes",
        type=int,
        default=os.cpu_count() or 2,
        help="gunicorn processes serving the API (default: one per core)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="RQ worker processes: bot turns, scoring (default: 1)",
    )
    serve.add_argument(
        "--worker-class",
        choices=["gevent", "gthread"],
        default="gevent",
        help="gevent (default): a waiting connection costs no thread; gthread: a thread per "
        "request (for comparison, see bench/edge.py)",
    )
    worker = sub.add_parser("worker", help="run an RQ worker (needs REDIS_URL)")
    worker.add_argument(
        "--burst", action="store_true", help="exit when the queue is empty instead of waiting"
    )
    replay = sub.add_parser("replay", help="replay an exported log through the rules")
    replay.add_argument(
        "file", type=Path, help="an export (GET /api/v1/games/{id}/export) as a JSON file"
    )
    replay.add_argument(
        "--verbose",
        action="store_true",
        help="also print the final state (JSON) before the verdict",
    )
    ratings = sub.add_parser(
        "ratings", help="fold exported games into the ratings the service keeps"
    )
    ratings.add_argument("files", type=Path, nargs="+", help="exports (JSON files)")
    ratings.add_argument(
        "--all",
        action="store_true",
        help="also count finished games created without rated (the bots' ladder)",
    )
    ratings.add_argument("--json", action="store_true", help="print the tables as JSON")
    add_backup_commands(sub)
    return parser


def _serve(args: argparse.Namespace) -> int:
    """The embedded Redis (unless ``REDIS_URL``), the API and the workers, supervised
    (``chronicle.supervise``): a child that dies is restarted, and all end with this one."""
    from chronicle.supervise import (
        FolderInUse,
        Supervisor,
        die_with_parent,
        lock_folder,
        raise_fd_limit,
        say,
    )
    from service.redis_server import RedisServer, binary
    from service.serving import gunicorn_command, timeouts

    try:
        timeouts()  # each API process reads them again; a bad one is said here, once
    except ValueError as exc:
        print(f"chronicle: {exc}", file=sys.stderr)
        return 2
    raise_fd_limit()
    env = dict(os.environ)
    me = os.getpid()
    supervisor = Supervisor()
    redis_child = None
    _metrics_dir(env, Path(args.data_dir))
    if not env.get("REDIS_URL"):
        try:
            binary()
        except RuntimeError as exc:
            print(f"chronicle: REDIS_URL is not set, and {exc}", file=sys.stderr)
            return 2
    # Children get their own session: Ctrl-C reaches only this supervisor, which then stops
    # them in order (API and workers first, Redis last) instead of all at once.
    options: dict[str, Any] = {"start_new_session": True, "preexec_fn": die_with_parent(me)}
    if not env.get("REDIS_URL"):
        data = Path(args.data_dir).resolve()
        try:
            lock = lock_folder(data)
        except FolderInUse as exc:
            say(str(exc))
            return 1
        redis_options = {"preexec_fn": die_with_parent(me), "pass_fds": (lock,)}
        redis_server = RedisServer(data / "redis", popen_options=redis_options)
        env["REDIS_URL"] = redis_server.start()

        def start_redis() -> subprocess.Popen[Any]:
            if redis_server.proc is None or redis_server.proc.poll() is not None:
                redis_server.start()
            assert redis_server.proc is not None
            return redis_server.proc

        redis_child = supervisor.add("redis", start_redis)
        print(f"chronicle: embedded Redis at {env['REDIS_URL']} (data in {redis_server.data_dir})")
    bind = f"{args.host}:{args.port}"
    gunicorn = gunicorn_command(bind, args.api_processes, args.worker_class)

    def spawn(command: list[str]) -> Callable[[], subprocess.Popen[Any]]:
        return lambda: subprocess.Popen(command, env=env, **options)

    supervisor.add("api", spawn(gunicorn))
    for i in range(args.workers):
        supervisor.add(f"worker {i + 1}", spawn([sys.executable, "-m", "chronicle", "worker"]))
    print(f"chronicle: API on http://{bind}/api/v1 (docs: /api/v1/docs)", flush=True)
    supervisor.watch()
    supervisor.stop(last=redis_child)
    print("chronicle: stopped")
    return 0


def _metrics_dir(env: dict[str, str], data_dir: Path) -> None:
    """Multi-process metrics: every API and worker process writes its values under one folder,
    emptied first (values of an earlier run would add up with this run's)."""
    from service.metrics import MULTIPROC_ENV, prepare_multiproc_dir

    path = Path(env.get(MULTIPROC_ENV) or data_dir / "metrics")
    prepare_multiproc_dir(path)
    env[MULTIPROC_ENV] = str(path.resolve())


if __name__ == "__main__":
    sys.exit(main())
