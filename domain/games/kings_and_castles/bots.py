"""Bots.  Each decides from its seat's view and the legal actions only, never the full state.

- ``random``: uniform over the legal actions.
- ``greedy``: places crowns on high bonuses; draws its strongest household units; attacks where
  its own colours win the most town value (the mandated country counts double), cheapest first,
  and while it must attack the square's country (KC-3) its best attack there;
  puts its biggest castle on its most valuable territory; taxes when its colours hold the most
  town value or when it has as many markers left as turns as King.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots import random_bot
from domain.engine import Bot
from domain.rng import Rng

_UNIT_VALUE = {"knight": 3, "men_at_arms": 2, "archers": 1}
_ENEMY = "black"


def _parts(cid: str) -> tuple[str, str, int]:
    colour, kind, n = cid.split("-")
    return colour, kind, _UNIT_VALUE.get(kind, int(n))


def _best(actions: Sequence[Mapping[str, Any]], key: Any, rng: Rng) -> Mapping[str, Any]:
    scored = [(key(a), a) for a in actions]
    top = max(s for s, _ in scored)
    return rng.choice([a for s, a in scored if s == top])


def _attack_score(
    view: Mapping[str, Any], mine: set[str], a: Mapping[str, Any]
) -> tuple[float, int]:
    if a["type"] != "attack":
        return (0.0, 0)
    t = view["territories"][a["target"]]
    value = t["town_value"]
    held = _parts(t["holder"])[0]
    parts = [_parts(c) for c in a["counters"]]
    attacker = next(colour for colour, kind, _ in parts if kind in _UNIT_VALUE)
    score = 0.0
    if attacker in mine:
        score += value * (2 if t["country"] == view["mandated_country"] else 1)
    elif attacker != _ENEMY:
        score -= value / 2  # an opponent's colour would gain it
    if held in mine:
        score -= value
    elif held != _ENEMY:
        score += value / 2  # an opponent loses it
    return (score, -sum(v for _, _, v in parts))


def _tax_now(view: Mapping[str, Any], mine: set[str]) -> bool:
    held: dict[int, int] = {}
    for t in view["territories"].values():
        if t["holder"] is not None:
            colour = _parts(t["holder"])[0]
            if colour in view["seats"]:
                seat = view["seats"][colour]
                held[seat] = held.get(seat, 0) + t["town_value"]
    me = view["you"]
    if held.get(me, 0) == 0:
        return False
    king = view["king"]
    turns_left = sum(
        1 for s in view["track"] if s["crown"] == king and s["square"] >= view["square"]
    )
    return held[me] >= max(held.values()) or view["tax_markers"][king] >= turns_left


def greedy_bot(
    view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng
) -> dict[str, Any]:
    mine = set(view["your_colours"])
    kind = actions[0]["type"]
    if kind in ("draw", "refill"):
        strongest = ("knight", "men_at_arms", "archers")
        return dict(_best(actions, lambda a: tuple(a["household"][k] for k in strongest), rng))
    if kind == "place_crown":
        bonus = {s["square"]: s["bonus"] for s in view["track"]}
        return dict(_best(actions, lambda a: bonus[a["square"]], rng))
    if kind == "occupy_rouen":
        return dict(
            _best(
                actions, lambda a: (_parts(a["counter"])[0] in mine, _parts(a["counter"])[2]), rng
            )
        )
    if kind in ("attack", "end_attacks"):
        if not any(a["type"] == "end_attacks" for a in actions):  # KC-3: must attack the country
            country = view["mandated_country"]
            actions = [a for a in actions if view["territories"][a["target"]]["country"] == country]
            return dict(_best(actions, lambda a: _attack_score(view, mine, a), rng))
        best = _best(actions, lambda a: _attack_score(view, mine, a), rng)
        return dict(best) if _attack_score(view, mine, best)[0] > 0 else {"type": "end_attacks"}
    if kind in ("place_castle", "end_castles"):
        territories = view["territories"]

        def castle_score(a: Mapping[str, Any]) -> tuple[int, int]:
            if a["type"] != "place_castle":
                return (0, 0)
            t = territories[a["territory"]]
            if _parts(t["holder"])[0] not in mine:
                return (-1, 0)
            return (t["town_value"], _parts(a["counter"])[2])

        best = _best(actions, castle_score, rng)
        return dict(best) if castle_score(best)[0] > 0 else {"type": "end_castles"}
    if kind in ("tax", "no_tax"):
        return {"type": "tax"} if kind == "tax" and _tax_now(view, mine) else {"type": "no_tax"}
    return dict(rng.choice(actions))


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
