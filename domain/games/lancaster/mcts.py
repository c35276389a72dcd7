"""The ``mcts`` bots of Lancaster: information-set MCTS (``domain.search.ismcts``) on worlds dealt
by ``sampler``.  A playout stops after ``depth`` steps and is scored as if the game ended there
(LA-3: power so far plus the knight-strength, extension and noble awards as they stand)."""

from __future__ import annotations

from domain.games.lancaster import rules, sampler, scoring
from domain.games.lancaster.state import State
from domain.search.ismcts import Adapter, Budget, bots


def evaluate(state: State) -> list[float]:
    return [float(t) for t in scoring.totals(state)]


ADAPTER = Adapter(
    rules=rules,
    seat=lambda view: view["you"],
    sample=sampler.sample,
    evaluate=evaluate,
    scale=15.0,
    play=rules.play,
)
BUDGETS = {
    "easy": Budget(iterations=80, depth=8),
    "normal": Budget(iterations=300, depth=12),
    "hard": Budget(iterations=1000, depth=20),
}
BOTS = bots(ADAPTER, BUDGETS)
