"""Properties: legal actions are exactly what decide accepts (KC-9); attack enumeration matches a
brute force over every subset of the army (KC-5.1, KC-5.2); listing stays fast."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import IllegalAction
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.attacks import capture, legal_attacks
from domain.games.kings_and_castles.data import COUNTERS, ENEMY_POOL, TERRITORIES, ordered
from domain.games.kings_and_castles.state import State
from domain.rng import Rng
from domain.simulate import playthrough
from tests.games.kings_and_castles.builder import config, position

PLAYER_UNITS = [cid for cid, c in COUNTERS.items() if c.is_unit and not c.is_enemy]
MERCENARIES = [cid for cid, c in COUNTERS.items() if c.kind == "mercenary"]
CASTLES = [cid for cid, c in COUNTERS.items() if c.kind == "castle"]


def _lowest(army: list[str], chosen: list[str]) -> tuple[str, ...] | None:
    """The lowest ids of the army with the same colour, kind and value as ``chosen``."""
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(army):
        return None

    def group(cid: str) -> tuple[str, str, int]:
        return (COUNTERS[cid].colour, COUNTERS[cid].kind, COUNTERS[cid].value)

    wanted = [group(x) for x in chosen]
    ids = []
    for key in dict.fromkeys(wanted):
        ids += [x for x in army if group(x) == key][: wanted.count(key)]
    return tuple(ordered(ids))


def canonical(state: State, action: Mapping[str, Any]) -> Any:
    """An action with interchangeable counters (colour, kind, value) replaced by the lowest ids."""
    army = ordered(state.armies[state.crowns[state.square]]) if state.square else []
    if action["type"] == "attack":
        ids = _lowest(army, action["counters"])
        return ("attack", action["target"], ids or ("raw", *action["counters"]))
    if action["type"] == "occupy_rouen":
        return ("occupy_rouen", _lowest(army, [action["counter"]]) or action["counter"])
    return repr(sorted(action.items()))


def perturbations(state: State, action: Mapping[str, Any]) -> list[dict[str, Any]]:
    kind = action["type"]
    out: list[dict[str, Any]] = []
    if kind == "attack":
        army = ordered(state.armies[state.crowns[state.square]])
        counters = action["counters"]
        out += [{**action, "counters": [c for c in counters if c != x]} for x in counters]
        out += [{**action, "counters": [*counters, x]} for x in army if x not in counters]
        out += [{**action, "target": t} for t in list(TERRITORIES)[::5]]
    elif kind in ("draw", "refill"):
        for k in ("knight", "men_at_arms", "archers"):
            h = action["household"]
            out.append({**action, "household": {**h, k: h[k] + 1}, "bag": action["bag"] - 1})
            out.append({**action, "household": {**h, k: h[k] + 1}})
        out.append({**action, "bag": action["bag"] + 1})
    elif kind == "place_crown":
        out += [{**action, "square": s} for s in (0, 1, 2, 12, 13, 24, 25)]
    elif kind == "place_castle":
        out += [{**action, "territory": t} for t in list(TERRITORIES)[::3]]
        out += [{**action, "counter": c} for c in ordered(state.armies[state.crowns[state.square]])]
    elif kind == "occupy_rouen":
        out += [{**action, "counter": c} for c in ordered(state.armies[state.crowns[state.square]])]
    return out


def check_position(state: State) -> None:
    seat = GAME.to_act(state)[0]
    legal = GAME.legal_actions(state, seat)
    listed = {canonical(state, a) for a in legal}
    assert len(listed) == len(legal), "every listed action is distinct"
    for n, action in enumerate(legal):
        GAME.decide(state, seat, action, Rng.at("p", n))  # accepted
    for action in legal[:: max(1, len(legal) // 25)]:
        for other in perturbations(state, action):
            if canonical(state, other) in listed:
                GAME.decide(state, seat, other, Rng.at("p", 0))
                continue
            try:
                GAME.decide(state, seat, other, Rng.at("p", 0))
            except IllegalAction:
                continue
            raise AssertionError(f"accepted but not listed: {other}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    length=st.sampled_from(["full", "short"]),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 250),
)
def test_KC_9_listed_actions_accepted_perturbed_refused(
    players: int, length: str, seed: int, steps: int
) -> None:
    """KC-9: in reachable positions every listed action is accepted, others refused."""
    match = None
    for step in playthrough(GAME, config(players, length), str(seed)):
        match = step.match
        if steps == 0 or GAME.is_over(match.state):
            break
        steps -= 1
    assert match is not None
    if not GAME.is_over(match.state):
        check_position(match.state)


@st.composite
def attack_positions(draw: st.DrawFn) -> State:
    holders: dict[str, str] = {}
    enemies = iter(ENEMY_POOL)
    for name in TERRITORIES:
        pick = draw(st.sampled_from(["enemy", "player", "player", "empty"]))
        if pick == "enemy":
            holders[name] = next(enemies)
        elif pick == "player":
            holders[name] = draw(
                st.sampled_from([p for p in PLAYER_UNITS if p not in holders.values()])
            )
    used = set(holders.values())
    army_pool = [c for c in (*ENEMY_POOL, *PLAYER_UNITS, *MERCENARIES) if c not in used]
    army = draw(st.lists(st.sampled_from(army_pool), min_size=1, max_size=8, unique=True))
    castled = [t for t, h in holders.items() if not COUNTERS[h].is_enemy]
    picks = zip(draw(st.permutations(castled))[:3], CASTLES, strict=False)
    castles = {t: c for t, c in picks if draw(st.booleans())}
    return position(
        square=draw(st.sampled_from([1, 2, 3, 4, 8])),
        king=draw(st.sampled_from(["green", "blue"])),
        army=army,
        holders=holders,
        castles=castles,
        other_country=draw(st.sampled_from([None, None, "Ireland", "Wales"])),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attack_positions())
def test_KC_5_1_and_KC_5_2_enumeration_matches_brute_force(state: State) -> None:
    """KC-5.1/KC-5.2: the listed attacks are exactly the legal subsets of the army."""
    king = state.crowns[state.square]
    army = ordered(state.armies[king])
    brute = set()
    for target in TERRITORIES:
        for size in range(1, len(army) + 1):
            for subset in combinations(army, size):
                try:
                    capture(state, target, list(subset))
                except IllegalAction:
                    continue
                brute.add(
                    canonical(state, {"type": "attack", "target": target, "counters": list(subset)})
                )
    listed = [canonical(state, a) for a in legal_attacks(state)]
    assert len(listed) == len(set(listed)) and set(listed) == brute
    for a in legal_attacks(state):  # listed with the lowest ids already
        assert canonical(state, a) == ("attack", a["target"], tuple(a["counters"]))


def test_KC_9_attack_listing_on_a_huge_army() -> None:
    """KC-9: a 37-counter army (all 12 mercenaries) against a crowded map lists every distinct
    attack once per multiset (its time is measured in bench/rules.py)."""
    army = [
        *MERCENARIES,
        *(f"green-{k}-{i}" for k in ("knight", "men_at_arms", "archers") for i in range(1, 7)),
        "blue-knight-5",
        "blue-knight-6",
        "blue-archers-5",
        "blue-archers-6",
        "black-knight-10",
        "black-archers-16",
        "black-men_at_arms-14",
    ]
    names = list(TERRITORIES)
    holders = {t: f"black-archers-{i + 1}" for i, t in enumerate(names[::2])}
    players = [f"{c}-archers-{i}" for c in ("teal", "pink") for i in range(1, 7)]
    holders.update(zip(names[1::2], players, strict=False))
    for square in (1, 2, 3, 4, 8):
        state = position(square=square, army=army, holders=holders)
        actions = GAME.legal_actions(state, 0)
        assert len(actions) > 100
        attacks = [a for a in actions if a["type"] == "attack"]
        keys = [(a["target"], tuple(sorted(a["counters"]))) for a in attacks]
        assert len(keys) == len(set(keys)), "each attack listed once"
