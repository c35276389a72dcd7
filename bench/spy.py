"""``python -m bench.spy [--clients 8] [--moves 12000] [--limits] [--raw DIR]``: where a real
API process's CPU goes under moves, sampled by ``py-spy`` (issue 16).

``bench.move_profile`` runs the app in process under cProfile, which inflates every small
Python call and sees neither gunicorn nor gevent nor the sockets.  This samples the API
processes of a real `chronicle serve` (the driver and recorded Artus games of
``bench.moves``) from outside, 200 times a second, while the moves run, and prints each
sample's owner: the innermost frame of Chronicle's code (by module) or of a library (by
package), so a sample spent in ``json`` called by the request log counts for
``service/http/middleware.py`` and one in a socket's ``send`` for gevent.  Then the top
leaves.  Needs ``py-spy`` (in the test extra) and the right to trace (root, or
``ptrace_scope`` 0).
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.moves import ROOT, Serve, measure
from bench.scripts import scripts
from domain.games import GAMES

LIBRARIES = (
    "gunicorn", "flask_smorest", "flask_cors", "flask", "werkzeug", "redis", "gevent",
    "prometheus_client", "marshmallow", "webargs", "hiredis", "json", "logging", "zlib",
)  # fmt: skip
OURS = ("service/", "domain/", "projections/")


def owner(frame: str) -> str | None:
    """``Function (path:line)`` -> who owns it: a module of ours, a library, or None."""
    where = frame.rsplit("(", 1)[-1]
    for prefix in OURS:
        if where.startswith(prefix):
            return where.split(":", 1)[0]
    for lib in LIBRARIES:
        if where.startswith((f"{lib}/", f"{lib}.")):
            return lib
    return None


def shares(lines: list[str]) -> tuple[collections.Counter[str], collections.Counter[str], int]:
    """Samples by owner (innermost owned frame: ours before a library only if innermost) and
    by leaf function, from py-spy's raw (collapsed) output."""
    by_owner: collections.Counter[str] = collections.Counter()
    by_leaf: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n, frames = int(count), stack.split(";")
        total += n
        by_leaf[frames[-1]] += n
        for frame in reversed(frames):
            if (who := owner(frame)) is not None:
                by_owner[who] += n
                break
        else:
            by_owner["(other)"] += n
    return by_owner, by_leaf, total


def _record(spy: str, pid: int, seconds: int, into: Path) -> subprocess.Popen[bytes]:
    args = [spy, "record", "--pid", str(pid), "-r", "200", "-d", str(seconds)]
    args += ["-f", "raw", "-o", str(into), "--nonblocking"]
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(args: argparse.Namespace) -> int:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    pool = scripts(GAMES["artus"], 8, "spy")
    out = Path(args.raw) if args.raw else Path(tempfile.mkdtemp(prefix="chronicle-spy-"))
    out.mkdir(parents=True, exist_ok=True)
    with Serve(ROOT, args.limits, "this tree") as serve:
        measure(serve, pool, args.clients, 600)  # warm: caches, connections, the JIT-free rest
        apis = [pid for pid, kind in serve.kinds().items() if kind == "api"]
        seconds = max(3, int(args.moves / 1000))
        procs = [_record(spy, pid, seconds, out / f"{pid}.txt") for pid in apis]
        time.sleep(1)
        fig = measure(serve, pool, args.clients, args.moves)
        for p in procs:
            p.wait()
    lines = [ln for f in out.glob("*.txt") for ln in f.read_text().splitlines()]
    by_owner, by_leaf, total = shares(lines)
    if not total:
        print("py-spy recorded nothing (no right to trace?)", file=sys.stderr)
        return 2
    print(f"{args.clients} clients, limits {'on' if args.limits else 'off'}: {fig.rate:.0f} "
          f"moves/s, {fig.cpu_per_move:.3f} ms server CPU a move; {total} samples of "
          f"{len(apis)} gunicorn processes (raw stacks in {out})")  # fmt: skip
    print("share  owner (innermost frame of ours, else of a library)")
    for who, n in by_owner.most_common(args.top):
        print(f"{n / total:6.1%}  {who}")
    print("share  leaf")
    for leaf, n in by_leaf.most_common(args.top):
        print(f"{n / total:6.1%}  {leaf}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spy", description=__doc__)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--moves", type=int, default=12000)
    parser.add_argument("--limits", action="store_true", help="rate limits on")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--raw", metavar="DIR", help="keep py-spy's raw stacks here")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
