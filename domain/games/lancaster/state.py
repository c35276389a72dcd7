"""The state of a Lancaster game (a tree of frozen dataclasses, see ``domain/codec.py``) and the
small board helpers every phase uses: who owns a knight, where it is, moving it, applying gains.

Each knight is in exactly one place: ``court``, ``reserve``, ``prisoners``, a county
(``counties``), a castle space (``castle``) or a conflict card's stack (``upper``/``lower``).
Hidden decks are stored as sorted tuples of what is left; their order exists nowhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from domain.frozen import replace
from domain.games.lancaster.data import (
    COLOUR_INDEX,
    COLOURS,
    SPACE_IDS,
    colour_of,
    knights_of,
    strength,
)


@dataclass(frozen=True)
class Occupant:
    """A knight in a county with the squires placed with it."""

    knight: str
    squires: int = 0


@dataclass(frozen=True)
class Vote:
    tile: str  # "yes" | "no"
    markers: int


@dataclass(frozen=True)
class Conflict:
    """A conflict card; ``spaces`` top to bottom, each the stack of one colour's knights."""

    n: int
    spaces: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Player:
    colour: str
    ally: str | None  # the ally colour (2 players) or None
    gold: int
    squires: int
    markers: int
    power: int = 0
    nobles: tuple[str, ...] = ()  # noble tiles at the table, sorted letters
    built: frozenset[str] = frozenset()  # castle spaces covered by an extension


@dataclass(frozen=True)
class State:
    n: int
    players: tuple[Player, ...]
    round: int
    # start | placement | vote | laws | counties | castle | conflicts | next_round | over
    phase: str
    start: int  # the start player
    court: frozenset[str]
    reserve: frozenset[str]
    prisoners: tuple[str, ...]
    counties: dict[str, Occupant]
    castle: dict[str, str]  # knight -> castle space (of its colour's castle)
    upper: tuple[Conflict, ...]
    lower: tuple[Conflict, ...]
    conflict_deck: tuple[int, ...]  # sorted, order hidden (drawn with rng.choice)
    noble_stock: dict[str, int]  # county letter -> noble tiles left on it
    favour_up: frozenset[str]  # face-up King's favour tiles
    conflict_knights: int  # knights placed into conflicts this round
    favour_due: str | None  # the conflict knight whose King's favour is to be taken
    law_deck: tuple[tuple[str, ...], ...]  # per group, sorted; group order is public
    current: tuple[str, ...]  # current laws, left to right
    debate: tuple[str, ...]  # laws under debate still to be voted, left to right
    votes: dict[int, Vote]  # committed votes on debate[0] (secret until the reveal)
    turn: int | None  # placement: the seat to place
    law_pos: int  # laws: index of the current law taking effect
    law_queue: tuple[int, ...] | None  # seats still to decide on that law (None: not opened)
    county_pos: int  # counties: index into LETTERS
    surrey: int | None  # the seat to choose the start player
    castle_pos: int  # castle: index into the player order
    castle_taken: frozenset[str]  # sources taken by the current castle player
    castle_passed: bool
    conflict_queue: tuple[int, ...]  # conflict cards still to resolve, in order


# --- seats, colours, order ------------------------------------------------------------------


def colours_in_play(n: int) -> tuple[str, ...]:
    """Player colours, then (2 players) the allies' colours: seat s runs ``COLOURS[2 + s]``."""
    return COLOURS[:4] if n == 2 else COLOURS[:n]


def _index(colour: str) -> int:
    i = COLOUR_INDEX.get(colour)
    return COLOURS.index(colour) if i is None else i


def seat_of(state: State, colour: str) -> int:
    return _index(colour) % state.n


def is_ally(state: State, colour: str) -> bool:
    return _index(colour) >= state.n


def sides(state: State, seat: int) -> tuple[str, ...]:
    """The colours a seat places: its own and (2 players) its ally's."""
    p = state.players[seat]
    return (p.colour,) if p.ally is None else (p.colour, p.ally)


_ORDERS: dict[tuple[int, int], tuple[int, ...]] = {
    (n, start): tuple((start + i) % n for i in range(n)) for n in range(1, 6) for start in range(n)
}


def order(state: State) -> tuple[int, ...]:
    """Player order, clockwise from the start player."""
    hit = _ORDERS.get((state.n, state.start))
    return tuple((state.start + i) % state.n for i in range(state.n)) if hit is None else hit


def all_knights(state: State) -> tuple[str, ...]:
    return tuple(k for c in colours_in_play(state.n) for k in knights_of(c))


# --- where knights are ------------------------------------------------------------------------


def conflicts(state: State) -> Iterator[tuple[str, Conflict]]:
    for c in state.lower:
        yield "lower", c
    for c in state.upper:
        yield "upper", c


def find_conflict(state: State, n: int) -> tuple[str, Conflict] | None:
    for row, c in conflicts(state):
        if c.n == n:
            return row, c
    return None


def space_of(card: Conflict, colour: str) -> int | None:
    for i, stack in enumerate(card.spaces):
        if colour_of(stack[0]) == colour:
            return i
    return None


def location(state: State, knight: str) -> str:
    """``court``, ``reserve``, ``prison``, ``county:A``, ``castle:chapel`` or ``conflict:7``."""
    if knight in state.court:
        return "court"
    if knight in state.reserve:
        return "reserve"
    if knight in state.prisoners:
        return "prison"
    if knight in state.castle:
        return f"castle:{state.castle[knight]}"
    for letter, occ in state.counties.items():
        if occ.knight == knight:
            return f"county:{letter}"
    for _, card in conflicts(state):
        if any(knight in stack for stack in card.spaces):
            return f"conflict:{card.n}"
    return "nowhere"


def deployed(state: State, colour: str) -> list[str]:
    """The colour's knights on the board: counties, castle, conflicts (not court or reserve)."""
    out = [o.knight for o in state.counties.values() if colour_of(o.knight) == colour]
    out += [k for k in state.castle if colour_of(k) == colour]
    for _, card in conflicts(state):
        i = space_of(card, colour)
        if i is not None:
            out += card.spaces[i]
    return sorted(out)


def conflicts_joined(state: State, colour: str) -> int:
    return sum(1 for _, card in conflicts(state) if space_of(card, colour) is not None)


def counties_held(state: State, colour: str) -> int:
    return sum(1 for o in state.counties.values() if colour_of(o.knight) == colour)


def castle_free(state: State, colour: str) -> list[str]:
    """Empty spaces of a colour's castle (a built extension counts as occupied, LA-2.2)."""
    taken = {sp for k, sp in state.castle.items() if colour_of(k) == colour}
    if not is_ally(state, colour):
        taken |= state.players[seat_of(state, colour)].built
    return [sp for sp in SPACE_IDS if sp not in taken]


# --- knights moving ------------------------------------------------------------------------


def upgrade_target(state: State, knight: str) -> str | None:
    """The reserve knight of the same colour and strength + 1 (first by name), if any."""
    colour, s = colour_of(knight), strength(knight) + 1
    for k in knights_of(colour):
        if strength(k) == s and k in state.reserve:
            return k
    return None


def upgradable(state: State, colour: str, only_deployed: bool = False) -> list[str]:
    """Knights of a colour that can be upgraded (not in the reserve, nor prisoners)."""
    pool = deployed(state, colour)
    if not only_deployed:
        pool += [k for k in state.court if colour_of(k) == colour]
    # ``upgrade_target(k) is not None``: a reserve knight of k's colour one stronger
    spare = {strength(k) for k in knights_of(colour) if k in state.reserve}
    return sorted(k for k in pool if strength(k) + 1 in spare)


def weakest_reserve(
    state: State, colour: str, count: int = 1, exact: int | None = None
) -> list[str]:
    """New knights come from the reserve weakest first (``exact``: only that strength)."""
    pool = [
        k
        for k in knights_of(colour)
        if k in state.reserve and (exact is None or strength(k) == exact)
    ]
    return sorted(pool, key=lambda k: (strength(k), k))[:count]


def swap_knight(state: State, old: str, new: str) -> State:
    """``new`` (from the reserve) takes ``old``'s place; ``old`` goes to the reserve."""
    changes: dict[str, Any] = {"reserve": (state.reserve - {new}) | {old}}
    if old in state.court:
        changes["court"] = (state.court - {old}) | {new}
    elif old in state.castle:
        castle = dict(state.castle)
        castle[new] = castle.pop(old)
        changes["castle"] = castle
    else:
        for letter, occ in state.counties.items():
            if occ.knight == old:
                changes["counties"] = {**state.counties, letter: replace(occ, knight=new)}
                break
        else:
            for row in ("upper", "lower"):
                cards = getattr(state, row)
                changed = tuple(_swap_in_card(c, old, new) for c in cards)
                if changed != cards:
                    changes[row] = changed
    return replace(state, **changes)


def _swap_in_card(card: Conflict, old: str, new: str) -> Conflict:
    if not any(old in stack for stack in card.spaces):
        return card
    spaces = tuple(tuple(new if k == old else k for k in stack) for stack in card.spaces)
    return replace(card, spaces=spaces)


def set_player(state: State, seat: int, **changes: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def apply_gains(state: State, seat: int, gains: Mapping[str, Any]) -> State:
    """Apply a gains record (the shape every reward event carries) to a seat.

    Keys (all optional): ``gold``, ``squires``, ``markers``, ``power`` (deltas, negative for
    payments), ``upgrade`` ([old, new] knight ids), ``recruit`` (knights from reserve to court),
    ``build`` (castle spaces extended), ``noble`` (a letter taken to the table),
    ``noble_removed`` (a letter whose tile leaves the game: a King's favour or county noble
    taken by a 2-player ally).
    """
    if not gains:
        return state
    p = state.players[seat]
    nobles = p.nobles
    stock = state.noble_stock
    for key in ("noble", "noble_removed"):
        letter = gains.get(key)
        if letter is not None:
            stock = {**stock, letter: stock[letter] - 1}
            if key == "noble":
                nobles = tuple(sorted((*nobles, letter)))
    players = list(state.players)
    players[seat] = replace(
        p,
        gold=p.gold + gains.get("gold", 0),
        squires=p.squires + gains.get("squires", 0),
        markers=p.markers + gains.get("markers", 0),
        power=p.power + gains.get("power", 0),
        nobles=nobles,
        built=p.built | frozenset(gains.get("build", ())),
    )
    state = replace(state, players=tuple(players), noble_stock=stock)
    if "upgrade" in gains:
        old, new = gains["upgrade"]
        state = swap_knight(state, old, new)
    recruits = gains.get("recruit", ())
    if recruits:
        state = replace(
            state, reserve=state.reserve - set(recruits), court=state.court | set(recruits)
        )
    return state
