"""Hand-made Lancaster positions for the rule scenarios."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.engine import Config, Event, Player
from domain.games.lancaster import GAME, rules
from domain.games.lancaster.data import colour_of
from domain.games.lancaster.state import Conflict, Occupant, State, set_player
from domain.rng import Rng


def config(n: int) -> Config:
    return Config("lancaster", {}, tuple(Player(f"p{i}") for i in range(n)))


def started(
    n: int = 3,
    current: tuple[str, ...] = ("L3", "L11", "L13"),
    debate: tuple[str, ...] = ("L4", "L2", "L5"),
    conflicts: tuple[int, ...] = (1, 4),
    ext: str = "chapel",
) -> State:
    """A game after set-up and the start extensions (every player built ``ext``)."""
    s = GAME.initial(config(n))
    data = {
        "current": list(current),
        "debate": list(debate),
        "conflicts": list(conflicts),
        "removed_conflicts": [],
        "favours": sorted(s.favour_up),
    }
    s = GAME.evolve(s, Event("GameSetUp", None, data))
    for seat in range(n):
        s = GAME.evolve(s, Event("StartExtensionBuilt", seat, {"space": ext}))
    return s


def settle(state: State, seed: str = "t") -> tuple[State, list]:
    return rules.advance(state, Rng.at(seed, 1))


def types(events: list) -> list[str]:
    return [e.type for e in events]


def _lift(state: State, knights: tuple[str, ...]) -> State:
    """Take knights off wherever they are (court or reserve)."""
    gone = set(knights)
    return replace(state, court=state.court - gone, reserve=state.reserve - gone)


def court(state: State, *knights: str) -> State:
    """Bring knights from the reserve to court."""
    return replace(_lift(state, knights), court=state.court | set(knights))


def only_court(state: State, *knights: str) -> State:
    """Exactly these knights at court (the others of their colours go to the reserve)."""
    colours = {colour_of(k) for k in knights}
    send = {k for k in state.court if colour_of(k) in colours and k not in knights}
    state = replace(state, court=state.court - send, reserve=state.reserve | send)
    return court(state, *knights)


def in_county(state: State, letter: str, knight: str, squires: int = 0) -> State:
    state = _lift(state, (knight,))
    return replace(state, counties={**state.counties, letter: Occupant(knight, squires)})


def in_castle(state: State, knight: str, space: str) -> State:
    state = _lift(state, (knight,))
    return replace(state, castle={**state.castle, knight: space})


def in_conflict(state: State, n: int, *stacks: tuple[str, ...], row: str = "upper") -> State:
    """Conflict card ``n`` in ``row`` with these stacks (top to bottom); other cards kept."""
    knights = tuple(k for st in stacks for k in st)
    state = _lift(state, knights)
    card = Conflict(n, tuple(tuple(st) for st in stacks))
    upper = tuple(c for c in state.upper if c.n != n)
    lower = tuple(c for c in state.lower if c.n != n)
    if row == "upper":
        upper = (*upper, card)
    else:
        lower = (*lower, card)
    return replace(state, upper=upper, lower=lower)


def player(state: State, seat: int, **changes: Any) -> State:
    return set_player(state, seat, **changes)
