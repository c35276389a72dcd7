"""Phase 1, placement (LA-2.1 counties, LA-2.2 castles, LA-2.3 conflicts and the King's favour).

Each function pair: ``legal_*`` lists the legal actions, ``decide_*`` checks one and returns
its events; ``evolve_*`` applies them.  Turns pass clockwise from the start player to the next
seat that can place a knight (own or, with 2 players, its ally's); the phase ends when none can.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.lancaster.data import (
    CONFLICT_SPACES,
    COUNTIES,
    FAVOUR_LIMIT,
    FAVOURS,
    LETTERS,
    colour_of,
    strength,
)
from domain.games.lancaster.events import (
    FAVOUR_TAKEN,
    KNIGHT_PLACED_IN_CASTLE,
    KNIGHT_PLACED_IN_CONFLICT,
    KNIGHT_PLACED_IN_COUNTY,
    PLACEMENT_PHASE,
    VOTE_PHASE,
)
from domain.games.lancaster.state import (
    Occupant,
    State,
    apply_gains,
    castle_free,
    conflicts,
    find_conflict,
    is_ally,
    order,
    seat_of,
    set_player,
    sides,
    space_of,
    upgradable,
    upgrade_target,
)

_MINIMUMS: tuple[tuple[str, int], ...] = tuple((L, COUNTIES[L]["min"]) for L in LETTERS)

# --- whose turn -------------------------------------------------------------------------------


def _court_of(state: State, colour: str) -> list[str]:
    return sorted(k for k in state.court if colour_of(k) == colour)


def _county_total(occ: Occupant) -> int:
    return strength(occ.knight) + occ.squires


def can_place(state: State, seat: int) -> bool:
    """Whether ``_placements`` lists anything, without building the actions (every turn asks
    this of the seats that follow)."""
    top = state.players[seat].squires
    for colour in sides(state, seat):
        court = [k for k in state.court if colour_of(k) == colour]
        if not court:
            continue
        if castle_free(state, colour) or any(
            space_of(c, colour) is not None or len(c.spaces) < CONFLICT_SPACES
            for _, c in conflicts(state)
        ):
            return True
        squires = 0 if is_ally(state, colour) else top
        for k in court:
            s = strength(k)
            for letter, minimum in _MINIMUMS:
                if s < minimum:
                    continue
                occ = state.counties.get(letter)
                if occ is None:
                    return True
                if seat_of(state, colour_of(occ.knight)) != seat and (
                    _county_total(occ) + 1 - s <= squires
                ):
                    return True
    return False


def start_placement(state: State) -> State:
    """Phase 1 begins with the start player (or the first after it that can place)."""
    return _advance(replace(state, phase=PLACEMENT_PHASE, turn=None))


def _advance(state: State) -> State:
    """Pass the turn to the next seat that can place; none: on to the parliament."""
    seq = order(state)
    i = seq.index(state.turn) if state.turn is not None else -1
    for j in range(1, state.n + 1):
        s = seq[(i + j) % state.n]
        if can_place(state, s):
            return replace(state, turn=s)
    return replace(state, turn=None, phase=VOTE_PHASE, votes={})


# --- legal actions ----------------------------------------------------------------------------


def _placements(state: State, seat: int) -> Iterator[dict[str, Any]]:
    """Every legal placement, lazily (``can_place`` stops at the first)."""
    own_squires = state.players[seat].squires
    for colour in sides(state, seat):
        court = _court_of(state, colour)
        if not court:
            continue
        top = 0 if is_ally(state, colour) else own_squires
        free = castle_free(state, colour)
        cards = [
            c.n
            for _, c in conflicts(state)
            if space_of(c, colour) is not None or len(c.spaces) < CONFLICT_SPACES
        ]
        for k in court:
            s = strength(k)
            for letter, minimum in _MINIMUMS:
                if s < minimum:
                    continue
                need = 0
                occ = state.counties.get(letter)
                if occ is not None:
                    if seat_of(state, colour_of(occ.knight)) == seat:
                        continue  # never expel your own (or your ally's) knight
                    need = max(0, _county_total(occ) + 1 - s)
                for sq in range(need, top + 1):
                    yield {"type": "place_county", "knight": k, "county": letter, "squires": sq}
            for sp in free:
                yield {"type": "place_castle", "knight": k, "space": sp}
            for n in cards:
                yield {"type": "place_conflict", "knight": k, "conflict": n}


def legal_placements(state: State, seat: int) -> list[dict[str, Any]]:
    return list(_placements(state, seat))


def favour_options(state: State, tile: str) -> list[dict[str, Any]]:
    """The ways to take a face-up tile for the knight owed a favour (extra fields only)."""
    assert state.favour_due is not None
    colour = colour_of(state.favour_due)
    seat = seat_of(state, colour)
    ally = is_ally(state, colour)
    kind = FAVOURS[tile]["reward"]
    opts: list[dict[str, Any]]
    if kind == "upgrade":
        opts = [{"knight": k} for k in upgradable(state, colour)]
    elif kind == "gold_or_squires":
        amount = FAVOURS[tile]["amount"]
        opts = (
            []
            if ally
            else [{"goods": {"gold": g, "squires": amount - g}} for g in range(amount + 1)]
        )
    else:
        held = () if ally else state.players[seat].nobles
        opts = [{"noble": L} for L in LETTERS if state.noble_stock[L] > 0 and L not in held]
    return opts or [{}]  # nothing usable: the tile is taken for nothing


def legal_favours(state: State) -> list[dict[str, Any]]:
    return [
        {"type": "take_favour", "tile": t, **opt}
        for t in sorted(state.favour_up)
        for opt in favour_options(state, t)
    ]


# --- decide -----------------------------------------------------------------------------------


def _from_court(state: State, seat: int, knight: str, rule: str) -> str:
    if knight not in state.court or colour_of(knight) not in sides(state, seat):
        raise IllegalAction(rule, f"{knight} is not a knight at your court")
    return colour_of(knight)


def decide_county(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    knight, letter, squires = a["knight"], a["county"], a.get("squires", 0)
    colour = _from_court(state, seat, knight, "LA-2.1")
    if letter not in COUNTIES:
        raise IllegalAction("LA-2.1", f"no county {letter!r}; counties are A-I")
    if squires and is_ally(state, colour):
        raise IllegalAction("LA-4", "ally knights go to counties without squires")
    if not 0 <= squires <= state.players[seat].squires:
        raise IllegalAction("LA-2.1", f"you cannot add {squires} squires")
    minimum = COUNTIES[letter]["min"]
    if strength(knight) < minimum:
        raise IllegalAction(
            "LA-2.1",
            f"{knight} has strength {strength(knight)}, below {letter}'s minimum {minimum}; "
            "squires do not count towards the minimum",
        )
    data: dict[str, Any] = {"knight": knight, "county": letter, "squires": squires}
    occ = state.counties.get(letter)
    if occ is not None:
        if seat_of(state, colour_of(occ.knight)) == seat:
            rule = "LA-4" if state.n == 2 else "LA-2.1"
            raise IllegalAction(rule, f"you may not expel your own knight {occ.knight}")
        if strength(knight) + squires <= _county_total(occ):
            raise IllegalAction(
                "LA-2.1",
                f"strength {strength(knight) + squires} does not exceed the occupant's "
                f"{_county_total(occ)}",
            )
        data["expelled"] = occ.knight
        data["expelled_squires"] = occ.squires
    return [Event(KNIGHT_PLACED_IN_COUNTY, seat, data)]


def decide_castle(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    knight, space = a["knight"], a["space"]
    colour = _from_court(state, seat, knight, "LA-2.2")
    if space not in castle_free(state, colour):
        raise IllegalAction("LA-2.2", f"castle space {space!r} is not free for {colour}")
    return [Event(KNIGHT_PLACED_IN_CASTLE, seat, {"knight": knight, "space": space})]


def decide_conflict(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    knight, n = a["knight"], a["conflict"]
    colour = _from_court(state, seat, knight, "LA-2.3")
    found = find_conflict(state, n)
    if found is None:
        raise IllegalAction("LA-2.3", f"conflict {n} is not on the board")
    card = found[1]
    i = space_of(card, colour)
    if i is None:
        if len(card.spaces) >= CONFLICT_SPACES:
            raise IllegalAction("LA-2.3", f"conflict {n} has no free space")
        i = len(card.spaces)
    favour = state.conflict_knights < FAVOUR_LIMIT and bool(state.favour_up)
    data = {"knight": knight, "conflict": n, "space": i, "favour": favour}
    return [Event(KNIGHT_PLACED_IN_CONFLICT, seat, data)]


def decide_favour(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    due = state.favour_due
    if due is None or seat_of(state, colour_of(due)) != seat:
        raise IllegalAction(
            "LA-2.3", "no King's favour is owed: only the first 6 conflict knights take one"
        )
    tile = a["tile"]
    if tile not in state.favour_up:
        raise IllegalAction("LA-2.3", f"King's favour tile {tile!r} is not face up")
    extra = {k: a[k] for k in ("knight", "noble", "goods") if k in a}
    if extra not in favour_options(state, tile):
        raise IllegalAction(
            "LA-2.3", f"{tile} cannot be taken with {extra or 'no choice'} for {due}"
        )
    colour = colour_of(due)
    gains: dict[str, Any] = {}
    if "knight" in extra:
        gains["upgrade"] = [extra["knight"], upgrade_target(state, extra["knight"])]
    elif "goods" in extra:
        gains = {k: v for k, v in extra["goods"].items() if v}
    elif "noble" in extra:
        gains["noble_removed" if is_ally(state, colour) else "noble"] = extra["noble"]
    return [Event(FAVOUR_TAKEN, seat, {"tile": tile, "knight": due, "gains": gains})]


# --- evolve -----------------------------------------------------------------------------------


def evolve_county(state: State, e: Event) -> State:
    d = e.data
    court = state.court - {d["knight"]}
    if "expelled" in d:
        court |= {d["expelled"]}
    counties = {**state.counties, d["county"]: Occupant(d["knight"], d["squires"])}
    state = replace(state, court=court, counties=counties)
    if d["squires"]:
        state = set_player(state, e.by, squires=state.players[e.by].squires - d["squires"])
    return _advance(state)


def evolve_castle(state: State, e: Event) -> State:
    d = e.data
    castle = {**state.castle, d["knight"]: d["space"]}
    return _advance(replace(state, court=state.court - {d["knight"]}, castle=castle))


def evolve_conflict(state: State, e: Event) -> State:
    d = e.data
    knight, n, i = d["knight"], d["conflict"], d["space"]
    rows = {}
    for row in ("upper", "lower"):
        cards = []
        for c in getattr(state, row):
            if c.n == n:
                spaces = list(c.spaces)
                spaces[i : i + 1] = [(*spaces[i], knight)] if i < len(spaces) else [(knight,)]
                c = replace(c, spaces=tuple(spaces))
            cards.append(c)
        rows[row] = tuple(cards)
    state = replace(
        state,
        court=state.court - {knight},
        conflict_knights=state.conflict_knights + 1,
        **rows,
    )
    return replace(state, favour_due=knight) if d["favour"] else _advance(state)


def evolve_favour(state: State, e: Event) -> State:
    state = replace(state, favour_up=state.favour_up - {e.data["tile"]}, favour_due=None)
    return _advance(apply_gains(state, e.by, e.data["gains"]))
