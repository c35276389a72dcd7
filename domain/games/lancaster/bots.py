"""Bots: ``random`` (uniform over the legal actions) and ``greedy``.

``greedy`` sees only its seat's view (never the state).  It values every legal action with a
rough exchange rate (power 1, gold 0.8, squire 0.7, ...) and plays the best: placements that earn
most, votes for laws that pay it more than the law they push out, and vote markers only when
they change the outcome it can foresee from what it sees (the other players' tiles guessed from
the public board, their markers unknown and taken as none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots import random_bot
from domain.games.lancaster.data import (
    CONFLICTS,
    COUNTIES,
    FAVOURS,
    NOBLE_POINTS,
    ROUNDS,
    SPACES,
    strength,
)
from domain.rng import Rng

VALUE = {"power": 1.0, "gold": 0.8, "squires": 0.7, "markers": 0.4}
KNIGHT, UPGRADE, EXTENSION, FAVOUR = 2.5, 2.0, 2.5, 1.8


def noble_value(nobles: int, last_round: bool) -> float:
    """What one more noble tile is worth to a player holding ``nobles``: the points it adds
    at the end (LA-3) and, before the last round, the vote marker it brings each round."""
    gain = NOBLE_POINTS[min(nobles + 1, 9)] - NOBLE_POINTS[min(nobles, 9)]
    return gain + (0 if last_round else 1.5)


def reward_value(reward: Mapping[str, int], last_round: bool) -> float:
    """A reward (a county's, a castle space's) at the exchange rate above."""
    v = sum(
        VALUE[k2] * reward.get(k1, 0)
        for k1, k2 in (
            ("power", "power"),
            ("gold", "gold"),
            ("squires", "squires"),
            ("vote_markers", "markers"),
        )
    )
    if last_round:
        v -= VALUE["markers"] * reward.get("vote_markers", 0)
    v += KNIGHT * reward.get("new_knight", 0) + UPGRADE * reward.get("upgrade", 0)
    v += EXTENSION * reward.get("extension", 0)
    return v - VALUE["squires"] * reward.get("pay_squires", 0)


def conflict_value(n: int, strengths: Sequence[int], mine: int) -> float:
    """The power the space ``mine`` of conflict ``n`` can expect if the card were resolved with
    these stack strengths (LA-2.9), a loss's values at a discount (more knights may come)."""
    rank = sorted(range(len(strengths)), key=lambda i: (-strengths[i], -i)).index(mine)
    won = sum(strengths) >= CONFLICTS[n]["france"]
    values = CONFLICTS[n]["power"] if won else CONFLICTS[n]["power"][1:]
    v = values[rank] if rank < len(values) else 0
    return v * (1.0 if won else 0.6)


class _Seen:
    """What greedy reads off its view, computed once per decision."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.view = view
        self.me = view["players"][view["you"]]
        self.colour = self.me["colour"]
        self.gold = self.me.get("gold", 0)
        self.squires = self.me.get("squires", 0)
        self.last_round = view["round"] >= ROUNDS
        self.deployed: dict[str, list[str]] = {}
        for L in view["counties"].values():
            if L["occupant"]:
                self._add(L["occupant"]["knight"])
        for castle in view["castles"].values():
            for k in castle.values():
                self._add(k)
        self.conflicts: dict[str, int] = {}
        for row in ("upper", "lower"):
            for card in view["conflicts"][row]:
                for stack in card["spaces"]:
                    self._add(*stack)
                    c = stack[0].split("-")[0]
                    self.conflicts[c] = self.conflicts.get(c, 0) + 1

    def _add(self, *knights: str) -> None:
        for k in knights:
            self.deployed.setdefault(k.split("-")[0], []).append(k)

    def noble_value(self, count: int | None = None) -> float:
        return noble_value(len(self.me["nobles"]) if count is None else count, self.last_round)

    def reward_value(self, reward: Mapping[str, int]) -> float:
        return reward_value(reward, self.last_round)

    def law_value(self, law: str, colour: str, nobles: int, built: int, gold: int) -> float:
        mine = self.deployed.get(colour, [])
        conf = self.conflicts.get(colour, 0)
        counties = sum(
            1
            for L in self.view["counties"].values()
            if L["occupant"] and L["occupant"]["knight"].startswith(colour + "-")
        )
        s = [strength(k) for k in mine]
        table = {
            "L1": 1.0,
            "L2": 1.5,
            "L3": 3 * (counties // 2),
            "L4": 0.2 * gold,
            "L5": min(gold, 2),
            "L6": EXTENSION * (conf // 2),
            "L7": 0.7 * s.count(2),
            "L8": 1.9 * (conf // 2),
            "L9": UPGRADE if 2 not in s else 0,
            "L10": UPGRADE if 3 in s else 0,
            "L11": 5 * (built // 3),
            "L12": 3 * conf,
            "L13": 8 * (counties // 3),
            "L14": 5 if s.count(1) == 3 else 0,
            "L15": KNIGHT * (nobles // 3),
            "L16": 0.2 * gold,
            "L17": 4 if 4 in s else 0,
            "L18": nobles,
        }
        return float(table.get(law, 0))


def _county(seen: _Seen, a: Mapping[str, Any]) -> float:
    info = seen.view["counties"][a["county"]]
    noble = a["county"] not in seen.me["nobles"] and info["nobles_left"] > 0
    best = max(seen.reward_value(info["reward"]), seen.noble_value() if noble else 0)
    waste = 0.3 * (strength(a["knight"]) - info["min"])
    bonus = 0.5 if info["occupant"] else 0.0
    return float(best - waste - VALUE["squires"] * a["squires"] + bonus + 0.1 * a["squires"])


def _conflict(seen: _Seen, a: Mapping[str, Any]) -> float:
    rows = seen.view["conflicts"]
    card = next(c for r in ("upper", "lower") for c in rows[r] if c["n"] == a["conflict"])
    s = strength(a["knight"])
    mine = next(
        (i for i, st in enumerate(card["spaces"]) if st[0].startswith(seen.colour + "-")), None
    )
    strengths = list(card["strengths"])
    if mine is None:
        strengths.append(s)
        mine = len(strengths) - 1
    else:
        strengths[mine] += s
    v = conflict_value(a["conflict"], strengths, mine)
    fav = seen.view["favour"]
    if fav["conflict_knights"] < 6 and fav["face_up"]:
        v += FAVOUR * (1.0 if sum(strengths) >= CONFLICTS[a["conflict"]]["france"] else 0.6)
    return v - 0.4 * s


def _favour(seen: _Seen, a: Mapping[str, Any]) -> float:
    kind = FAVOURS[a["tile"]]["reward"]
    if kind == "noble":
        return seen.noble_value() if "noble" in a else 0.0
    if kind == "upgrade":
        return UPGRADE + 0.1 * strength(a["knight"]) if "knight" in a else 0.0
    goods = a.get("goods", {})
    return float(VALUE["gold"] * goods.get("gold", 0) + VALUE["squires"] * goods.get("squires", 0))


def _vote(seen: _Seen, a: Mapping[str, Any], wanted: str, needed: int) -> float:
    if a["tile"] != wanted:
        return -10.0
    return -float(abs(a["markers"] - needed))


def _plan_vote(seen: _Seen) -> tuple[str, int]:
    """The tile greedy wants and the fewest markers that make it win on what it can see."""
    view = seen.view
    law = view["vote"]["law"]
    dropped = view["laws"]["current"][0]

    def wants_yes(p: Mapping[str, Any]) -> bool:
        gold = p.get("gold", 3)
        args = (p["colour"], len(p["nobles"]), len(p["extensions"]), gold)
        return seen.law_value(law, *args) >= seen.law_value(dropped, *args)

    want = wants_yes(seen.me)
    yes = sum(1 for p in view["players"] if p["seat"] != view["you"] and wants_yes(p))
    no = len(view["players"]) - 1 - yes
    for m in range(seen.me["markers"] + 1):
        y, n = (yes + 1 + m, no) if want else (yes, no + 1 + m)
        if (y >= n) == want:
            return ("yes" if want else "no"), m
    return ("yes" if want else "no"), 0


def _score(seen: _Seen, a: Mapping[str, Any], vote: tuple[str, int] | None) -> float:
    t = a["type"]
    if t == "place_county":
        return _county(seen, a)
    if t == "place_castle":
        return seen.reward_value(SPACES[a["space"]]) - 0.5 * strength(a["knight"]) + 0.2
    if t == "place_conflict":
        return _conflict(seen, a)
    if t == "take_favour":
        return _favour(seen, a)
    if t == "vote" and vote is not None:
        return _vote(seen, a, *vote)
    if t == "county_reward":
        reward = seen.reward_value(COUNTIES[a["county"]]["reward"])
        noble = seen.noble_value()
        return {"noble": noble, "reward": reward, "both": noble + reward - 3 * VALUE["gold"]}[
            a["take"]
        ] + (0.1 * strength(a["knight"]) if "knight" in a else 0)
    if t == "castle_reward":
        return seen.reward_value(SPACES[a["source"]]) + (
            0.1 * strength(a["knight"]) if "knight" in a else 0
        )
    if t == "choose_start_player":
        return 1.0 if a["seat"] == seen.view["you"] else 0.0
    if t == "upgrade":
        return UPGRADE + 0.1 * strength(a["knight"])
    if t == "buy":
        return _buy(seen, a["count"])
    if t == "ransom":
        return strength(a["knight"]) * (1.2 if seen.last_round else 2.0) - strength(a["knight"])
    if t == "build_start_extension":
        return seen.reward_value(SPACES[a["space"]])
    return 0.0  # pass


def _buy(seen: _Seen, count: int) -> float:
    law = seen.view["pending"]["law"]
    if law == "L5":
        return count * (3 - VALUE["gold"] - VALUE["squires"])
    if law == "L16":
        return count * (1 - (0 if seen.last_round else VALUE["gold"])) - 0.01 * count
    return count * (VALUE["markers"] - VALUE["gold"]) + (0.5 if count == 1 else 0)


def greedy_bot(
    view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng
) -> dict[str, Any]:
    seen = _Seen(view)
    vote = _plan_vote(seen) if view.get("vote") and actions[0]["type"] == "vote" else None
    scored = [(_score(seen, a, vote), i) for i, a in enumerate(actions)]
    best = max(s for s, _ in scored)
    top = [i for s, i in scored if s >= best - 1e-9]
    return dict(actions[rng.choice(top)])


BOTS = {"random": random_bot, "greedy": greedy_bot}
