"""The ``mcts`` bots of Kings and Castles: information-set MCTS (``domain.search.ismcts``) on
worlds dealt by ``sampler``.

The search looks no further than the end of the current square's turn: from square 1 on, the
King makes every decision of a turn, and listing the attacks of the next King's turn (the
costly part of the rules) in every sampled world would spend the budget on positions the bot
cannot steer.  A position is scored by each seat's money plus what its towns will still earn:
every tax marker left in play pays each colour its town values when a King spends it (most
are spent), and the final taxation pays them twice (KC-3, KC-8).  Before the end, a colour's
turns still to come as King (its crowns on squares not yet played: more bonus counters, more
attacks) and the points of its army count a little too, so that forming armies and placing
crowns, where no town has changed hands yet, are not blind.
"""

from __future__ import annotations

from domain.games.kings_and_castles import rules, sampler
from domain.games.kings_and_castles.data import COUNTERS, TRACK
from domain.games.kings_and_castles.state import State, town_values
from domain.search.ismcts import Adapter, Budget, bots

TAXES_SPENT = 0.7  # the share of tax markers left that a King is expected to spend
KING_TURN = 3.0  # what a turn as King is worth besides its bonus counters
ARMY_POINT = 0.3  # what a point of attack in the army is worth


def evaluate(state: State) -> list[float]:
    if rules.is_over(state):
        out = [0.0] * state.players
        for c in state.colours:
            out[state.owners[c]] += state.money[c]
        return out
    towns = town_values(state)
    future = 2 + TAXES_SPENT * sum(state.tax_markers.values())
    out = [0.0] * state.players
    for c in state.colours:
        out[state.owners[c]] += state.money[c] + towns[c] * future
        out[state.owners[c]] += ARMY_POINT * sum(COUNTERS[x].value for x in state.armies[c])
    for square, c in state.crowns.items():
        if square > state.square or (square == state.square and square not in state.turned):
            out[state.owners[c]] += KING_TURN + TRACK[square].bonus
    return out


def public_key(state: State) -> tuple[object, ...]:
    """Everything the legal actions depend on (not money: KC-8 taxes need only markers)."""
    return (
        state.phase,
        state.step,
        state.square,
        tuple(state.crowns.items()),
        tuple(state.territories.values()),
        frozenset(state.castles.items()),
        tuple(state.armies.values()),
        tuple(state.households.values()),
        len(state.bag),
        len(state.destroyed),
        tuple(state.tax_markers.values()),
        state.countries_attacked,
        state.other_country,
    )


ADAPTER = Adapter(
    rules=rules,
    seat=lambda view: view["you"],
    sample=sampler.sample,
    evaluate=evaluate,
    scale=30.0,
    public_key=public_key,
    horizon=lambda world, state: state.square != world.square,
)
BUDGETS = {
    "easy": Budget(iterations=60, depth=4),
    "normal": Budget(iterations=120, depth=4),
    "hard": Budget(iterations=800, depth=8),
}
BOTS = bots(ADAPTER, BUDGETS)
