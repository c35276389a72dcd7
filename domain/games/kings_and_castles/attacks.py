"""Attacks (KC-5, KC-6): which targets a colour may attack, the legal counter sets, the capture.

One function, ``target_problem``, says whether a colour's units may attack a territory at all
(KC-5.4 to KC-5.6); the checks of a declared attack (``capture``) and the enumeration of every
legal attack (``legal_attacks``) both use it, so the two cannot disagree.

Counters of the same colour, kind and value are interchangeable: the enumeration lists each
multiset once, with the lowest ids.  ``decide`` accepts any ids of the King's army.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations, product
from typing import Any

from domain.errors import IllegalAction
from domain.games.kings_and_castles.data import (
    COUNTERS,
    COUNTRIES,
    ENEMY,
    TERRITORIES,
    UNIT_KINDS,
    ordered,
)
from domain.games.kings_and_castles.state import (
    State,
    colour_of,
    defence,
    king,
    mandated_country,
)

ROYAL, BARONIAL, ENEMY_SIDE = "royal", "baronial", "enemy"
MAX_MERCENARIES = 4  # of one value in one army: one per player colour


def side_of(state: State, colour: str) -> str:
    if colour == ENEMY:
        return ENEMY_SIDE
    return ROYAL if colour == king(state) else BARONIAL


def target_problem(state: State, colour: str, target: str) -> tuple[str, str] | None:
    """Why units of ``colour`` from the King's army may not attack ``target`` (None: they may)."""
    t = TERRITORIES[target]
    holder = colour_of(state.territories[target])
    if holder is None:
        return ("KC-5.1", f"{target} is held by no unit")
    side, country, mandated = side_of(state, colour), t.country, mandated_country(state)
    if country != mandated:
        if side == ROYAL:
            return ("KC-5.4", f"royal units attack only {mandated} on this square")
        if state.other_country not in (None, country):
            return ("KC-5.4", f"the other country of this turn is already {state.other_country}")
    hold = {n: colour_of(state.territories[n]) for n in COUNTRIES[country]}
    if ENEMY in hold.values():  # KC-5.5 contested
        if side == ENEMY_SIDE:
            if holder == ENEMY:
                return ("KC-5.5", "enemy units attack only territories held by a player colour")
            if not any(hold[a] == ENEMY for a in t.adjacent):
                return ("KC-5.5", f"{target} is not adjacent to another enemy-held territory")
            return None
        if holder != ENEMY:
            return ("KC-5.5", f"{country} is contested: attack only enemy-held territories")
        if any(c not in (None, ENEMY) for c in hold.values()):
            if not any(hold[a] not in (None, ENEMY) for a in t.adjacent):
                return ("KC-5.5", f"{target} is not adjacent to a territory held by a player")
        elif not t.port_or_gate:
            return ("KC-5.5", f"no player holds a territory in {country}: invade by port or gate")
        return None
    if side == ENEMY_SIDE:  # KC-5.6 peaceful
        if not t.flag:
            return ("KC-5.6", f"enemy units invade peaceful {country} only through a flag")
        return None
    if holder == colour:
        return ("KC-5.6", f"civil war: {target} is held by {colour} already")
    if colour in hold.values():
        if not any(hold[a] == colour for a in t.adjacent):
            return ("KC-5.6", f"{colour} holds no territory adjacent to {target}")
    elif not t.port_or_gate:
        return ("KC-5.6", f"{colour} holds nothing in {country}: invade by port or gate")
    return None


@cache
def shapes(d: int) -> tuple[tuple[int, int, int, int, int, int], ...]:
    """Every legal (knights, men-at-arms, archers, mercenaries of 1, 2, 3) against defence d.

    KC-5.1: at least one unit, points > d.  KC-5.2: no counter can be removed leaving a legal
    attack (the only unit cannot be removed).  Points never exceed d + 3.
    """
    out = []
    top = d + 3
    for nk, nm, na in product(range(top // 3 + 1), range(top // 2 + 1), range(top + 1)):
        units = nk + nm + na
        unit_points = 3 * nk + 2 * nm + na
        if units == 0 or unit_points > top:
            continue
        for c1, c2, c3 in product(range(MAX_MERCENARIES + 1), repeat=3):
            points = unit_points + c1 + 2 * c2 + 3 * c3
            if points <= d or points > top:
                continue
            removable = [v for v, n in ((1, c1), (2, c2), (3, c3)) if n]
            if units > 1:  # the only unit cannot be removed
                removable += [v for v, n in ((3, nk), (2, nm), (1, na)) if n]
            if removable and points - min(removable) > d:
                continue
            out.append((nk, nm, na, c1, c2, c3))
    return tuple(out)


def _army_groups(army: frozenset[str]) -> tuple[dict[str, dict[str, list[str]]], list[list[str]]]:
    units: dict[str, dict[str, list[str]]] = {}
    mercs: list[list[str]] = [[], [], []]
    for cid in ordered(army):
        c = COUNTERS[cid]
        if c.is_unit:
            units.setdefault(c.colour, {k: [] for k in UNIT_KINDS})[c.kind].append(cid)
        elif c.kind == "mercenary":
            mercs[c.value - 1].append(cid)
    return units, mercs


def _counter_sets(d: int, kinds: dict[str, list[str]], mercs: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for nk, nm, na, *c in shapes(d):
        if nk > len(kinds["knight"]) or nm > len(kinds["men_at_arms"]):
            continue
        if na > len(kinds["archers"]) or any(n > len(m) for n, m in zip(c, mercs, strict=True)):
            continue
        base = kinds["knight"][:nk] + kinds["men_at_arms"][:nm] + kinds["archers"][:na]
        picked = product(*(combinations(m, n) for n, m in zip(c, mercs, strict=True)))
        out.extend(ordered(base + [cid for p in picks for cid in p]) for picks in picked)
    return out


def legal_attacks(state: State) -> list[dict[str, Any]]:
    """Every distinct legal attack of the King now (target x counter multiset)."""
    colour = king(state)
    assert colour is not None
    units, mercs = _army_groups(state.armies[colour])
    out: list[dict[str, Any]] = []
    for attacker, kinds in units.items():
        by_defence: dict[int, list[list[str]]] = {}
        for target in TERRITORIES:
            if target_problem(state, attacker, target) is not None:
                continue
            d = defence(state, target)
            if d not in by_defence:
                by_defence[d] = _counter_sets(d, kinds, mercs)
            out.extend(
                {"type": "attack", "target": target, "counters": list(s)} for s in by_defence[d]
            )
    return out


def can_attack_country(state: State, country: str) -> bool:
    """Is any attack on ``country`` legal now?  (KC-3: the King must attack the square's.)"""
    colour = king(state)
    assert colour is not None
    units, mercs = _army_groups(state.armies[colour])
    return any(
        _counter_sets(defence(state, target), kinds, mercs)
        for attacker, kinds in units.items()
        for target in COUNTRIES[country]
        if target_problem(state, attacker, target) is None
    )


def capture(state: State, target: str, counters: Sequence[str]) -> dict[str, Any]:
    """The data of the capture an attack makes, or ``IllegalAction`` naming the rule broken."""
    colour = king(state)
    assert colour is not None
    if target not in TERRITORIES:
        raise IllegalAction("KC-5.1", f"unknown territory {target!r}")
    if not counters:
        raise IllegalAction("KC-5.1", "an attack needs counters")
    if len(set(counters)) != len(counters):
        raise IllegalAction("KC-5.1", "a counter is named twice")
    army = state.armies[colour]
    for cid in counters:
        if cid not in army:
            raise IllegalAction("KC-5.1", f"{cid} is not in the King's army")
    used = [COUNTERS[cid] for cid in counters]
    for c in used:
        if c.kind == "castle":
            raise IllegalAction("KC-7", f"{c.id}: castles never attack")
    units = [c for c in used if c.is_unit]
    if not units:
        raise IllegalAction("KC-6", "mercenaries alone cannot attack: at least one unit is needed")
    attackers = {c.colour for c in units}
    if len(attackers) > 1:
        raise IllegalAction(
            "KC-5.1", f"units of one colour only, not {', '.join(sorted(attackers))}"
        )
    attacker = units[0].colour
    problem = target_problem(state, attacker, target)
    if problem is not None:
        raise IllegalAction(*problem)
    d, points = defence(state, target), sum(c.value for c in used)
    if points <= d:
        raise IllegalAction("KC-5.1", f"{points} points do not exceed the defence {d} of {target}")
    for c in used:
        if (len(units) > 1 or not c.is_unit) and points - c.value > d:
            raise IllegalAction("KC-5.2", f"{c.id} is surplus")
    best = max(c.value for c in units)
    stays = ordered(c.id for c in units if c.value == best)[0]  # KC-5.3: interchangeable
    country = TERRITORIES[target].country
    side = side_of(state, attacker)
    other = state.other_country
    if side != ROYAL and country != mandated_country(state):
        other = country
    return {
        "colour": colour,
        "target": target,
        "country": country,
        "side": side,
        "attacker": attacker,
        "counters": ordered(counters),
        "defender": state.territories[target],
        "castle": state.castles.get(target),
        "stays": stays,
        "other_country": other,
    }
