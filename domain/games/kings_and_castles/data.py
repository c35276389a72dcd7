"""The printed components (KC-1): map, succession track and counters, read once from data.json.

Everything here is constant.  A counter id is ``<colour>-<kind>-<n>``; for units ``n`` is an index,
for mercenaries and castles it is the value (KC-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.data import load

DATA: dict[str, Any] = load(__name__.rpartition(".")[0])

COLOURS: tuple[str, ...] = tuple(DATA["colours"])  # green, blue, teal, pink
ENEMY: str = DATA["enemy_colour"]  # black
UNIT_KINDS: tuple[str, ...] = ("knight", "men_at_arms", "archers")
KINDS: tuple[str, ...] = (*UNIT_KINDS, "mercenary", "castle")
UNIT_VALUE: dict[str, int] = dict(DATA["unit_values"])
ARMY_SIZE: int = DATA["army_size"]
SHORT_SQUARES: int = DATA["short_game_squares"]


@dataclass(frozen=True)
class Territory:
    name: str
    country: str
    town_value: int
    port_or_gate: bool
    flag: bool
    adjacent: frozenset[str]


@dataclass(frozen=True)
class Square:
    number: int
    king: str
    bonus: int
    country: str


@dataclass(frozen=True)
class Counter:
    id: str
    colour: str
    kind: str
    n: int
    value: int

    @property
    def is_unit(self) -> bool:
        return self.kind in UNIT_VALUE

    @property
    def is_enemy(self) -> bool:
        return self.colour == ENEMY


TERRITORIES: dict[str, Territory] = {
    name: Territory(
        name,
        country,
        t["town_value"],
        bool(t["port"] or t["gate"]),
        bool(t["flag"]),
        frozenset(t["adjacent"]),
    )
    for country, territories in DATA["countries"].items()
    for name, t in territories.items()
}
COUNTRIES: dict[str, tuple[str, ...]] = {
    country: tuple(territories) for country, territories in DATA["countries"].items()
}
TRACK: dict[int, Square] = {
    s["square"]: Square(s["square"], s["king"], s["bonus"], s["must_attack"])
    for s in DATA["succession"]
}
ROUEN = "Rouen"


def _counter(colour: str, kind: str, n: int) -> Counter:
    value = UNIT_VALUE.get(kind, n)
    return Counter(f"{colour}-{kind}-{n}", colour, kind, n, value)


def _colour_set(colour: str) -> list[Counter]:
    total = DATA["per_colour"]["total"]
    out = [_counter(colour, k, i) for k in UNIT_KINDS for i in range(1, total[k] + 1)]
    out += [_counter(colour, "mercenary", v) for v in total["mercenary"]]
    out += [_counter(colour, "castle", v) for v in total["castle"]]
    return out


_ENEMY_SET = [
    _counter(ENEMY, k, i) for k in UNIT_KINDS for i in range(1, DATA["enemy_pool"][k] + 1)
]
COUNTERS: dict[str, Counter] = {
    c.id: c for c in [*(c for col in COLOURS for c in _colour_set(col)), *_ENEMY_SET]
}
ENEMY_POOL: tuple[str, ...] = tuple(c.id for c in _ENEMY_SET)
_COLOUR_RANK = {c: i for i, c in enumerate((*COLOURS, ENEMY))}
_KIND_RANK = {k: i for i, k in enumerate(KINDS)}


def sort_key(counter_id: str) -> tuple[int, int, int]:
    """Colour, kind, number: the lowest id of interchangeable counters comes first."""
    c = COUNTERS[counter_id]
    return (_COLOUR_RANK[c.colour], _KIND_RANK[c.kind], c.n)


def ordered(ids: Any) -> list[str]:
    return sorted(ids, key=sort_key)


def colour_counters(colour: str, length: str) -> tuple[list[str], list[str]]:
    """(household, bag) ids of one colour at set-up (KC-2): the lowest-numbered units stay home."""
    household = DATA["per_colour"][length]["household"]
    home: list[str] = []
    bag: list[str] = []
    for c in _colour_set(colour):
        (home if c.is_unit and c.n <= household[c.kind] else bag).append(c.id)
    return home, bag
