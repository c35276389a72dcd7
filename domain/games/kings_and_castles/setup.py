"""Set-up (KC-2): colours and seats, the initial state, the enemy placement, crown placement."""

from __future__ import annotations

from domain.engine import Config, Event
from domain.games.kings_and_castles.data import (
    COLOURS,
    ENEMY_POOL,
    ROUEN,
    SHORT_SQUARES,
    TERRITORIES,
    TRACK,
    colour_counters,
    ordered,
)
from domain.games.kings_and_castles.events import ENEMIES_PLACED, SETUP
from domain.games.kings_and_castles.state import RULES_VERSION, State
from domain.rng import Rng


def seating(players: int) -> tuple[tuple[str, ...], dict[str, int]]:
    """Colours in play order and their seats (KC-1, KC-2 variants).

    2 players: seat 0 green + pink, seat 1 blue + teal; play order green, blue, pink, teal so
    that each seat alternates its two colours.  3 players: green, blue, teal.  4: all four.
    """
    if players == 2:
        return ("green", "blue", "pink", "teal"), {"green": 0, "blue": 1, "pink": 0, "teal": 1}
    order = COLOURS[:players]
    return order, {c: i for i, c in enumerate(order)}


def initial(config: Config) -> State:
    length = config.options.get("length", "full")
    colours, owners = seating(config.n)
    households: dict[str, frozenset[str]] = {}
    bag: set[str] = set(ENEMY_POOL)
    for colour in colours:
        home, rest = colour_counters(colour, length)
        households[colour] = frozenset(home)
        bag.update(rest)
    return State(
        players=config.n,
        length=length,
        colours=colours,
        owners=owners,
        last_square=SHORT_SQUARES if length == "short" else len(TRACK),
        phase=SETUP,
        step=0,
        square=0,
        crowns={},
        turned=frozenset(),
        territories=dict.fromkeys(TERRITORIES),
        castles={},
        armies={c: frozenset() for c in colours},
        households=households,
        bag=frozenset(bag),
        destroyed=frozenset(),
        tax_markers=dict.fromkeys(colours, 2 if length == "short" else 3),
        money=dict.fromkeys(colours, 0),
        countries_attacked=(),
        other_country=None,
        rules_version=RULES_VERSION if config.rules_version is None else config.rules_version,
    )


def setup(config: Config, rng: Rng) -> list[Event]:
    """KC-2 step 2: a random enemy unit in every territory but Rouen; the rest stay in the bag."""
    pool = ordered(ENEMY_POOL)
    placements: dict[str, str] = {}
    for name in TERRITORIES:
        if name != ROUEN:
            placements[name] = pool.pop(rng.below(len(pool)))
    return [Event(ENEMIES_PLACED, None, {"placements": placements})]


def crown_squares(state: State, colour: str) -> list[int]:
    """Squares where ``colour``'s next crown may go (KC-2 step 5 and the 2-player fallbacks).

    Not next to a square holding a crown of the placing player (either colour); failing that,
    not next to one of this colour; failing that, any empty square.  Squares i and i+1 are
    adjacent; with one colour per player the first two tiers coincide.
    """
    empty = [s for s in range(1, state.last_square + 1) if s not in state.crowns]
    seat = state.owners[colour]
    mine = frozenset(c for c in state.colours if state.owners[c] == seat)
    for avoid in (mine, frozenset({colour})):
        ok = [
            s
            for s in empty
            if state.crowns.get(s - 1) not in avoid and state.crowns.get(s + 1) not in avoid
        ]
        if ok:
            return ok
    return empty
