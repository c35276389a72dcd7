"""``python -m bench.moves [--quick] [--against REV] [--clocked] [--profile]``: what a move
costs on a real `chronicle serve` (issue 16).

Recorded Artus games (``bench.scripts``: legal moves, played ahead in memory from the same
seeds) are posted from N concurrent clients (1, 8, 32) on loopback, each over its own
keep-alive connection, each a bounded number of moves; one more connection asks ``/healthz``
every 20 ms in the same window (its CPU is in the server's: a few per cent).  Printed per
condition and client count:

- the move round trip p50 / p99 and the ``/healthz`` p50 of the same window;
- moves/s;
- **server CPU per move**: the CPU seconds (user + system, children reaped included) of every
  process of the serve (supervisor, embedded Redis, gunicorn master and workers, RQ worker),
  read from ``/proc/<pid>/stat`` before and after the window, divided by the moves;
- the driver's own CPU (this process: one selector loop) as a share of all the CPU used;
- then the framework's floor at each client count: ``GET /healthz`` alone from as many
  connections (its p50 and server CPU a request), and the move's p50 over the floor's p50
  (issue 16's target: at most 1.5x).

``--clocked``: every game is created with a turn time (``CLOCK``), so every turn that begins
sets a deadline (``service.clocks``); none passes during the figure.

Conditions: rate limits off, and on (limits so high they never refuse, so every request pays
for its counters).  ``--against REV`` serves a second tree, ``git archive REV`` of this
repository, beside this one: the before/after pair of the same run, rounds alternating the
order.  The machine is shared: the load average is printed with the figures; CPU per move is
robust to other load, latency and moves/s are not.

``--profile`` instead profiles the move path in process (cProfile; the Flask app called as
WSGI, no gunicorn, on a Redis of its own) and prints the top entries.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from bench.edge import pct, raise_fd_limit
from bench.scripts import Script, scripts
from bench.serve import ChronicleServe
from chronicle_client import Client
from domain.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
LIMITS_ON = {  # counted on every request, never refusing one (one client address, many moves)
    "CHRONICLE_RATE_LIMIT": "100000/second;6000000/minute",
    "CHRONICLE_RATE_LIMIT_ADDRESS": "100000/second;6000000/minute",
}
LIMITS_OFF = {"CHRONICLE_RATE_LIMIT": "off", "CHRONICLE_RATE_LIMIT_ADDRESS": "off"}
# the games are created before the clock, hundreds from one address: no quota on creation
LIMITS_ON["CHRONICLE_CREATE_QUOTA"] = LIMITS_OFF["CHRONICLE_CREATE_QUOTA"] = "off"
HEALTH_EVERY = 0.02  # 50 a second: a small share of the CPU measured
CLOCK = "P1D"  # ``--clocked``: every game's turn time (a deadline for every turn, none passes)


def source_tree(rev: str, into: Path) -> Path:
    """``rev`` of this repository, extracted (``git archive``) into ``into``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def work_tree(into: Path) -> Path:
    """This checkout's files as they are now (tracked and new, not ignored), copied into
    ``into``: "this tree" measured from a fresh folder, as ``source_tree`` gives the other
    one (``bench.instructions``: counted in place, the same code cost more)."""
    names = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = ROOT / os.fsdecode(name)
        if source.is_file():  # a tracked file deleted in the work tree is left out
            target = into / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


class Serve(ChronicleServe):
    """One `chronicle serve` from the tree ``root``, rate limits on or off."""

    def __init__(self, root: Path, limits: bool, label: str, clocked: bool = False) -> None:
        super().__init__(root, LIMITS_ON if limits else LIMITS_OFF, prefix="chronicle-moves-")
        self.limits, self.label, self.clocked = limits, label, clocked

    def __enter__(self) -> Serve:
        self.start()
        return self

    def client(self) -> Client:
        """chronicle_client on this serve: for the set-up (readiness, creating the games); the
        timed moves go through the driver's own sockets."""
        return Client(f"http://127.0.0.1:{self.port}")

    def kinds(self) -> dict[int, str]:
        """Each process of the serve by kind: redis, api (gunicorn), other."""
        out = {}
        for pid in self.pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            kind = "redis" if b"redis-server" in cmd else "api" if b"gunicorn" in cmd else "other"
            out[pid] = kind
        return out

    def create(self, script: Script) -> tuple[str, dict[int, str]]:
        api = self.client()
        clock = {"turn_time": CLOCK} if self.clocked else {}
        doc = api.create(script.game, script.players, script.options, script.seed, **clock)
        api.http.close()
        return doc["id"], {s["seat"]: s["token"] for s in doc["seats"] if "token" in s}

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# ---- the driver: one selector loop, N move connections and one /healthz connection ----------


# ``--browser``: the fields Chromium adds to the web client's move (``service/web/static``:
# ``fetch`` with ``credentials: "omit"``, no referrer, an ``Idempotency-Key`` per move).
BROWSER_FIELDS = (
    ("Connection", "keep-alive"),
    ("sec-ch-ua", '"Chromium";v="156", "Not?A_Brand";v="24"'),
    ("Accept", "application/json"),
    ("sec-ch-ua-mobile", "?0"),
    ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/156.0.0.0 Safari/537.36"),
    ("sec-ch-ua-platform", '"Linux"'),
    ("Origin", "http://bench"),
    ("Sec-Fetch-Site", "same-origin"),
    ("Sec-Fetch-Mode", "cors"),
    ("Sec-Fetch-Dest", "empty"),
    ("Accept-Encoding", "gzip, deflate, br, zstd"),
    ("Accept-Language", "en-GB,en;q=0.9"),
)  # fmt: skip
BROWSER = "".join(f"{k}: {v}\r\n" for k, v in BROWSER_FIELDS)


def _request(
    method: str, path: str, body: bytes = b"", token: str = "", key: str | None = None
) -> bytes:
    """A request as the bench sends it; with ``key``, as the web client's ``fetch`` does in
    Chromium (``BROWSER_FIELDS``, that ``Idempotency-Key``)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\n"
    if key is not None:
        head += f"{BROWSER}Idempotency-Key: {key}\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


@dataclass
class Conn:
    sock: socket.socket
    requests: list[bytes]  # what this connection sends, in order
    health: bool = False
    i: int = 0
    sent: float = 0.0
    due: float = 0.0
    buf: bytes = b""
    took: list[float] = field(default_factory=list)
    refused: int = 0


def _parse(buf: bytes) -> tuple[int, int] | None:
    """(status, end of the response) once ``buf`` holds a whole response, else None."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = buf[:end].lower()
    i = head.find(b"content-length:")
    length = 0
    if i >= 0:
        j = head.find(b"\r\n", i)
        length = int(head[i + 15 : j if j >= 0 else end])
    if len(buf) < end + 4 + length:
        return None
    return int(buf[9:12]), end + 4 + length


def drive(
    port: int, plans: list[list[bytes]], ok: int = 201
) -> tuple[list[float], list[float], int, float]:
    """Send each plan's requests in order over its own connection, all connections at once;
    (move round trips, /healthz round trips, refused moves, wall seconds)."""
    sel = selectors.DefaultSelector()
    conns = []

    def connect(requests: list[bytes], health: bool = False) -> Conn:
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        c = Conn(s, requests, health)
        sel.register(s, selectors.EVENT_READ, c)
        return c

    conns = [connect(p) for p in plans]
    probe = connect([_request("GET", "/healthz")], health=True)
    start = time.perf_counter()
    for c in [*conns, probe]:
        c.sent = time.perf_counter()
        c.sock.send(c.requests[0])
    active = len(conns)
    while active:
        timeout = max(0.0, probe.due - time.perf_counter()) if probe.due else None
        for key, _ in sel.select(timeout):
            c = key.data
            c.buf += c.sock.recv(65536)
            parsed = _parse(c.buf)
            if parsed is None:
                continue
            now = time.perf_counter()
            status, end = parsed
            c.buf = c.buf[end:]
            c.took.append(now - c.sent)
            if c.health:
                probe.due = now + HEALTH_EVERY
                continue
            if status != ok:
                c.refused += 1
            c.i += 1
            if c.i < len(c.requests):
                c.sent = time.perf_counter()
                c.sock.send(c.requests[c.i])
            else:
                active -= 1
        if probe.due and time.perf_counter() >= probe.due:
            probe.due = 0.0
            probe.sent = time.perf_counter()
            probe.sock.send(probe.requests[0])
    wall = time.perf_counter() - start
    for c in [*conns, probe]:
        sel.unregister(c.sock)
        c.sock.close()
    moves = [t for c in conns for t in c.took]
    return moves, probe.took, sum(c.refused for c in conns), wall


@dataclass(frozen=True)
class Figure:
    p50: float  # ms
    p99: float
    health_p50: float
    rate: float  # moves/s
    cpu_per_move: float  # ms
    driver_share: float  # of all CPU used in the window
    refused: int
    split: dict[str, float]  # CPU ms a move by kind of process
    busiest: float  # the busiest API process's share of the API processes' CPU


def measure(
    serve: Serve, pool: list[Script], clients: int, moves: int, browser: bool = False
) -> Figure:
    """``moves`` moves from ``clients`` connections, on games created before the clock;
    ``browser``: each move as the web client sends it from Chromium (its header fields and
    an Idempotency-Key)."""
    each = max(1, moves // clients)
    plans = []
    k = 0
    for _ in range(clients):
        plan: list[bytes] = []
        while len(plan) < each:
            script = pool[k % len(pool)]
            k += 1
            gid, tokens = serve.create(script)
            for seat, version, action in script.moves[: each - len(plan)]:
                body = json.dumps({"action": action, "expected_version": version}).encode()
                path = f"/api/v1/games/{gid}/actions"
                key = f"{gid}-{version}" if browser else None
                plan.append(_request("POST", path, body, tokens[seat], key))
        plans.append(plan)
    time.sleep(0.3)  # the creations' follow-ups settle
    before, own0 = serve.cpu(), time.process_time()
    took, health, refused, wall = drive(serve.port, plans)
    after, own = serve.cpu(), time.process_time() - own0
    server = sum(v - before.get(pid, 0.0) for pid, v in after.items())
    n = len(took)
    kinds = serve.kinds()
    split = dict.fromkeys(("api", "redis", "other"), 0.0)
    api: list[float] = []
    for pid, v in after.items():
        split[kinds.get(pid, "other")] += (v - before.get(pid, 0.0)) / n * 1000
        if kinds.get(pid) == "api":
            api.append(v - before.get(pid, 0.0))
    return Figure(
        p50=pct(took, 0.5) * 1000,
        p99=pct(took, 0.99) * 1000,
        health_p50=pct(health, 0.5) * 1000 if health else float("nan"),
        rate=n / wall,
        cpu_per_move=server / n * 1000,
        driver_share=own / (own + server) if own + server else 0.0,
        refused=refused,
        split=split,
        busiest=max(api) / sum(api) if sum(api) else float("nan"),
    )


def floor(serve: Serve, clients: int, requests: int) -> tuple[float, float]:
    """The framework's floor: ``GET /healthz`` alone from ``clients`` connections; (p50 ms,
    server CPU ms a request)."""
    plans = [[_request("GET", "/healthz")] * (requests // clients) for _ in range(clients)]
    before = serve.cpu()
    took, _, refused, _ = drive(serve.port, plans, ok=200)
    after = serve.cpu()
    if refused:
        raise RuntimeError(f"{refused} /healthz refused")
    server = sum(v - before.get(pid, 0.0) for pid, v in after.items())
    return pct(took, 0.5) * 1000, server / len(took) * 1000


def median_figure(figs: list[Figure]) -> Figure:
    def m(name: str) -> float:
        return statistics.median(getattr(f, name) for f in figs)

    return Figure(
        m("p50"), m("p99"), m("health_p50"), m("rate"), m("cpu_per_move"), m("driver_share"),
        sum(f.refused for f in figs),
        {k: statistics.median(f.split[k] for f in figs) for k in figs[0].split},
        m("busiest"),
    )  # fmt: skip


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(args: argparse.Namespace) -> int:
    raise_fd_limit()
    pool = scripts(GAMES["artus"], 8, "moves")
    counts = [int(x) for x in args.clients.split(",")]
    tmp = tempfile.TemporaryDirectory(prefix="chronicle-moves-tree-")
    trees = [("this tree", ROOT)]
    if args.against:
        trees.insert(0, (args.against, source_tree(args.against, Path(tmp.name))))
    serves = []
    try:
        for label, root in trees:
            for limits in (False, True):
                name = f"{label}, limits {'on' if limits else 'off'}"
                serve = Serve(root, limits, name, args.clocked)
                serves.append(serve.__enter__())
        print(f"load average at start: {load_average()}", flush=True)
        results: dict[tuple[str, int], list[Figure]] = {}
        floors: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for r in range(args.rounds):
            order = serves if r % 2 == 0 else serves[::-1]
            for n in counts:
                for serve in order:
                    floors.setdefault((serve.label, n), []).append(floor(serve, n, args.moves))
            for n in counts:
                for serve in order:
                    fig = measure(serve, pool, n, args.moves, args.browser)
                    results.setdefault((serve.label, n), []).append(fig)
                    print(
                        f"  round {r + 1} {serve.label:>28} {n:>2} clients: {_line(fig)}",
                        file=sys.stderr,
                        flush=True,
                    )
        print(f"load average at end: {load_average()} ({os.cpu_count()} CPUs)")
        sent = ", sent as the web client sends them" if args.browser else ""
        sent += f", games with a turn time of {CLOCK}" if args.clocked else ""
        print(f"{args.moves} moves a figure{sent}, medians of {args.rounds} rounds")
        print(f"{'condition':>30} {'clients':>7}  move p50/p99 ms  healthz p50  moves/s  "
              "CPU/move ms  driver  CPU/move by process  busiest API process's share")  # fmt: skip
        for serve in serves:
            for n in counts:
                fig = median_figure(results[(serve.label, n)])
                print(f"{serve.label:>30} {n:>7}  {_line(fig)}")
        print("GET /healthz alone from as many clients (the framework's floor): p50 ms, CPU ms "
              "a request; the move's p50 over the floor's")  # fmt: skip
        for serve in serves:
            for n in counts:
                p50s, cpus = zip(*floors[(serve.label, n)], strict=True)
                p50, cpu = statistics.median(p50s), statistics.median(cpus)
                move = median_figure(results[(serve.label, n)]).p50
                print(f"{serve.label:>30} {n:>7}  {p50:.2f}  {cpu:.3f}  {move / p50:.1f}x")
    finally:
        for serve in serves:
            serve.__exit__(None, None, None)
        tmp.cleanup()
    return 0


def _line(f: Figure) -> str:
    refused = f"  ({f.refused} refused)" if f.refused else ""
    return (
        f"{f.p50:6.2f} / {f.p99:6.2f}  {f.health_p50:8.2f}  {f.rate:7.0f}  "
        f"{f.cpu_per_move:8.3f}  {f.driver_share:6.1%}  "
        + " ".join(f"{k} {v:.3f}" for k, v in f.split.items())
        + f"  busiest API {f.busiest:.0%}"
        + refused
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.moves", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small samples, one round")
    parser.add_argument("--against", metavar="REV", help="also serve this git revision")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--profile", action="store_true", help="cProfile the move path")
    parser.add_argument(
        "--browser", action="store_true", help="moves as the web client sends them (Chromium)"
    )
    parser.add_argument("--clocked", action="store_true", help=f"games with a turn time ({CLOCK})")
    args = parser.parse_args(argv)
    args.moves = 600 if args.quick else 3000
    args.rounds = 1 if args.quick else 3
    if args.profile:  # a process of its own: the metrics' folder is set before they exist
        with tempfile.TemporaryDirectory() as metrics, open(os.devnull, "wb") as logs:
            env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": metrics}
            command = [sys.executable, "-m", "bench.move_profile", str(args.moves)]
            return subprocess.run(command, env=env, stderr=logs, check=False).returncode
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
