"""The ``mcts`` bots of Lancaster: information-set MCTS (``domain.search.ismcts``) on worlds dealt
by ``sampler``.  A playout stops after ``depth`` steps and is scored there.

With two players the score is the game's end scoring as it stands (LA-3: power so far plus the
knight-strength, extension and noble awards), ``totals``.  With three to five players a playout
of 12 steps is about two placements of each seat, so it stops in the middle of the placement:
nothing placed has paid yet (counties, castles and conflicts pay in the rewards phase, LA-2.7 to
LA-2.9), and by the end scoring every placement looked alike.  Issue 14 measured it: ``mcts``
ranked worse than ``greedy`` against four ``greedy`` players, and hardly better with rewards
relative to the root (``Adapter.relative``) but the same score.  So from three players
on the score is ``outlook``: the end scoring as it stands, plus what the board already promises
(each county's reward or noble to its occupant, the castle spaces' rewards, each conflict's
power to its stacks as they rank now) and the goods, at ``greedy``'s exchange rate
(``bots.reward_value``); rewards are each seat's gain over the best other seat's, and a
playout is a third as long (random moves only blur an evaluation that already sees what a
placement promises).  Screened in five-player games against ``greedy``, the shorter playouts
ranked best, ahead of the longer ones and of none (the figures: ``docs/benchmarks``).  The
two-player bot is unchanged (its figures were measured with it; the decisions digest of
``bench.mcts_speed`` at two players is the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.games.lancaster import rules, sampler, scoring
from domain.games.lancaster.bots import EXTENSION, VALUE, conflict_value, noble_value, reward_value
from domain.games.lancaster.data import (
    COLOURS,
    COUNTIES,
    LETTERS,
    ROUNDS,
    SPACE_IDS,
    SPACES,
    colour_of,
    knights_of,
    strength,
)
from domain.games.lancaster.events import (
    CASTLE_PHASE,
    CONFLICTS_PHASE,
    COUNTIES_PHASE,
    LAWS_PHASE,
    PLACEMENT_PHASE,
    START_PHASE,
    VOTE_PHASE,
)
from domain.games.lancaster.state import (
    State,
    conflicts,
    is_ally,
    order,
    seat_of,
    sides,
    weakest_reserve,
)
from domain.search.ismcts import Adapter, Budget, bots

BEFORE_COUNTIES = (START_PHASE, PLACEMENT_PHASE, VOTE_PHASE, LAWS_PHASE)
BEFORE_CASTLE = (*BEFORE_COUNTIES, COUNTIES_PHASE)
BEFORE_CONFLICTS = (*BEFORE_CASTLE, CASTLE_PHASE)
CONTESTED = 0.8  # a county's or a conflict's promise while others may still place against it
LAST_ROUND_GOODS = 0.3  # goods in the last round: only ransoms, purchases and "both" use them
KNIGHT_POINT = 2.0  # a point of knight strength owned, for a whole game still to come


@dataclass(frozen=True)
class _Promise:
    """A reward of the board (a county's, a castle space's), valued once: its goods and power
    (``reward_value`` without the parts below) before and in the last round, and whether it
    brings a knight, an upgrade or an extension."""

    early: float
    late: float
    knight: bool
    upgrade: bool
    extension: bool

    @classmethod
    def of(cls, reward: Mapping[str, int]) -> _Promise:
        plain = {k: x for k, x in reward.items() if k not in ("new_knight", "upgrade", "extension")}
        return cls(
            reward_value(plain, False),
            reward_value(plain, True),
            bool(reward.get("new_knight")),
            bool(reward.get("upgrade")),
            bool(reward.get("extension")),
        )


COUNTY_PROMISE = {letter: _Promise.of(c["reward"]) for letter, c in COUNTIES.items()}
SPACE_PROMISE = {sp: _Promise.of(reward) for sp, reward in SPACES.items()}
BUILT_PAYS = {sp: reward_value(reward, False) for sp, reward in SPACES.items()}  # each round
KNIGHTS_STRENGTH = {c: sum(strength(k) for k in knights_of(c)) for c in COLOURS}


def _future(state: State) -> float:
    """The share of the game still to come after this round (0 in the last round)."""
    return (ROUNDS - state.round) / ROUNDS


def _gain(state: State, seat: int, promise: _Promise, last: bool) -> float:
    """A reward promised to ``seat``, valued as ``outlook`` values it once it is taken (so
    that taking it changes the outlook by little): goods and power as ``reward_value``, a
    knight or an upgrade by the strength it adds for the rounds still to come."""
    v = promise.late if last else promise.early
    if promise.knight:
        new = weakest_reserve(state, state.players[seat].colour)
        v += KNIGHT_POINT * _future(state) * (strength(new[0]) if new else 0)
    if promise.upgrade:
        v += KNIGHT_POINT * _future(state)
    if promise.extension and not last:
        v += EXTENSION
    return v


def _assets(state: State, seat: int, reserved: Mapping[str, int]) -> float:
    """Knights owned (not in the reserve: ``reserved`` is its strength by colour) and built
    extensions (summed in the castle's order: a set's order differs between processes), for
    the rounds to come."""
    p = state.players[seat]
    owned = sum(KNIGHTS_STRENGTH[c] - reserved.get(c, 0) for c in sides(state, seat))
    built = sum(BUILT_PAYS[sp] for sp in SPACE_IDS if sp in p.built)
    return _future(state) * (KNIGHT_POINT * owned + ROUNDS * built)


def evaluate(state: State) -> list[float]:
    return [float(t) for t in scoring.totals(state)]


def outlook(state: State) -> list[float]:
    """Per seat: the end scoring as it stands plus what the board and the goods promise."""
    out = evaluate(state)
    if rules.is_over(state):
        return out
    last = state.round >= ROUNDS
    phase = state.phase
    placing = CONTESTED if phase in (START_PHASE, PLACEMENT_PHASE) else 1.0
    goods = LAST_ROUND_GOODS if last else 1.0
    reserved: dict[str, int] = {}
    for k in state.reserve:
        c = colour_of(k)
        reserved[c] = reserved.get(c, 0) + strength(k)
    for s, p in enumerate(state.players):
        out[s] += goods * (VALUE["gold"] * p.gold + VALUE["squires"] * p.squires)
        if not last:
            out[s] += VALUE["markers"] * p.markers
        out[s] += _assets(state, s, reserved)
    if phase in BEFORE_CASTLE:
        first = 0 if phase in BEFORE_COUNTIES else state.county_pos
        for letter in LETTERS[first:]:
            occ = state.counties.get(letter)
            if occ is None or is_ally(state, colour_of(occ.knight)):
                continue
            s = seat_of(state, colour_of(occ.knight))
            p = state.players[s]
            v = _gain(state, s, COUNTY_PROMISE[letter], last)
            if letter not in p.nobles and state.noble_stock.get(letter, 0) > 0:
                v = max(v, noble_value(len(p.nobles), last))
            out[s] += placing * v
    if phase in BEFORE_CONFLICTS:
        ahead = order(state) if phase != CASTLE_PHASE else order(state)[state.castle_pos :]
        for s in ahead:
            p = state.players[s]
            used = {sp for k, sp in state.castle.items() if colour_of(k) == p.colour} | p.built
            if phase == CASTLE_PHASE and s == ahead[0]:
                used -= state.castle_taken
            promised = [SPACE_PROMISE[sp] for sp in SPACE_IDS if sp in used]
            out[s] += sum(_gain(state, s, promise, last) for promise in promised)
    pending = set(state.conflict_queue) if phase == CONFLICTS_PHASE else None
    for _, card in conflicts(state):
        if pending is not None and card.n not in pending:
            continue
        strengths = [sum(strength(k) for k in stack) for stack in card.spaces]
        for i, stack in enumerate(card.spaces):
            colour = colour_of(stack[0])
            if not is_ally(state, colour):
                out[seat_of(state, colour)] += placing * conflict_value(card.n, strengths, i)
    return out


def _multi(view: Mapping[str, Any]) -> bool:
    return len(view["players"]) > 2


ADAPTER = Adapter(
    rules=rules,
    seat=lambda view: view["you"],
    sample=sampler.sample,
    evaluate=lambda state: outlook(state) if state.n > 2 else evaluate(state),
    scale=15.0,
    play=rules.play,
    relative=_multi,
    depth=lambda view, depth: depth // 3 if _multi(view) else depth,
)
BUDGETS = {
    "easy": Budget(iterations=80, depth=8),
    "normal": Budget(iterations=300, depth=12),
    "hard": Budget(iterations=1000, depth=20),
}
BOTS = bots(ADAPTER, BUDGETS)
