"""The `chronicle` command: serve (API + worker, embedded Redis by default), worker, replay,
backup and restore.

It sits above every other layer: it starts processes and wires them by environment variables.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from chronicle.backup import add_commands as add_backup_commands


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "worker":
        from workers.main import run

        run(burst=args.burst)
        return 0
    if args.command == "replay":
        from chronicle.replay import run as replay_run

        return replay_run(args.file, verbose=args.verbose)
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
        help="gunicorn processes serving the API, 8 threads each (default: one per core)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="RQ worker processes: bot turns, scoring (default: 1)",
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
    add_backup_commands(sub)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from service.redis_server import RedisServer, binary

    env = dict(os.environ)
    _metrics_dir(env, Path(args.data_dir))
    redis_server = None
    if not env.get("REDIS_URL"):
        try:
            binary()
        except RuntimeError as exc:
            print(f"chronicle: REDIS_URL is not set, and {exc}", file=sys.stderr)
            return 2
        redis_server = RedisServer(Path(args.data_dir) / "redis")
        env["REDIS_URL"] = redis_server.start()
        print(f"chronicle: embedded Redis at {env['REDIS_URL']} (data in {redis_server.data_dir})")
    procs: list[subprocess.Popen[Any]] = []
    gunicorn = [
        sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.api_processes), "--worker-class", "gthread", "--threads", "8",
        "--timeout", "60", "--graceful-timeout", "5", "--no-control-socket",
        "service.app:create_app()",
    ]  # fmt: skip
    # Children get their own session: Ctrl-C reaches only this supervisor, which then stops
    # them in order (API and workers first, Redis last) instead of all at once.
    procs.append(subprocess.Popen(gunicorn, env=env, start_new_session=True))
    for _ in range(args.workers):
        worker = [sys.executable, "-m", "chronicle", "worker"]
        procs.append(subprocess.Popen(worker, env=env, start_new_session=True))
    print(f"chronicle: API on http://{args.host}:{args.port}/api/v1 (docs: /api/v1/docs)")
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    while not stopping:
        time.sleep(0.2)
        dead = [p for p in procs if p.poll() is not None]
        if dead:
            print(
                f"chronicle: a child process exited ({dead[0].args[2]}); stopping", file=sys.stderr
            )
            code = 1
            break
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
    if redis_server:
        redis_server.stop()
    print("chronicle: stopped")
    return code


def _metrics_dir(env: dict[str, str], data_dir: Path) -> None:
    """Multi-process metrics: every API and worker process writes its values under one folder,
    emptied first (values of an earlier run would add up with this run's)."""
    from service.observability import MULTIPROC_ENV, prepare_multiproc_dir

    path = Path(env.get(MULTIPROC_ENV) or data_dir / "metrics")
    prepare_multiproc_dir(path)
    env[MULTIPROC_ENV] = str(path.resolve())


if __name__ == "__main__":
    sys.exit(main())
