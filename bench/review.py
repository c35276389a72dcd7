"""``python -m bench.review [--quick]``: the time a review of a whole game takes (issue 42).

A review judges every decision of one seat with the ``mcts`` search at the default level
(``CHRONICLE_REVIEW_ITERATIONS`` unset: each game's ``mcts:hard`` budget), as the worker's
jobs do, on one core.  The games are random finished games of each kind at its default options
(``bench.scripts``), with the fewest and the most players; seat 0 is reviewed.  The target is
a few minutes for a whole game on this machine (``TARGET_SECONDS``); the figure goes into
docs/benchmarks.md.  ``--quick``: the fewest players only.
"""

from __future__ import annotations

import argparse
import time

from bench.replay import records
from bench.report import Row, table
from bench.scripts import all_games, script
from domain.engine import Game
from service import review

TARGET_SECONDS = 180.0  # "a few minutes" for a whole game
QUICK_ITERATIONS = 200  # ``python -m bench --quick``: a smoke run, below the default level


def default_options(game: Game) -> dict[str, str]:
    return {name: values[0] for name, values in game.options.items()}


def review_row(game: Game, players: int, iterations: int | None = None, seat: int = 0) -> Row:
    """The wall time of the review of ``seat`` of one random finished game."""
    played = script(game, default_options(game), players, f"review-{game.id}-{players}")
    recs = records(played.steps)
    start = time.perf_counter()
    found = list(review.decisions(game, recs, seat))
    for d in found:
        review.judged(game, played.seed, seat, d, iterations)
    took = time.perf_counter() - start
    search = review.adapter_budget(game, iterations)
    assert search is not None
    each = took / max(1, len(found))
    return Row(
        f"review of a whole game: {game.id}, {players} players ({len(found)} decisions)",
        took,
        "s",
        "target",
        TARGET_SECONDS,
        f"<= {TARGET_SECONDS:.0f} s",
        took <= TARGET_SECONDS,
        note=f"{search[1].iterations} iterations a decision, {each:.2f} s each",
    )


def rows(quick: bool = False, iterations: int | None = None) -> list[Row]:
    """Each game's review with the fewest players (``quick``) or the fewest and the most;
    ``iterations`` a decision instead of the default level's (``python -m bench --quick``)."""
    out = []
    for game in all_games():
        counts = [game.min_players] if quick else [game.min_players, game.max_players]
        out += [review_row(game, n, iterations) for n in counts]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.review", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the fewest players only")
    args = parser.parse_args(argv)
    found = rows(args.quick)
    print(table(found))
    return 0 if all(r.met is not False for r in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
