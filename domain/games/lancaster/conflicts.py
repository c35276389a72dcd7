"""Phase 3, conflicts (LA-2.9): the lower row first, then the upper row, left to right.

England wins when all knights on the card together reach France's strength.  Sides are ranked
by their strength there; a tie goes to the side lower on the card (who came later).  A win pays
the card's values in order and sends the knights home; a loss pays from the second value on; a
first loss moves the card, knights and all, to the lower row; a second loss makes the knights
prisoners, whom their owners may ransom in player order for 1 gold per strength point
(``ransom``), the rest going to the reserve (``pass``).  An owner is asked even with too little
gold, so that nobody learns it.
A 2-player ally's rank pays nothing and its prisoners go straight to the reserve (LA-4).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.lancaster.data import CONFLICTS, colour_of, strength
from domain.games.lancaster.events import (
    CONFLICT_RESOLVED,
    CONFLICTS_PHASE,
    KNIGHT_RANSOMED,
    PRISONERS_LOST,
)
from domain.games.lancaster.state import (
    State,
    find_conflict,
    is_ally,
    order,
    seat_of,
    set_player,
)


def enter_conflicts(state: State) -> State:
    queue = tuple(c.n for c in state.lower) + tuple(c.n for c in state.upper)
    return replace(state, phase=CONFLICTS_PHASE, conflict_queue=queue)


def resolve(state: State) -> Event:
    """The outcome of the next conflict card in the queue."""
    n = state.conflict_queue[0]
    found = find_conflict(state, n)
    assert found is not None
    row, card = found
    strengths = [sum(strength(k) for k in stack) for stack in card.spaces]
    total = sum(strengths)
    france = CONFLICTS[n]["france"]
    won = bool(card.spaces) and total >= france
    values = CONFLICTS[n]["power"] if won else CONFLICTS[n]["power"][1:]
    ranked = sorted(range(len(card.spaces)), key=lambda i: (-strengths[i], -i))
    ranking: list[dict[str, Any]] = []
    power: dict[str, int] = {}
    for rank, i in enumerate(ranked):
        colour = colour_of(card.spaces[i][0])
        points = values[rank] if rank < len(values) else 0
        ranking.append({"colour": colour, "strength": strengths[i], "power": points})
        if points and not is_ally(state, colour):
            seat = str(seat_of(state, colour))
            power[seat] = power.get(seat, 0) + points
    outcome = "won" if won else ("first_loss" if row == "upper" else "second_loss")
    knights = [k for stack in card.spaces for k in stack]
    captured = outcome == "second_loss"
    data = {
        "conflict": n,
        "row": row,
        "strength": total,
        "france": france,
        "won": won,
        "outcome": outcome,
        "ranking": ranking,
        "power": power,
        "prisoners": [k for k in knights if captured and not is_ally(state, colour_of(k))],
        "to_reserve": [k for k in knights if captured and is_ally(state, colour_of(k))],
    }
    return Event(CONFLICT_RESOLVED, None, data)


def evolve_resolved(state: State, e: Event) -> State:
    d = e.data
    for s, points in d["power"].items():
        state = set_player(state, int(s), power=state.players[int(s)].power + points)
    row, card = find_conflict(state, d["conflict"]) or ("", None)
    assert card is not None
    rest = tuple(c for c in getattr(state, row) if c.n != card.n)
    changes: dict[str, Any] = {row: rest, "conflict_queue": state.conflict_queue[1:]}
    if d["outcome"] == "won":
        changes["court"] = state.court | {k for stack in card.spaces for k in stack}
    elif d["outcome"] == "first_loss":
        changes["lower"] = (*state.lower, card)
    else:
        changes["prisoners"] = (*state.prisoners, *d["prisoners"])
        changes["reserve"] = state.reserve | set(d["to_reserve"])
    return replace(state, **changes)


# --- prisoners --------------------------------------------------------------------------------


def ransom_seat(state: State) -> int | None:
    """The first seat in player order with prisoners still to ransom or give up."""
    owners = {seat_of(state, colour_of(k)) for k in state.prisoners}
    return next((s for s in order(state) if s in owners), None)


def _own_prisoners(state: State, seat: int) -> list[str]:
    return [k for k in state.prisoners if seat_of(state, colour_of(k)) == seat]


def ransom_options(state: State) -> list[dict[str, Any]]:
    seat = ransom_seat(state)
    if seat is None:
        return []
    gold = state.players[seat].gold
    return [
        {"type": "ransom", "knight": k} for k in _own_prisoners(state, seat) if strength(k) <= gold
    ]


def legal_ransom(state: State) -> list[dict[str, Any]]:
    """An owner with prisoners is always asked (gold is hidden): ``pass`` gives up the rest."""
    return [*ransom_options(state), {"type": "pass"}] if state.prisoners else []


def decide_ransom(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    if a not in ransom_options(state):
        raise IllegalAction(
            "LA-2.9", f"{a['knight']} is not your prisoner, or you lack the gold to ransom it"
        )
    k = a["knight"]
    return [Event(KNIGHT_RANSOMED, seat, {"knight": k, "gold": strength(k)})]


def prisoners_lost(state: State, seat: int) -> Event:
    return Event(PRISONERS_LOST, seat, {"knights": _own_prisoners(state, seat)})


def evolve_ransomed(state: State, e: Event) -> State:
    k = e.data["knight"]
    state = set_player(state, e.by, gold=state.players[e.by].gold - e.data["gold"])
    prisoners = tuple(p for p in state.prisoners if p != k)
    return replace(state, prisoners=prisoners, court=state.court | {k})


def evolve_lost(state: State, e: Event) -> State:
    lost = set(e.data["knights"])
    prisoners = tuple(p for p in state.prisoners if p not in lost)
    return replace(state, prisoners=prisoners, reserve=state.reserve | lost)
