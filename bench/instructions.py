"""``python -m bench.instructions [--against REV] [--moves 1000] [--limits]``: the instructions
a move costs in the API process, counted by valgrind, not timed (issue 16).

On a shared VM a timed figure of one tree moves between runs by far more than a small gain
(the API's CPU per move in process can change within an hour with nothing changed), so such a
gain cannot be seen in ``bench.moves``'s pairs.  The instructions a process executes can be
counted, and the count of one tree hardly moves between runs.

What is counted: the app in process, as ``bench.move_profile`` runs it (the Flask app called
as WSGI with the environment gunicorn's processes have, on an embedded Redis of its own,
recorded Artus moves; no gunicorn, gevent or sockets to the client, which ``bench.moves``
measures), under callgrind (``--tool=callgrind``, children not traced: Redis is not in the
count).  Each tree and condition runs twice, with 0 and with N moves after the same set-up
and 100 warm-up moves; the difference over N is a move's instructions.  The runs go side by
side, as many as there are cores (a count does not depend on timing).  A run takes about a
minute.  Needs valgrind (Debian's ``valgrind`` package).

``--served`` counts the same moves sent as HTTP/1.1 over a loopback TCP connection to
``service.http1.Connection`` under gevent (patched first, as in gunicorn's worker): the
parser, the answer's writing and gevent's loop are in the count, and so is the client
greenlet, whose code is the same for every tree (gunicorn's own process code is not).

``--against REV`` counts ``git archive REV`` of this repository too (its ``bench.move_profile``
runs the moves: any tree since the move's path was first profiled has it; ``--served`` needs
``service.http1``, from ``01e0bfd`` on).  "This tree" is counted from a copy of the checkout's
files in a fresh folder, as the other tree is, and both are compiled first.  Even so two trees
of the same code differ a little (the same commit counted in its archive and as the work
tree, in place or copied; the cause was not found), so a difference that small between two
trees is not resolved by this count (the figures: ``docs/benchmarks``).  Counted in place the
offset was larger.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.moves import BROWSER, LIMITS_OFF, LIMITS_ON, source_tree, work_tree

PLANNED = 3000  # moves planned in every run (the same set-up whatever N is)
WARM = 100

# Run by each counted process, from the tree under test (which need not have this module).
CHILD = f"""
import os, sys, tempfile
from pathlib import Path
from bench.move_profile import _plan, call
from service.redis_server import RedisServer
n = int(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    redis = RedisServer(Path(tmp) / "redis")
    os.environ["REDIS_URL"] = redis.start()
    try:
        from service.app import create_app
        app = create_app()
        envs = _plan(app, {PLANNED})
        for env in envs[: {WARM} + n]:
            status, body = call(app, env)
            if not status.startswith("201"):
                raise SystemExit(f"{{status}} {{body[:300]!r}}")
    finally:
        redis.stop()
"""
# ``--served``: the same moves as HTTP/1.1 bytes through ``service.http1`` on a loopback TCP
# connection, under gevent (patched first, as gunicorn's worker does).  The client greenlet's
# instructions are counted too; its code is this string, the same for every tree.
SERVED = f"""
from gevent import monkey
monkey.patch_all()
import logging, os, socket, sys, tempfile
from pathlib import Path
import gevent
from bench.move_profile import _plan, call
from service import http1
from service.redis_server import RedisServer
n = int(sys.argv[1])
extra = {BROWSER!r} if sys.argv[2:] == ["browser"] else ""
moved = iter(range(10**9))

def raw(env):
    body = env["wsgi.input"].getvalue()
    head = f"{{env['REQUEST_METHOD']}} {{env['PATH_INFO']}} HTTP/1.1\\r\\nHost: bench\\r\\n"
    head += f"Authorization: {{env['HTTP_AUTHORIZATION']}}\\r\\n"
    if extra:
        head += extra + f"Idempotency-Key: move-{{next(moved)}}\\r\\n"
    head += f"Content-Type: application/json\\r\\nContent-Length: {{len(body)}}\\r\\n\\r\\n"
    return head.encode() + body

def answer(sock, buf):
    while b"\\r\\n\\r\\n" not in buf:
        buf += sock.recv(65536)
    head, _, rest = buf.partition(b"\\r\\n\\r\\n")
    if not head.startswith(b"HTTP/1.1 201"):
        raise SystemExit(head[:300])
    length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\\r\\n", 1)[0])
    while len(rest) < length:
        rest += sock.recv(65536)
    return rest[length:]

with tempfile.TemporaryDirectory() as tmp:
    redis = RedisServer(Path(tmp) / "redis")
    os.environ["REDIS_URL"] = redis.start()
    try:
        from service.app import create_app
        app = create_app()
        moves = [raw(env) for env in _plan(app, {PLANNED})]
        listener = socket.create_server(("127.0.0.1", 0))
        client = socket.create_connection(listener.getsockname())
        server, addr = listener.accept()
        limits = http1.Timeouts() if hasattr(http1, "Timeouts") else 10.0
        conn = http1.Connection(
            app, server, addr, ("127.0.0.1", "80"), lambda: True, limits, logging.getLogger()
        )
        serving = gevent.spawn(conn.serve)
        buf = b""
        for data in moves[: {WARM} + n]:
            client.sendall(data)
            buf = answer(client, buf)
        client.close()
        serving.join(5)
    finally:
        redis.stop()
"""
_TOTALS = re.compile(r"^(?:totals|summary): (\d+)", re.M)


def count(
    tree: Path, moves: int, limits: bool, out: Path, served: bool = False, browser: bool = False
) -> int:
    """Instructions callgrind counted in one run of ``CHILD`` (``SERVED``, with the fields a
    browser sends if ``browser``) with ``moves`` moves."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_REDIS_URL")}
    env.update(LIMITS_ON if limits else LIMITS_OFF, PYTHONPATH=str(tree))
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    cmd += ["--trace-children=no", sys.executable, "-c", SERVED if served else CHILD, str(moves)]
    cmd += ["browser"] if browser else []
    log = out.with_suffix(".log")  # the request log lines (written: they are a move's cost)
    with log.open("wb") as err:
        done = subprocess.run(cmd, cwd=tree, env=env, stdout=err, stderr=err)
    if done.returncode != 0:
        raise RuntimeError(f"{tree} ({moves} moves): {log.read_text()[-2000:]}")
    found = _TOTALS.search(out.read_text())
    if found is None:
        raise RuntimeError(f"no totals in {out}")
    return int(found.group(1))


def run(args: argparse.Namespace) -> int:
    if shutil.which("valgrind") is None:
        print("bench.instructions needs valgrind (apt-get install -y valgrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="chronicle-instructions-") as tmp:
        trees = [("this tree", work_tree(Path(tmp) / "this"))]
        if args.against:
            trees.insert(0, (args.against, source_tree(args.against, Path(tmp) / "against")))
        for _, tree in trees:  # compiled before counting: no run pays for compiling
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True)
        conditions = [False, True] if args.limits else [False]
        jobs = [
            (label, tree, limits, n)
            for label, tree in trees
            for limits in conditions
            for n in (0, args.moves)
        ]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = [
                pool.submit(
                    count, tree, n, limits, Path(tmp) / f"cg-{i}.out", args.served, args.browser
                )
                for i, (_, tree, limits, n) in enumerate(jobs)
            ]
            counts = [f.result() for f in futures]
    got = {(label, limits, n): c for (label, _, limits, n), c in zip(jobs, counts, strict=True)}
    where = "served by service.http1 under gevent" if args.served else "the app called as WSGI"
    where += ", with a browser's header fields" if args.browser else ""
    print(f"instructions a move in the API process, {where} (callgrind; {args.moves} moves)")
    for limits in conditions:
        base = None
        for label, _ in trees:
            per = (got[label, limits, args.moves] - got[label, limits, 0]) / args.moves
            change = f"  {100 * (per / base - 1):+.1f}%" if base else ""
            base = base or per
            name = f"{label}, limits {'on' if limits else 'off'}"
            print(f"  {name:>30}: {per / 1e6:.3f} M{change}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--against", metavar="REV", help="also count this git revision")
    parser.add_argument("--moves", type=int, default=1000, help="moves counted (default 1000)")
    parser.add_argument("--limits", action="store_true", help="also with rate limits on")
    parser.add_argument(
        "--served", action="store_true", help="through service.http1 and gevent (and a client)"
    )
    parser.add_argument(
        "--browser",
        action="store_true",
        help="with --served: each move with the header fields Chromium sends for the web client",
    )
    args = parser.parse_args()
    if not 1 <= args.moves <= PLANNED - WARM:
        parser.error(f"--moves must be between 1 and {PLANNED - WARM}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
