"""``chronicle replay FILE``: check an exported log through the rules, offline.

The check is the import validation (``service.commands.verify_export``): every batch's command is
decided again with the revealed seed and must give back the recorded events, the hash chain
must link them and the head hash must match.  The output is a short summary and, last, a
one-line verdict (``verdict: OK ...`` on stdout, exit 0; ``verdict: REFUSED ...`` on stderr,
exit 1; exit 2 for a file that is not an export at all).  ``--verbose`` also prints the final
state, as JSON, before the verdict.

On a clocked table it also re-derives every ``TurnTimedOut`` from the log's own times
(``projections.clock_audit``): a timeout before its deadline is refused (the rules decide it
again at its recorded time), and a deadline that passed with no timeout is said, with how late
the batch after it came (the service checks a deadline a moment after it passes, so a move in
that moment is taken: said, not refused).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from domain.errors import Refused
from projections.clock_audit import audit
from projections.records import iso
from service.commands import verify_export


class NotVerified(Exception):
    """An export file that is not one (``status`` 2) or that its replay refuses (1)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def verified(path: Path) -> tuple[dict[str, Any], Any, list[Any], Any]:
    """An export file read and checked through the rules: (its document, the game, the records,
    the match).  Also ``chronicle ratings``' reader of its files."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NotVerified(2, f"{path} is not a readable JSON export ({exc})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        raise NotVerified(2, f"{path} is not an export (no events)")
    try:
        game, records, match = verify_export(doc)
    except (Refused, KeyError, TypeError) as exc:
        message = exc.message if isinstance(exc, Refused) else f"malformed export ({exc})"
        raise NotVerified(1, message) from exc
    return doc, game, records, match


def run(path: Path, verbose: bool = False) -> int:
    try:
        doc, game, records, match = verified(path)
    except NotVerified as exc:
        print(f"verdict: REFUSED: {exc.message}", file=sys.stderr)
        return exc.status
    status = match.status(game)
    players = ", ".join(
        f"{p.name or 'open'} ({p.bot})" if p.bot else (p.name or "open")
        for p in match.config.players
    )
    options = ", ".join(f"{k}={v}" for k, v in sorted(match.config.options.items()))
    print(f"game:    {game.id} {doc.get('id', '')} ({options})")
    print(f"players: {players}")
    print(f"log:     {len(records)} events, version {match.version}, head {records[-1].hash}")
    print(f"status:  {status}")
    if match.result is not None:
        print(f"result:  {_result(match.result)}")
    if match.table is not None and match.table.rules.clocked:
        refused = _clock(game, records)
        if refused is not None:
            print(f"verdict: REFUSED: {refused}", file=sys.stderr)
            return 1
    if verbose:
        print(json.dumps({"state": game.full_view(match.state)}, indent=2))
    print(
        f"verdict: OK: {len(records)} events replay through the rules of {game.id}, "
        f"chain intact, {status}"
    )
    return 0


def _clock(game: Any, records: list[Any]) -> str | None:
    """Print what the log's times say of its timeouts; why the log is refused, if it is."""
    found = audit(game, records)
    if found.early:
        t = found.early[0]
        return f"version {t.version}: seat {t.seat} timed out before its deadline {iso(t.deadline)}"
    latest = max((t.late for t in found.timeouts), default=0)
    print(
        f"clock:   {len(found.timeouts)} timeouts re-derived from the log's times, each at or "
        f"after its deadline (at most {latest / 1000:.3f} s after)"
    )
    for m in found.missed:
        print(
            f"clock:   missing timeout: seat {m.seat}'s deadline {iso(m.deadline)} had passed "
            f"at version {m.version} ({m.late / 1000:.3f} s late, no TurnTimedOut before it)"
        )
    return None


def _result(result: Mapping[str, Any]) -> str:
    scores = ", ".join(f"seat {s}: {v}" for s, v in result.get("scores", {}).items())
    return f"scores {scores}; winners {result.get('winners')}"
