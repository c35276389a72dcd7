"""Row 5: Redis memory per event (``MEMORY USAGE`` of a finished game's stream / its events) and
per finished game (all its keys), beside the size of the same records as compact JSON (what an
export carries for them: type, seat, time, actor, command, data, hash)."""

from __future__ import annotations

import json

import redis

from bench.report import Row, ratio_row
from bench.scripts import all_games, scripts
from bench.servers import Servers
from projections.records import Recorded, full
from projections.views import SEAT, Caller
from service.redis_store import keys

BUDGET = 200  # bytes per event


def usage(r: redis.Redis, gid: str) -> dict[str, int]:
    """Bytes of each key of the game (``log``, ``meta``, ``snap``, ...)."""
    out = {}
    for name, key in keys(gid).items():
        if name != "idem":
            out[name] = r.memory_usage(key, samples=0) or 0
    return out


def json_bytes(rec: Recorded) -> int:
    return len(json.dumps(full(rec), separators=(",", ":"), ensure_ascii=False).encode())


def rows(env: Servers, games: int) -> list[Row]:
    ch, r = env.chronicle, env.r
    out = []
    for game in all_games():
        events = payload = 0
        parts: dict[str, int] = {}
        pool = scripts(game, games, "memory")
        for script in pool:
            gid, _ = script.create(ch)
            for seat, version, action in script.moves:
                ch.act(gid, Caller(SEAT, seat), action, version)
            ch.finish(gid, ch.current(gid).match.version)
            recs = ch.store.read(gid, 0, 1_000_000)
            events += len(recs)
            payload += sum(json_bytes(rec) for rec in recs)
            for name, size in usage(r, gid).items():
                parts[name] = parts.get(name, 0) + size
        per_event = parts["log"] / events
        total = sum(parts.values())
        split = ", ".join(f"{k} {v / len(pool):,.0f}" for k, v in parts.items() if v)
        out.append(
            Row(f"Redis bytes/event [{game.id}]", per_event, "B", "the records as JSON (bytes)",
                payload / events, f"<= {BUDGET} B", per_event <= BUDGET,
                f"{events:,} events of {len(pool)} finished games; MEMORY USAGE SAMPLES 0")
        )  # fmt: skip
        out.append(
            ratio_row(f"Redis bytes/finished game [{game.id}]", total / len(pool), "B",
                      "the records as JSON (bytes)", payload / len(pool), "-", 0,
                      f"{events / len(pool):.0f} events per game; bytes by key: {split}")
        )  # fmt: skip
    return out
