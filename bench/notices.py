"""``python -m bench.notices [--full]``: a move's p50 while the turns it begins fan out into
notice jobs (issue 38: at most +10%; they are jobs, not work in the request).

One client plays random legal moves (chosen in this process from the state, not timed) over
HTTP (gunicorn, as in production, and one worker: ``bench.servers``) on two sets of two-seat
Artus games, in ABBA rounds:

- **accounts**: both seats of every game held by an account with email notices on, so each
  move that begins the other seat's turn enqueues a ``your_turn`` notice job in the request's
  hook (``service.notices``), which the worker then runs (the message is built from the seat's
  view and "mailed": with no SMTP server the worker prints it);
- **guests**: the same games with no account (the hook returns at once).

The figure is the accounts' move p50 over the guests'; rounds go on until the turns begun
for an account's seat (the notice jobs made) reach 1,000 (a short run, some 15 s), or with
``--full`` 10,000.  ``python -m bench`` runs the short figure as its "notice fan-out" row.
"""

from __future__ import annotations

import argparse
import os
import random

from bench.client import Http
from bench.report import Row, median, pct, ratio_row, table
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


class Tables:
    """A condition's games, and making more as they finish."""

    def __init__(self, ch: Chronicle, held: bool, tag: str) -> None:
        self.ch, self.held, self.tag = ch, held, tag
        self.made = 0
        self.games = [self.new() for _ in range(GAMES)]

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


def rows(env: Servers, seats: int, chunk: int) -> list[Row]:
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
    guests, held = Tables(ch, False, "guest"), Tables(ch, True, "held")
    http = Http(env.api)
    times: dict[bool, list[float]] = {False: [], True: []}
    rounds, jobs = 0, 0
    try:
        play(guests, http, WARMUP, rng)
        play(held, http, WARMUP, rng)
        before = notice_jobs(env)
        while jobs < seats:
            for condition in (False, True) if rounds % 2 == 0 else (True, False):
                times[condition] += play(held if condition else guests, http, chunk, rng)
            rounds += 1
            jobs = notice_jobs(env) - before
    finally:
        http.close()
    with_jobs, without = times[True], times[False]
    note = (
        f"{len(with_jobs):,} moves a condition, {rounds} rounds ABBA; {jobs:,} notice jobs "
        f"(turns begun for an account's seat), queued and run by the worker meanwhile; "
        f"p99 {pct(with_jobs, 99):.2f} vs {pct(without, 99):.2f} ms"
    )
    return [
        ratio_row(f"move via HTTP p50, {jobs:,} notices fanned out", median(with_jobs), "ms",
                  "same, seats of guests (no notice)", median(without), "<=", 1.1, note)
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.notices", description=__doc__)
    parser.add_argument("--full", action="store_true", help="10,000 seats whose turn begins")
    args = parser.parse_args(argv)
    seats, chunk = (10_000, 2_000) if args.full else (1_000, 400)
    with Servers() as env:
        found = rows(env, seats, chunk)
    print(table(found))
    return 0 if all(r.met is not False for r in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
