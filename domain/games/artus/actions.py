"""The ``play`` actions of a card on a board: enumeration and checks (AR-4, AR-6, AR-9).

``card_actions`` lists every legal use of a card exactly as ``check_play`` accepts it, and both
work on the public ``Board`` only, so bots can reuse them from a view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations, product
from typing import Any

from domain.errors import IllegalAction
from domain.games.artus.board import Board
from domain.games.artus.data import CARDS, CARPET_SET, METAL, PRINCES, Card, split_card

CHOICE_STEPS = (1, 3)  # S-choice: a figure 1-3 seats forward (AR-6)
DIRECTIONS = ("cw", "ccw")


def qualifying_sets(board: Board, player: int, card_id: str) -> list[list[str]]:
    """The knight sets that meet a scoring card's requirement (S-gyr, S-carpet, S-red)."""
    mine = board.knights_of(player)
    if card_id == "S-gyr":
        by_zone = {
            z: [k for k, s in mine if board.zone(s) == z] for z in ("green", "yellow", "red")
        }
        return [list(t) for t in product(by_zone["green"], by_zone["yellow"], by_zone["red"])]
    if card_id == "S-carpet":
        return [list(t) for t in combinations([k for k, s in mine if s in CARPET_SET], 2)]
    if card_id == "S-red":
        return [list(t) for t in combinations([k for k, s in mine if board.zone(s) == "red"], 3)]
    raise ValueError(card_id)


def card_actions(board: Board, player: int, card: str) -> list[dict[str, Any]]:
    """Every legal ``play`` action of ``card`` (a card id with colour) for ``player``."""
    c = CARDS[split_card(card)[1]]
    base: dict[str, Any] = {"type": "play", "card": card}
    dirs = DIRECTIONS if c.backward else DIRECTIONS[:1]
    steps = range(c.min, c.max + 1)
    if c.kind == "knight":
        return [
            {**base, "knight": k, "steps": n, "direction": d}
            for k, _ in board.knights_of(player)
            for d in dirs
            for n in steps
        ]
    if c.kind == "move":
        figures = [p for p in PRINCES if METAL[p] in c.metals]
        return [
            {**base, "figure": f, "steps": n, "direction": d}
            for f in figures
            for d in dirs
            for n in steps
        ]
    if c.kind == "ring":
        return [{**base, "prince": p} for p in board.princes() if METAL[p] in c.metals]
    if c.id in ("S-all", "S-neg"):
        return [base]
    if c.id == "S-choice":
        knights = [k for k, _ in board.knights_of(player)]
        lo, hi = CHOICE_STEPS
        return (
            [
                {**base, "option": "move", "figure": f, "steps": n}
                for f in [*knights, *PRINCES]
                for n in range(lo, hi + 1)
            ]
            + [{**base, "option": "ring", "prince": p} for p in board.princes()]
            + [{**base, "option": "score", "knight": k} for k in knights]
        )
    sets = qualifying_sets(board, player, c.id)
    return [{**base, "knights": s} for s in sets] if sets else [{**base, "knights": []}]


def _fields(
    action: Mapping[str, Any], what: str, required: Sequence[str], optional: Sequence[str] = ()
) -> None:
    present = set(action) - {"type", "card"}
    missing = sorted(set(required) - present)
    if missing:
        raise IllegalAction("AR-9", f"{what} needs {', '.join(missing)}")
    extra = sorted(present - set(required) - set(optional))
    if extra:
        raise IllegalAction("AR-9", f"{what} does not use {', '.join(extra)}")


def _own_knight(board: Board, player: int, knight: str, rule: str) -> int:
    mine = dict(board.knights_of(player))
    if knight not in mine:
        raise IllegalAction(rule, f"{knight!r} is not one of your knights on the table")
    return mine[knight]


def _steps(action: Mapping[str, Any], c: Card, rule: str) -> None:
    steps = action["steps"]
    if not c.min <= steps <= c.max:
        raise IllegalAction(rule, f"{c.id} moves {c.min}-{c.max} seats, not {steps}")
    direction = action.get("direction", "cw")
    if direction not in DIRECTIONS:
        raise IllegalAction("AR-9", "direction is cw or ccw")
    if direction == "ccw" and not c.backward:
        raise IllegalAction(rule, f"{c.id} moves clockwise only; only the backward card goes ccw")


def check_play(board: Board, player: int, hand: Sequence[str], action: Mapping[str, Any]) -> Card:
    """Refuse (``IllegalAction``) an illegal ``play`` action; the card played otherwise."""
    if "card" not in action:
        raise IllegalAction("AR-9", "play needs a card")
    card = action["card"]
    base = split_card(card)[1]
    if not base:
        raise IllegalAction("AR-9", f"{card!r} is not a card id (<colour>/<card>)")
    if card not in hand:
        raise IllegalAction("AR-3", f"{card} is not in your hand")
    c = CARDS[base]
    if c.kind == "knight":
        _fields(action, "a knight card", ("knight", "steps"), ("direction",))
        _own_knight(board, player, action["knight"], "AR-4.1")
        _steps(action, c, "AR-4.1")
    elif c.kind == "move":
        _fields(action, "a king move card", ("figure", "steps"), ("direction",))
        figure = action["figure"]
        if figure not in PRINCES:
            raise IllegalAction("AR-4.2", f"{figure!r} is not a prince or the King")
        if METAL[figure] not in c.metals:
            raise IllegalAction(
                "AR-4.2", f"{c.id} moves {'/'.join(c.metals)} figures, not {figure}"
            )
        _steps(action, c, "AR-4.2")
    elif c.kind == "ring":
        _fields(action, "a ring card", ("prince",))
        _check_ring(board, action["prince"], c.metals, "AR-4.3")
    else:
        _check_scoring(board, player, c, action)
    return c


def _check_ring(board: Board, prince: str, metals: Sequence[str], rule: str) -> None:
    if prince == board.king:
        raise IllegalAction(rule, f"{prince} is King; a ring goes on a prince, never the King")
    if prince not in PRINCES:
        raise IllegalAction(rule, f"{prince!r} is not a prince")
    if METAL[prince] not in metals:
        raise IllegalAction(rule, f"the card shows {'/'.join(metals)}, not {METAL[prince]}")
    if board.supply() <= 0:
        raise IllegalAction(rule, "no ring left in the supply")


def _check_scoring(board: Board, player: int, c: Card, action: Mapping[str, Any]) -> None:
    what = f"scoring card {c.id}"
    if c.id in ("S-all", "S-neg"):
        _fields(action, what, ())
        return
    if c.id == "S-choice":
        _fields(action, what, ("option",), ("figure", "steps", "prince", "knight"))
        option = action["option"]
        if option == "move":
            _fields(action, f"{what} (move)", ("option", "figure", "steps"))
            figure = action["figure"]
            if figure not in PRINCES:
                _own_knight(board, player, figure, "AR-6")
            steps = action["steps"]
            lo, hi = CHOICE_STEPS
            if not lo <= steps <= hi:
                raise IllegalAction("AR-6", f"S-choice moves a figure {lo}-{hi} seats, not {steps}")
        elif option == "ring":
            _fields(action, f"{what} (ring)", ("option", "prince"))
            _check_ring(board, action["prince"], ("silver", "bronze"), "AR-6")
        elif option == "score":
            _fields(action, f"{what} (score)", ("option", "knight"))
            _own_knight(board, player, action["knight"], "AR-6")
        else:
            raise IllegalAction("AR-9", "option is move, ring or score")
        return
    _fields(action, what, ("knights",))
    knights = action["knights"]  # a list of strings: the engine checked the action's shape
    sets = qualifying_sets(board, player, c.id)
    if not knights:
        if sets:
            raise IllegalAction("AR-6", f"you can meet {c.id}, so you must score it (no penalty)")
        return
    if len(set(knights)) != len(knights):
        raise IllegalAction("AR-6", "a knight is named twice")
    for k in knights:
        _own_knight(board, player, k, "AR-6")
    if not any(sorted(s) == sorted(knights) for s in sets):
        need = {
            "S-gyr": "one knight each on green, yellow and red",
            "S-carpet": "two knights on carpet seats",
            "S-red": "three knights on red seats",
        }[c.id]
        raise IllegalAction("AR-6", f"{c.id} scores {need}; {', '.join(knights)} do not qualify")
