"""Row 3: loading the current state with the in-process cache cleared (one Lua read of meta,
snapshot and tail, then decode and fold), for short and long logs.  Long logs come from the
synthetic counter game; each registered game is also loaded early and once finished.  The games
compared are loaded in turn, round after round, so that machine noise hits them alike."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench import counter
from bench.report import Row, median, ratio_row
from bench.scripts import Script, all_games, scripts
from bench.servers import Servers
from domain.engine import Game
from projections.fold import SNAPSHOT_EVERY
from projections.views import SEAT, Caller
from service.chronicle import Chronicle

SHORT = 20
LONG = (200, 2000, 2000 + SNAPSHOT_EVERY - 1)


def load_ms(ch: Chronicle, gids: Sequence[str], rounds: int) -> list[float]:
    """The median load time of each game, loading them in turn ``rounds`` times."""
    samples: list[list[float]] = [[] for _ in gids]
    for _ in range(rounds):
        for i, gid in enumerate(gids):
            ch.loader.forget_all()
            start = time.perf_counter()
            ch.current(gid)
            samples[i].append((time.perf_counter() - start) * 1000)
    return [median(s) for s in samples]


def play_to(ch: Chronicle, game: Game, gid: str, version: int) -> None:
    """Act (first legal action) until the log holds ``version`` events."""
    while (cur := ch.current(gid)).match.version < version:
        seat = cur.match.to_act(game)[0]
        action = game.legal_actions(cur.match.state, seat)[0]
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)


def counter_rows(ch: Chronicle, rounds: int) -> list[Row]:
    with counter.registered() as game:
        gids = []
        for length in (SHORT, *LONG):
            gid = ch.create(None, game.id, [{"name": "A"}, {"name": "B"}], None, None)["id"]
            play_to(ch, game, gid, length)
            gids.append(gid)
        short, *long = load_ms(ch, gids, rounds)
    rows = []
    for length, took in zip(LONG, long, strict=True):
        tail = length % SNAPSHOT_EVERY
        note = f"snapshot at {length - tail} + {tail} events (the longest tail)" if tail else ""
        rows.append(
            ratio_row(f"load @{length:,} events [counter]", took, "ms", f"load @{SHORT} events",
                      short, "<=", 2, note)
        )  # fmt: skip
    return rows


def play(ch: Chronicle, script: Script, upto: int | None) -> tuple[str, int]:
    """The script's game created and played (to the version ``upto``, else to the end and
    scored); its id and version."""
    gid, _ = script.create(ch)
    for seat, version, action in script.moves:
        if upto is not None and version >= upto:
            return gid, version
        ch.act(gid, Caller(SEAT, seat), action, version)
    ch.finish(gid, ch.current(gid).match.version)  # or the worker's scoring job did
    return gid, ch.current(gid).match.version


def game_rows(ch: Chronicle, rounds: int) -> list[Row]:
    rows = []
    for game in all_games():
        script = max(scripts(game, 4, "load"), key=lambda s: s.events)
        (early, v_early), (done, v_done) = play(ch, script, SHORT), play(ch, script, None)
        short, finished = load_ms(ch, [early, done], rounds)
        tail = v_done % SNAPSHOT_EVERY
        rows.append(
            ratio_row(f"load finished game @{v_done} events [{game.id}]", finished, "ms",
                      f"load @{v_early} events", short, "<=", 2,
                      f"snapshot at {v_done - tail} + {tail} events")
        )  # fmt: skip
    return rows


def rows(env: Servers, rounds: int) -> list[Row]:
    return counter_rows(env.chronicle, rounds) + game_rows(env.chronicle, rounds)
