"""``python -m bench.event_dict [--write]``: build the deflate dictionary of stored events.

The store compresses each event (type, seat, actor, data, command as compact JSON) with raw
deflate primed by a preset dictionary: a few hundred bytes of JSON then shrink to a few dozen,
because the keys, event types and card names of a game are all in the dictionary already.

The dictionary is made of encoded events of random games of every registered game (fixed
seeds, every variant), a third of the window per game.  A stored log depends on the exact
bytes of the dictionary it was written with, so ``service/event_dict_1.json`` must never
change (``service.store`` checks its SHA-256).  For a better one (new games, changed events),
write ``event_dict_2.json`` and raise ``DICT_ID`` in ``service/store.py``: entries carry the
id of their dictionary, and the old one stays to read them.

Without ``--write`` it prints the compression the candidate would give on other games.
"""

from __future__ import annotations

import argparse
import json
import random
import zlib
from pathlib import Path

from bench.replay import records
from bench.scripts import all_games, scripts
from service.redis_store import body_json

WINDOW = 32 * 1024 - 512  # raw deflate sees the last 32 KiB of the dictionary
ROOT = Path(__file__).resolve().parent.parent


def samples(tag: str, per_game: int) -> dict[str, list[bytes]]:
    return {
        g.id: [body_json(r) for s in scripts(g, per_game, tag) for r in records(s.steps)]
        for g in all_games()
    }


def build(train: dict[str, list[bytes]], size: int = WINDOW) -> list[str]:
    """Distinct encoded events, shuffled with a fixed seed, ``size // games`` bytes per game."""
    rnd = random.Random(1)
    per, out = size // len(train), []
    for game in sorted(train):
        pool = sorted(set(train[game]))
        rnd.shuffle(pool)
        taken = 0
        for x in pool:
            if taken + len(x) <= per:
                out.append(x.decode())
                taken += len(x)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.event_dict", description=__doc__)
    parser.add_argument("--write", type=Path, help="write the dictionary file (JSON)")
    args = parser.parse_args()
    parts = build(samples("dict", 12))
    zdict = "".join(parts).encode()
    held_out = samples("dict-check", 6)
    for game, xs in held_out.items():
        packed = []
        for x in xs:
            c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, zdict)
            packed.append(len(c.compress(x) + c.flush()))
        raw = sum(map(len, xs)) / len(xs)
        print(f"{game}: {raw:.0f} B of JSON -> {sum(packed) / len(packed):.1f} B per event")
    if args.write:
        doc = {"about": "deflate dictionary of stored events; never edit (bench/event_dict.py)"}
        args.write.write_text(json.dumps({**doc, "parts": parts}, ensure_ascii=False, indent=0))
        print(f"wrote {args.write}: {len(zdict)} bytes")


if __name__ == "__main__":
    main()
