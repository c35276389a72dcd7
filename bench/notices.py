"""``python -m bench.notices [--full] [--games N]``: a move's p50 while the turns it begins fan
out into notices (issue 38: at most +10%; they are jobs, not work in the request).

One client plays random legal moves (chosen in this process from the state, not timed) over
HTTP (gunicorn, as in production, and one worker: ``bench.servers``) on two sets of two-seat
Artus games, in ABBA rounds:

- **accounts**: both seats of every game held by an account with email notices on, so each
  move that begins the other seat's turn owes a ``your_turn`` notice, handed on after the
  answer (``service.notices``, ``service.deferred``); the worker's loop settles those no
  longer owed and makes jobs of the rest (``service.notice_batch``), and a job builds each
  message from the seat's view and "mails" it (with no SMTP server the worker prints it);
- **guests**: the same games with no account (the hook returns at once).

The servers run with ``CHRONICLE_NOTICE_GRACE=0`` (``bench.servers``): every notice is
looked at as soon as it is owed, the worst case.  With the default grace of a minute, these
games' turns (some 40 ms each) would all be over before their notices were looked at.

The figure is the accounts' move p50 over the guests'; rounds go on until the turns begun
for an account's seat (the notices owed) reach 1,000 (a short run, some 15 s), or with
``--full`` 10,000.  After each chunk of moves the bench waits for the worker to be done with
every notice owed, so that no chunk pays for the one before, and it times each chunk's last
three quarters only, when the worker's looks have begun.  ``--games`` (40 a condition by
default, so a game's turn lasts some 40 ms) set to 1,000 makes each turn last longer than the
worker's look at the notices: nearly every notice is then still owed and mailed.  The note
says what the notices came to (``sent``, ``turn over``) and the worker's CPU a notice.
``python -m bench`` runs the short figure as its "notice fan-out" row.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

from rq import Queue

from bench.client import Http
from bench.report import Row, median, pct, ratio_row, table
from bench.serve import cpu_seconds
from bench.servers import ADMIN_TOKEN, Servers
from projections.views import revealed
from service import lobby, notices
from service.accounts import Accounts
from service.chronicle import Chronicle
from service.connections import connect
from service.jobs import RQJobQueue
from service.redis_store import RedisEventStore

EMAIL = os.environ.get("BENCH_NOTICE_EMAIL", "1") == "1"
GAMES = 40  # games per condition played round-robin (a finished one is replaced)
WARMUP = 50
STEADY = 4  # the first quarter of each chunk is left out: the worker's first look comes later


class Tables:
    """A condition's games, and making more as they finish."""

    def __init__(self, ch: Chronicle, held: bool, tag: str, games: int = GAMES) -> None:
        self.ch, self.held, self.tag = ch, held, tag
        self.made = 0
        self.games = [self.new() for _ in range(games)]

    def new(self) -> tuple[str, dict[int, str]]:
        self.made += 1
        players = [{"name": "Ann"}, {"name": "Bob"}]
        doc = self.ch.create(None, "artus", players, {}, f"{self.tag}-{self.made}")
        gid = doc["id"]
        if self.held:
            accounts = self.ch.accounts_of()
            for seat in (0, 1):
                code = accounts.ask_code(f"{self.tag}-{self.made}-{seat}@bench.invalid", "bench")
                assert code is not None
                player = accounts.verify_code(code.code, "bench", f"P{seat}").id
                accounts.update(player, {"notifications": {"email": EMAIL}})
                lobby.claim(self.ch, gid, seat, player)
        return gid, {s["seat"]: s["token"] for s in doc["seats"]}


def play(tables: Tables, http: Http, n: int, rng: random.Random) -> list[float]:
    """``n`` moves round-robin over the condition's games: their round trips in ms."""
    ch, i = tables.ch, 0
    out: list[float] = []
    while len(out) < n:
        i = (i + 1) % len(tables.games)
        gid, tokens = tables.games[i]
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if revealed(cur.match.status(cur.game)) or not to_act:  # over, or being scored
            tables.games[i] = tables.new()
            continue
        seat = to_act[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        status, body, took = http.act(gid, tokens[seat], action, cur.match.version)
        if status != 201:
            raise RuntimeError(f"POST action: {status} {body}")
        out.append(took * 1000)
    return out


def notice_jobs(env: Servers) -> int:
    """The notices the worker has done with so far (each keeps its outcome ten minutes)."""
    return sum(1 for _ in env.r.scan_iter(match=notices.done_key("*"), count=1000))


def drain(env: Servers, timeout: float = 60.0) -> None:
    """Wait until the worker has done with every notice owed so far: none due nor queued nor
    running."""
    queue = Queue(notices.QUEUE, connection=env.r)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not (env.r.zcard(notices.PENDING) or len(queue) or queue.started_job_registry.count):
            return
    raise RuntimeError("the worker did not catch up with the notices")


def worker_cpu(env: Servers) -> float:
    """CPU seconds the worker process has used so far (user and system)."""
    pid = next(pid for pid, name in env.names.items() if name == "chronicle")
    return cpu_seconds(pid, children=False)


def outcomes(env: Servers) -> str:
    """What the worker did with the notices, by outcome (``sent 620, turn over 510``)."""
    found: Counter[str] = Counter()
    for key in env.r.scan_iter(match=notices.done_key("*"), count=1000):
        outcome = env.r.get(key)
        found[outcome.decode() if isinstance(outcome, bytes) else str(outcome)] += 1
    return ", ".join(f"{what} {n:,}" for what, n in found.most_common())


def rows(env: Servers, seats: int, chunk: int, games: int = GAMES) -> list[Row]:
    """The accounts' move p50 over the guests': ABBA rounds of ``chunk`` moves a condition
    until the turns begun for accounts' seats reach ``seats``."""
    os.environ["CHRONICLE_SIGNIN_LIMITS"] = "email=1000000/3600,email_client=1000000/3600"
    ch = Chronicle(
        RedisEventStore(env.events),
        RQJobQueue(connect(env.url)),
        ADMIN_TOKEN,
        accounts=Accounts(env.events),
    )
    rng = random.Random(38)
    guests, held = Tables(ch, False, "guest", games), Tables(ch, True, "held", games)
    http = Http(env.api)
    times: dict[bool, list[float]] = {False: [], True: []}
    cpu = {False: 0.0, True: 0.0}  # the worker's CPU seconds while each condition played
    rounds, jobs = 0, 0
    try:
        play(guests, http, WARMUP, rng)
        play(held, http, WARMUP, rng)
        before = notice_jobs(env)
        drain(env)
        while jobs < seats:
            for condition in (False, True) if rounds % 2 == 0 else (True, False):
                start = worker_cpu(env)
                found = play(held if condition else guests, http, chunk, rng)
                times[condition] += found[len(found) // STEADY :]
                drain(env)  # the notices owed are the held moves' work, not the next chunk's
                cpu[condition] += worker_cpu(env) - start
            rounds += 1
            jobs = notice_jobs(env) - before
    finally:
        http.close()
    with_jobs, without = times[True], times[False]
    note = (
        f"{len(with_jobs):,} moves a condition (each chunk's last three quarters), "
        f"{rounds} rounds ABBA, the worker caught up after each chunk; {jobs:,} notices "
        f"(turns begun for an account's seat), looked at by the worker meanwhile "
        f"({outcomes(env)}); the worker's CPU {cpu[True] * 1000 / max(jobs, 1):.2f} ms a "
        f"notice while accounts played ({cpu[True]:.1f} s; {cpu[False]:.1f} s for guests); "
        f"p99 {pct(with_jobs, 99):.2f} vs {pct(without, 99):.2f} ms"
    )
    return [
        ratio_row(f"move via HTTP p50, {jobs:,} notices fanned out", median(with_jobs), "ms",
                  "same, seats of guests (no notice)", median(without), "<=", 1.1, note)
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.notices", description=__doc__)
    parser.add_argument("--full", action="store_true", help="10,000 seats whose turn begins")
    parser.add_argument("--games", type=int, default=GAMES, help="games a condition")
    args = parser.parse_args(argv)
    seats, chunk = (10_000, 2_000) if args.full else (1_000, 400)
    with Servers() as env:
        found = rows(env, seats, chunk, args.games)
    print(table(found))
    return 0 if all(r.met is not False for r in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
