"""The ``mcts`` bots of Kings and Castles: information-set MCTS (``domain.search.ismcts``) on
worlds dealt by ``sampler``.

The search looks one decision ahead: it scores each of the seat's legal actions in every
sampled world (a draw's outcome differs from world to world, an attack's does not) and
rewards what the seat gains by it over what the others gain (``Adapter.relative``).  Issue 14
measured deeper searches (to the end of the turn, with or without random playouts) against
``greedy``: averaging the random follow-ups of a turn's later attacks into its first one only
blurred the evaluation, and the rank-and-margin reward saturates where margins are hundreds.
A position is scored by each seat's money plus what its towns will still earn:
every tax marker left in play pays each colour its town values when a King spends it (most
are spent), and the final taxation pays them twice (KC-3, KC-8).  Before the end, a colour's
turns still to come as King (its crowns on squares not yet played: more bonus counters, more
attacks), its army and its castles count a little too, so that forming armies, placing crowns
and castles, where no town changes hands, are not blind.

The army counts only what can win towns for its owner: units of the owner's colours and
mercenaries at their points, castles and enemy units at a share (a unit of another player's
colour takes territories for that colour).  A castle on the map counts for the holder of its
territory, more on a richer town.  Issue 14 measured why: with every army counter at its
points and a castle worth nothing once placed, the bot drew from the bag rather than its
household and never built castles, and lost to ``greedy`` most games; this one, one decision
deep, wins most of them (the figures: ``docs/benchmarks``, "Bots that search").
"""

from __future__ import annotations

from domain.games.kings_and_castles import rules, sampler
from domain.games.kings_and_castles.data import COUNTERS, ENEMY, TERRITORIES, TRACK
from domain.games.kings_and_castles.state import State, colour_of, town_values
from domain.search.ismcts import Adapter, Budget, bots

TAXES_SPENT = 0.7  # the share of tax markers left that a King is expected to spend
KING_TURN = 3.0  # what a turn as King is worth besides its bonus counters
ARMY_POINT = 0.3  # what a point of attack in the army is worth
CASTLE_IN_ARMY = 0.3  # a castle's points in the army, as a share of a unit's
ENEMY_IN_ARMY = 0.5  # an enemy unit's points in the army (it takes towns from the others)
CASTLE_ON_MAP = 0.5  # per castle point and (1 + town value) of the territory it defends


def army_value(state: State, colour: str) -> float:
    """The points of the army of ``colour`` that can win towns for its owner."""
    owner = state.owners[colour]
    total = 0.0
    for cid in state.armies[colour]:
        c = COUNTERS[cid]
        if c.kind == "mercenary" or (c.is_unit and state.owners.get(c.colour) == owner):
            total += c.value
        elif c.kind == "castle":
            total += CASTLE_IN_ARMY * c.value
        elif c.colour == ENEMY:
            total += ENEMY_IN_ARMY * c.value
    return total


def evaluate(state: State) -> list[float]:
    out = [0.0] * state.players
    if rules.is_over(state):
        for c in state.colours:
            out[state.owners[c]] += state.money[c]
        return out
    towns = town_values(state)
    future = 2 + TAXES_SPENT * sum(state.tax_markers.values())
    for c in state.colours:
        out[state.owners[c]] += state.money[c] + towns[c] * future
        out[state.owners[c]] += ARMY_POINT * army_value(state, c)
    for territory, castle in state.castles.items():
        holder = colour_of(state.territories[territory])
        if holder in state.owners:
            defended = COUNTERS[castle].value * (1 + TERRITORIES[territory].town_value)
            out[state.owners[holder]] += CASTLE_ON_MAP * defended
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
    scale=20.0,  # a gain of about two towns' worth over the other seat counts as decisive
    public_key=public_key,
    horizon=lambda world, state: state is not world,  # one decision ahead
    relative=True,
)
BUDGETS = {
    "easy": Budget(iterations=60, depth=4),
    "normal": Budget(iterations=120, depth=4),
    "hard": Budget(iterations=800, depth=8),
}
BOTS = bots(ADAPTER, BUDGETS)
