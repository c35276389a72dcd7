"""Judging one decision of a finished game from the deciding seat's view only (issue 42).

Why it is honest by construction: ``judge`` is given what the seat's view showed at that
moment, the legal actions and the action played, nothing else.  The values come from the
bots' own information-set search (``ismcts.root_values``), whose worlds are dealt by the game's
sampler from that view alone; so two logs in which the seat saw the same thing get the same
judgement for the same ``Rng``, whatever the other seats held.

**The value** of an action is the search's mean reward for the reviewed seat after playing
it: the seat's expected final *rank-score* in [0, 1], as ``ismcts.rewards`` scores an ending
(0.8 times the share of the other seats it beats, a tie counting half, plus 0.2 times its
margin over the best other seat, clipped at the game's decisive margin ``Adapter.scale``):
1 is a sure first place by a wide margin, 0 a sure last.  Where a game's search looks only up
to a horizon, the scores there stand for the final ones, as they do for the bots.  A review
always scores rank and margin (never a game's ``relative`` gains), so a value means the same
in every game.

**Every root action is judged**: the budget's progressive widening is opened to all of them,
and the iterations are at least ``MIN_VISITS`` per action, so each gets a value.  ``best`` is
the action the search prefers (the most visited, as a bot would play it; ties by value), so
``value_best`` may in rare cases be a hair below the best other mean; ``swing`` is never
negative.  Pure and deterministic: same view, actions, ``Rng`` and budget, same answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.rng import Rng
from domain.search.ismcts import Adapter, Budget, action_key, root_values

MIN_VISITS = 2  # iterations per root action at least, so that every action gets a value
DIGITS = 4  # values are rounded: more is noise, and equal inputs give equal text


def judge(
    adapter: Adapter,
    view: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    played: Mapping[str, Any],
    rng: Rng,
    budget: Budget,
) -> dict[str, Any]:
    """``{played, best, value_played, value_best, swing, alternatives: [{action, value}]}``
    for the decision ``view`` showed (``alternatives``: every other action, best first)."""
    acts = [dict(a) for a in actions]
    keys = [action_key(a) for a in acts]
    mine = action_key(_ordered(played, acts))
    if mine not in keys:  # accepted by the rules, so legal, though spelled differently
        acts.append(dict(played))
        keys.append(mine)
    wide = replace(
        budget,
        iterations=max(budget.iterations, MIN_VISITS * len(acts)),
        widen=max(budget.widen, len(acts)),
    )
    rank_only = replace(adapter, relative=False)
    stats = root_values(rank_only, view, acts, rng, wide)
    values = [round(mean, DIGITS) for _, mean in stats]
    best_i = max(range(len(acts)), key=lambda i: (stats[i][0], values[i]))
    played_i = keys.index(mine)
    others = sorted(
        (i for i in range(len(acts)) if i != played_i),
        key=lambda i: (-values[i], i),
    )
    return {
        "played": acts[played_i],
        "best": acts[best_i],
        "value_played": values[played_i],
        "value_best": values[best_i],
        "swing": round(max(0.0, values[best_i] - values[played_i]), DIGITS),
        "alternatives": [{"action": acts[i], "value": values[i]} for i in others],
    }


def _ordered(played: Mapping[str, Any], acts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``played`` spelled as the legal action equal to it (same fields, any order), so that
    its key matches; else as it is."""
    for a in acts:
        if dict(a) == dict(played):
            return dict(a)
    return dict(played)
