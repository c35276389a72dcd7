"""The ``mcts`` bots of Artus: information-set MCTS (``domain.search.ismcts``) on worlds dealt by
``sampler``.  A playout stops after ``depth`` steps and the board scores so far stand for the
final ones: Artus scores as it goes, so they are the natural estimate."""

from __future__ import annotations

from domain.games.artus import rules, sampler
from domain.search.ismcts import Adapter, Budget, bots

ADAPTER = Adapter(
    rules=rules,
    seat=lambda view: view["seat"],
    sample=sampler.sample,
    evaluate=lambda state: state.board.scores,
    scale=20.0,
)
BUDGETS = {
    "easy": Budget(iterations=100, depth=8),
    "normal": Budget(iterations=600, depth=12),
    "hard": Budget(iterations=2000, depth=16),
}
BOTS = bots(ADAPTER, BUDGETS)
