"""``python -m bench.ratings [--games N] [--game G] [--bots a,b,...] [--out DIR]``: the bots'
ladder, and the check that the ratings are a projection after many games.

It plays ``N`` games among bots in memory (each bot deciding from its seat's view, as the
worker has it decide), two or three distinct bots a table drawn from ``--bots``, each game
created ``rated`` so that its export is what a rated game's export is; exports them, checks
every export as ``chronicle ratings`` does, folds them (``service.ratings``), and folds them
again in three shuffled orders, which must give the very same table.  It prints the bots'
table (the figures of docs/play/ratings.md).  ``--out``: also write the exports there, for
``chronicle ratings DIR/*.json``.

Games of the searching bots take long (a ``mcts:hard`` seat searches a fixed budget a move,
uncapped here, so the figures do not depend on the machine): give ``--bots`` the levels to
place, and enough games for sigma to shrink.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from domain import bots
from domain import table as tables
from projections.views import ADMIN, SEAT, Caller
from service import ratings
from service.chronicle import Chronicle
from service.commands import verify_export
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore

OPTIONS = {"artus": {"rules": "basic"}, "kings-and-castles": {"length": "short"}}


def play(ch: Chronicle, game: str, lineup: list[str], seed: str) -> dict[str, Any]:
    players = [{"name": f"{bot} bot", "bot": bot} for bot in lineup]
    table = tables.Rules(rated=True).data()
    gid = ch.create(None, game, players, OPTIONS.get(game, {}), seed, table=table)["id"]
    while True:
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            break
        seat, version = to_act[0], cur.match.version
        action = bots.decide(cur.game, cur.match, seat, bots.bot_rng(cur.seed, version + 1, seat))
        ch.act(gid, Caller(SEAT, seat), action, version, by_bot=True)
    assert ch.finish(gid, ch.current(gid).match.version)
    return ch.export(gid, Caller(ADMIN))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--game", default="artus")
    parser.add_argument("--bots", default="random,greedy,mcts:easy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = args.bots.split(",")
    rng = random.Random(args.seed)
    ch = Chronicle(MemoryEventStore(), NoJobs(), admin_token="admin")
    started = time.monotonic()
    entries = []
    for i in range(args.games):
        lineup = rng.sample(names, min(len(names), rng.choice((2, 3))))
        doc = play(ch, args.game, lineup, f"ladder-{args.seed}-{i}")
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"{doc['id']}.json").write_text(json.dumps(doc))
        _, records, _ = verify_export(doc)
        entry = ratings.rated_game(doc["id"], records)
        assert entry is not None
        entries.append(entry)
    table = ratings.fold(entries)[args.game]
    for n in range(3):
        shuffled = list(entries)
        random.Random(n).shuffle(shuffled)
        assert ratings.fold(shuffled)[args.game] == table, "the fold depends on the order"
    took = time.monotonic() - started
    print(f"{args.game}: {args.games} games among {', '.join(names)} ({took:.0f} s)")
    print("the same table from 3 shuffled orders of the exports: yes")
    print()
    print("| Bot | Rater | Ordinal | mu | sigma | Games |")
    print("|---|---|---:|---:|---:|---:|")
    for rater, s in ratings.ordered(table):
        name = ratings.bot_name(rater)
        print(f"| {name} | `{rater}` | {s.ordinal:.1f} | {s.mu:.1f} | {s.sigma:.2f} | {s.games} |")


if __name__ == "__main__":
    main()
