"""``chronicle ratings EXPORTS...``: the ratings folded from exported games, offline.

Each file is an export (``GET /api/v1/games/{id}/export``), checked as ``chronicle replay``
checks it (every batch decided again through the rules, the hash chain, the head) before it
counts: a ladder anyone can recompute is one nobody can pad with a made-up log.  The games are
folded as the service folds them (``service.ratings``: finishing time then id, OpenSkill
Plackett-Luce with default parameters), so the numbers are the service's
(``GET /api/v1/ratings/{game}``).  ``--all`` also counts the finished games created without
``rated`` (the bots' ladder: games among bots cannot be created rated).  Exit 1 when a file is
refused, 2 when one is not an export at all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chronicle.replay import NotVerified, verified
from service import ratings


def run(paths: Sequence[Path], everything: bool = False, as_json: bool = False) -> int:
    entries: list[ratings.Rated] = []
    skipped = 0
    for path in paths:
        try:
            doc, _, records, _ = verified(path)
        except NotVerified as exc:
            where = "" if exc.status == 2 else f"{path} refused: "  # the message names a bad file
            print(f"chronicle ratings: {where}{exc.message}", file=sys.stderr)
            return exc.status
        entry = ratings.rated_game(str(doc.get("id", path.stem)), records, everything)
        if entry is None:
            skipped += 1
        else:
            entries.append(entry)
    tables = ratings.fold(entries)
    if as_json:
        print(json.dumps({game: rows(table) for game, table in sorted(tables.items())}, indent=2))
        return 0
    for game, table in sorted(tables.items()):
        print(f"{game}: {sum(1 for e in entries if e.game == game)} games")
        print(f"  {'#':>3}  {'player':<28} {'ordinal':>8} {'mu':>8} {'sigma':>7} {'games':>6}")
        for i, row in enumerate(rows(table), 1):
            mark = "  provisional" if row["provisional"] else ""
            print(
                f"  {i:>3}  {row['player']:<28} {row['ordinal']:>8.3f} {row['mu']:>8.3f} "
                f"{row['sigma']:>7.3f} {row['games']:>6}{mark}"
            )
    if skipped:
        print(f"({skipped} not rated: not created rated, abandoned, unfinished or a guest seat)")
    return 0


def rows(table: dict[str, ratings.Standing]) -> list[dict[str, Any]]:
    """The leaderboard's rows as the API gives them, without the names (an export names an
    account by its public id only)."""
    return [{"player": rater, **standing.doc()} for rater, standing in ratings.ordered(table)]
