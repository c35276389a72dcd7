"""Information-set Monte Carlo tree search by determinization (single-observer ISMCTS).

Why this shape: a bot sees only its seat's view, so it cannot search the real state.  Each
iteration asks the game's *sampler* for one world consistent with that view (other hands,
decks, hidden money dealt at random), then walks one shared tree over the actions legal in that
world (Cowling, Powley, Whitehouse 2012, "SO-ISMCTS"): UCB with availability counts picks among
the children legal in this world, opponents' decisions are nodes of the same tree, one new node
is added, a short random playout follows and a per-game evaluation scores where it stopped.
A world fixes the chance too: inside the tree, the random outcomes of the rules (draws) come
from a generator seeded by the world and the depth, so a world's future draws are the same on
every visit, as with a shuffled deck (and positions repeat, which lets a game share listings of
legal actions, see ``Adapter.public_key``).
At the root only the seat's real legal actions are searched.

Pure and deterministic: the search plays the rules in memory (``decide`` then ``evolve`` on
frozen states; no JSON, no engine round trip) and draws every random number from one
``FastRng`` seeded from the game's ``Rng`` at the log position, so the same view and ``Rng``
give the same move.  There is no clock here: the caller bounds the work with an iteration
budget and may pass ``stop``, a callable polled every few iterations (the worker's deadline);
a search cut short by ``stop`` still returns the best move found so far.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.rng import Rng

_MASK = (1 << 64) - 1


class FastRng:
    """xorshift64*: the same interface as ``Rng`` (``below``, ``choice``, ``shuffled``), cheap
    enough for playouts.  Never used for an outcome that is recorded: it only drives the
    search's own imaginary worlds."""

    __slots__ = ("_x",)

    def __init__(self, seed: int) -> None:
        self._x = (seed & _MASK) or 0x9E3779B97F4A7C15

    @classmethod
    def from_rng(cls, rng: Rng) -> FastRng:
        return cls(rng.below(1 << 63) + 1)

    def _next(self) -> int:
        x = self._x
        x ^= x >> 12
        x ^= (x << 25) & _MASK
        x ^= x >> 27
        self._x = x
        return (x * 0x2545F4914F6CDD1D) & _MASK

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs n > 0")
        return (self._next() * n) >> 64

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        """``k`` distinct items, uniformly (a partial Fisher-Yates)."""
        pool = list(items)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


class Rules(Protocol):
    """The part of ``domain.engine.Game`` the search plays."""

    def to_act(self, state: Any) -> tuple[int, ...]: ...
    def legal_actions(self, state: Any, seat: int) -> list[dict[str, Any]]: ...
    def decide(self, state: Any, seat: int, action: Mapping[str, Any], rng: Any) -> list[Any]: ...
    def evolve(self, state: Any, event: Any) -> Any: ...
    def is_over(self, state: Any) -> bool: ...


@dataclass(frozen=True)
class Adapter:
    """What a game gives the search besides its rules.

    ``seat(view)``: the seat whose view it is.  ``sample(view, rng)``: a full state consistent
    with the view (the game's sampler).  ``evaluate(state)``: a score per seat, the final
    scores once the game is over and an estimate of them before; ``scale`` is a score margin
    that counts as decisive (it turns margins into rewards).  ``public_key(state)``, if given,
    is a hashable summary of everything the legal actions depend on: positions with the same
    key share one listing of legal actions during a search (for games whose listing is costly
    and does not depend on the hidden information).  ``horizon(world, state)``, if given, says
    that ``state`` (reached from the sampled ``world``) is as far as the search looks: the tree
    and the playout stop there and ``evaluate`` scores it.  ``relative``: rewards score what
    each seat gains from the root (in the same world) over the best other seat's gain, smoothly
    (``gains``), instead of rank and margin: for a game whose horizon is so near that the rank
    there is nearly always the rank at the root and margins far exceed ``scale``; or a
    function of the view that says which (Lancaster: relative from three players on).
    ``depth(view, depth)``, if given, is the playout depth for this view instead of the
    budget's ``depth`` (Lancaster: a third of it from three players on).
    ``play(state, seat, action, rng)``, if given, is the state after ``decide`` then ``evolve``
    of its events, for a game whose ``decide`` already evolves them (it then need not be done
    twice); it must draw from ``rng`` exactly as ``decide`` does.
    """

    rules: Rules
    seat: Callable[[Mapping[str, Any]], int]
    sample: Callable[[Mapping[str, Any], FastRng], Any]
    evaluate: Callable[[Any], Sequence[float]]
    scale: float
    public_key: Callable[[Any], Hashable] | None = None
    horizon: Callable[[Any, Any], bool] | None = None
    relative: bool | Callable[[Mapping[str, Any]], bool] = False
    depth: Callable[[Mapping[str, Any], int], int] | None = None
    play: Callable[[Any, int, Mapping[str, Any], Any], Any] | None = None


@dataclass(frozen=True)
class Budget:
    """``iterations`` per move, ``depth`` playout steps before evaluating, ``worlds``
    determinizations sampled (reused round-robin), ``c`` the UCB exploration constant,
    ``widen``: root moves searched after ``i`` iterations: ``widen * (1 + sqrt(i))``."""

    iterations: int
    depth: int = 20
    worlds: int = 32
    c: float = 0.7
    widen: int = 4


class _Node:
    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


_PLAIN = (str, int, bool, type(None))


def action_key(action: Mapping[str, Any]) -> Any:
    """A hashable spelling of an action (lists and objects frozen).  Field order counts: every
    action the search sees is built by the same ``legal_actions``, so it is the same."""
    return tuple((k, v if type(v) in _PLAIN else _freeze(v)) for k, v in action.items())


def _freeze(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _freeze(x)) for k, x in v.items())
    return v


def rewards(scores: Sequence[float], scale: float) -> list[float]:
    """Per seat in [0, 1]: mostly the rank (share of the others beaten, ties half), plus a
    little of the margin over the best other seat, so that a sure win still prefers more."""
    n = len(scores)
    out = []
    for i, s in enumerate(scores):
        others = [scores[j] for j in range(n) if j != i]
        rank = sum(1.0 if s > o else 0.5 if s == o else 0.0 for o in others) / len(others)
        margin = max(-1.0, min(1.0, (s - max(others)) / scale))
        out.append(0.8 * rank + 0.1 * (margin + 1.0))
    return out


def gains(scores: Sequence[float], base: Sequence[float], scale: float) -> list[float]:
    """Per seat in (0, 1): its gain over ``base`` against the best other seat's gain."""
    g = [s - b for s, b in zip(scores, base, strict=True)]
    out = []
    for i, x in enumerate(g):
        other = max(g[j] for j in range(len(g)) if j != i)
        out.append(0.5 + 0.5 * math.tanh((x - other) / scale))
    return out


@dataclass
class Stats:
    """What one search did (for benchmarks; never shown to players)."""

    iterations: int = 0
    steps: int = 0
    failures: int = 0  # iterations dropped because the rules refused a sampled world


def search(
    adapter: Adapter,
    view: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    rng: Rng,
    budget: Budget,
    stop: Callable[[], bool] | None = None,
    stats: Stats | None = None,
    root_out: list[tuple[int, float]] | None = None,
) -> dict[str, Any]:
    """The most visited root action after the budget (or ``stop``) ran out.  ``root_out``,
    if given, receives each root action's ``(visits, mean reward)`` (``root_values``)."""
    acts = [dict(a) for a in actions]
    if len(acts) == 1 and root_out is None:
        return acts[0]
    rules, evaluate, scale = adapter.rules, adapter.evaluate, adapter.scale
    me = adapter.seat(view)
    frng = FastRng.from_rng(rng)
    root = _Node()
    root_keys = [action_key(a) for a in acts]
    worlds: list[tuple[Any, int]] = []
    listed: dict[Any, list[dict[str, Any]]] = {}
    spelled: dict[Any, list[Any]] = {}
    public_key, horizon = adapter.public_key, adapter.horizon

    def decided(state: Any, seat: int, a: Mapping[str, Any], r: FastRng) -> Any:
        for e in rules.decide(state, seat, a, r):
            state = rules.evolve(state, e)
        return state

    play = adapter.play or decided

    def legal_of(state: Any, seat: int) -> list[dict[str, Any]]:
        if public_key is None:
            return rules.legal_actions(state, seat)
        k = (public_key(state), seat)
        hit = listed.get(k)
        if hit is None:
            hit = listed[k] = rules.legal_actions(state, seat)
        return hit

    def keys_of(state: Any, seat: int, legal: list[dict[str, Any]]) -> list[Any]:
        if public_key is None:
            return [action_key(a) for a in legal]
        k = (public_key(state), seat)
        hit = spelled.get(k)
        if hit is None:
            hit = spelled[k] = [action_key(a) for a in legal]
        return hit

    steps = done = failures = 0
    c = budget.c
    # Root moves in the order of their one-step value (in the first world), and only as many
    # of them as the visits so far allow (progressive widening): with a hundred attacks and a
    # budget of a hundred iterations, the search refines the promising moves instead of
    # trying each once.
    first = adapter.sample(view, frng)
    worlds.append((first, frng.below(1 << 62)))
    prior = []
    for i, a in enumerate(acts):
        try:
            scores = evaluate(play(first, me, a, FastRng(worlds[0][1] + 1)))
            best_other = max(x for s, x in enumerate(scores) if s != me)
            prior.append((best_other - scores[me], i))
        except Exception:  # ranked last; the search still tries it in turn
            prior.append((math.inf, i))
    order = [i for _, i in sorted(prior)]
    relative = adapter.relative(view) if callable(adapter.relative) else adapter.relative
    playout = adapter.depth(view, budget.depth) if adapter.depth else budget.depth
    bases: dict[int, Sequence[float]] = {}  # ``relative``: each world's scores at the root
    for it in range(budget.iterations):
        if stop is not None and it % 8 == 0 and it and stop():
            break
        if len(worlds) < budget.worlds:
            worlds.append((adapter.sample(view, frng), frng.below(1 << 62)))
        w = it % len(worlds)
        state = world = worlds[w][0]
        chance_seed, depth = worlds[w][1], 0
        node, seat = root, me
        wide = min(len(acts), budget.widen + int(budget.widen * math.sqrt(it)))
        legal = [acts[i] for i in order[:wide]]
        keys = [root_keys[i] for i in order[:wide]]
        path: list[tuple[_Node, int]] = []
        expanded = False
        try:
            while True:
                children = node.children
                best, best_key, best_act, best_u = None, None, None, -1.0
                untried = []
                for k, a in zip(keys, legal, strict=True):
                    child = children.get(k)
                    if child is None or not child.visits:  # new, or its iteration failed
                        untried.append((k, a))
                        continue
                    child.avail += 1
                    u = child.reward / child.visits + c * math.sqrt(
                        math.log(child.avail) / child.visits
                    )
                    if u > best_u:
                        best, best_key, best_act, best_u = child, k, a, u
                if untried:
                    pick = 0 if node is root else frng.below(len(untried))  # root: best first
                    best_key, best_act = untried[pick]
                    best = children.get(best_key) or _Node()
                    children[best_key] = best
                    expanded = True
                assert best is not None and best_act is not None
                depth += 1
                state = play(state, seat, best_act, FastRng(chance_seed + depth))
                steps += 1
                path.append((best, seat))
                node = best
                if expanded or rules.is_over(state) or (horizon and horizon(world, state)):
                    break
                seat = min(rules.to_act(state))
                legal = legal_of(state, seat)
                keys = keys_of(state, seat, legal)
            for _ in range(playout):
                if rules.is_over(state) or (horizon and horizon(world, state)):
                    break
                s = min(rules.to_act(state))
                a = frng.choice(legal_of(state, s))
                state = play(state, s, a, frng)
                steps += 1
        except Exception:
            # (a bot must still move; tests require ``failures == 0`` on every game)
            worlds.pop(w)
            failures += 1
            continue
        if relative:
            base = bases.get(id(world))
            if base is None:
                base = bases[id(world)] = evaluate(world)
            r = gains(evaluate(state), base, scale)
        else:
            r = rewards(evaluate(state), scale)
        for n, s in path:
            n.visits += 1
            n.reward += r[s]
        done += 1
    if stats is not None:
        stats.iterations += done
        stats.steps += steps
        stats.failures += failures
    if root_out is not None:
        root_out += [_rank(root.children.get(k)) for k in root_keys]
    best_i = max(
        range(len(acts)),
        key=lambda i: _rank(root.children.get(root_keys[i])),
    )
    return acts[best_i]


def root_values(
    adapter: Adapter,
    view: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    rng: Rng,
    budget: Budget,
) -> list[tuple[int, float]]:
    """Per root action, in order: its visits and mean reward after a ``search`` of the
    budget (``(0, 0.0)`` for one never tried).  What a review reads (``domain.search.review``);
    the search is the bots' own, so it sees only what ``view`` shows."""
    out: list[tuple[int, float]] = []
    search(adapter, view, actions, rng, budget, root_out=out)
    return out


def _rank(node: _Node | None) -> tuple[int, float]:
    if node is None:
        return (0, 0.0)
    return (node.visits, node.reward / node.visits if node.visits else 0.0)


@dataclass(frozen=True)
class SearchBot:
    """A ``domain.engine.Bot`` that searches; ``budgeted`` tells the worker to pass ``stop``."""

    adapter: Adapter
    budget: Budget
    budgeted: bool = True

    def __call__(
        self,
        view: Mapping[str, Any],
        actions: Sequence[Mapping[str, Any]],
        rng: Rng,
        stop: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        return search(self.adapter, view, actions, rng, self.budget, stop)


LEVELS = ("easy", "normal", "hard")


def bots(adapter: Adapter, budgets: Mapping[str, Budget]) -> dict[str, SearchBot]:
    """``mcts`` (the normal level) and ``mcts:<level>`` for every level of ``budgets``."""
    out = {f"mcts:{level}": SearchBot(adapter, budgets[level]) for level in LEVELS}
    return {"mcts": out["mcts:normal"], **out}
