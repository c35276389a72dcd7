"""Row 5: Redis memory per event (``MEMORY USAGE`` of a finished game's stream / its events) and
per finished game (all its keys), beside the bytes the fields of its records carry."""

from __future__ import annotations

import redis

from bench.report import Row, ratio_row
from bench.scripts import all_games, scripts
from bench.servers import Servers
from projections.views import SEAT, Caller
from service.store import encode_record, keys

BUDGET = 200  # bytes per event


def usage(r: redis.Redis, gid: str) -> tuple[int, int]:
    """(bytes of the stream, bytes of every key of the game)."""
    stream = r.memory_usage(keys(gid)["log"], samples=0)
    total = sum(r.memory_usage(k, samples=0) or 0 for k in r.scan_iter(match=f"{{g:{gid}}}:*"))
    return stream, total


def rows(env: Servers, games: int) -> list[Row]:
    ch, r = env.chronicle, env.r
    out = []
    for game in all_games():
        stream = total = events = payload = 0
        pool = scripts(game, games, "memory")
        for script in pool:
            gid, _ = script.create(ch)
            for seat, version, action in script.moves:
                ch.act(gid, Caller(SEAT, seat), action, version)
            ch.finish(gid, ch.current(gid).match.version)
            recs = ch.store.read(gid, 0, 1_000_000)
            events += len(recs)
            payload += sum(len(x.encode()) for rec in recs for x in encode_record(rec))
            s, t = usage(r, gid)
            stream, total = stream + s, total + t
        per_event = stream / events
        out.append(
            Row(f"Redis bytes/event [{game.id}]", per_event, "B", "record fields (bytes)",
                payload / events, f"<= {BUDGET} B", per_event <= BUDGET,
                f"{events:,} events of {len(pool)} finished games; MEMORY USAGE SAMPLES 0")
        )  # fmt: skip
        out.append(
            ratio_row(f"Redis bytes/finished game [{game.id}]", total / len(pool), "B",
                      "record fields (bytes)", payload / len(pool), "-", 0,
                      f"{events / len(pool):.0f} events per game; log, meta, snapshot")
        )  # fmt: skip
    return out
