"""``python -m bench.floors [--rounds 3]``: how low a move's p50 can go at one client on a
real `chronicle serve`, against the framework's floor, ``GET /healthz`` (issue 16).

One client sends, one request at a time on a keep-alive connection (the driver of
``bench.moves``), each of these, 3,000 times a round, rounds alternating the order:

- ``GET /healthz``: the framework's floor (issue 16's: Flask, no Redis);
- ``GET /readyz``: the same plus one Redis ``PING`` through redis-py's pool;
- ``POST /bench/one-round-trip``: answered at the edge, before Flask, after **one Redis
  round trip through the move's own path** (``connections.script``: a ``LeanScript``, the
  process's ``AutoPipeline``) of a script that returns 1: what a move would cost if its
  own work (reading the body, the token, the rules, the chain, the encoding, the answer,
  its log line) took no time at all;
- the move itself (recorded Artus games, limits off).

The probe route is not in Chronicle: it is added to a copy of this tree (``work_tree``), in
the copy's ``service/http/edge.py``, and served from there.  Printed: each p50 and its ratio
to ``/healthz``'s, and the move's p50 over the one-round-trip request's, which is what the
move's own work costs in latency at one client.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from bench.edge import pct, raise_fd_limit
from bench.moves import Serve, _request, drive, measure, work_tree
from bench.scripts import scripts
from domain.games import GAMES

PROBE = "/bench/one-round-trip"
PATCH = f'''

# ---- added by bench.floors to its copy of the tree: not part of Chronicle ----
_probe_script = None
_served = EdgeLimits.__call__


def _one_round_trip(self, environ, start_response):
    global _probe_script
    if environ.get("PATH_INFO") != "{PROBE}":
        return _served(self, environ, start_response)
    if _probe_script is None:
        import os

        from service import connections

        client = connections.connect(os.environ["REDIS_URL"])
        _probe_script = connections.script(client, "return 1")
    _probe_script()
    start_response("201 CREATED", [("Content-Type", "application/json"), ("Content-Length", "2")])
    return [b"{{}}"]


EdgeLimits.__call__ = _one_round_trip
'''
KINDS = ("/healthz", "/readyz", PROBE, "move")


def probe_tree(into: Path) -> Path:
    """A copy of this tree whose edge answers ``PROBE`` after one script call."""
    root = work_tree(into)
    edge = root / "service" / "http" / "edge.py"
    edge.write_text(edge.read_text() + PATCH)
    return root


def one_client(serve: Serve, path: str, n: int) -> float:
    """p50 ms of ``n`` requests to ``path``, one at a time on one connection."""
    method, ok = ("POST", 201) if path == PROBE else ("GET", 200)
    took, _, refused, _ = drive(serve.port, [[_request(method, path)] * n], ok=ok)
    if refused:
        raise RuntimeError(f"{refused} of {path} refused")
    return pct(took, 0.5) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.floors", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args(argv)
    raise_fd_limit()
    pool = scripts(GAMES["artus"], 8, "moves")
    got: dict[str, list[float]] = {k: [] for k in KINDS}
    tmp = tempfile.TemporaryDirectory(prefix="chronicle-floors-")
    with tmp, Serve(probe_tree(Path(tmp.name)), False, "probe") as serve:
        for r in range(args.rounds):
            for kind in KINDS if r % 2 == 0 else KINDS[::-1]:
                if kind == "move":
                    p50 = measure(serve, pool, 1, args.requests).p50
                else:
                    p50 = one_client(serve, kind, args.requests)
                got[kind].append(p50)
                print(f"  round {r + 1} {kind:>24}: {p50:.3f} ms", file=sys.stderr)
    medians = {k: statistics.median(v) for k, v in got.items()}
    print(f"one client, p50 ms (medians of {args.rounds} rounds of {args.requests})")
    for kind in KINDS:
        ratio = medians[kind] / medians["/healthz"]
        print(f"{kind:>24}  {medians[kind]:.3f}  {ratio:.2f}x /healthz")
    own = medians["move"] - medians[PROBE]
    print(f"the move's own work over one round trip: {own:.3f} ms; for 1.5x /healthz it would "
          f"have to be {1.5 * medians['/healthz'] - medians[PROBE]:.3f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
