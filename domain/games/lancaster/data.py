"""Lancaster component data (``data.json``, copied unchanged from the shared rules) as constants.

Also the naming of knights: ``<colour>-<strength><letter>``, the letter only where a colour has
several knights of that strength (``red-1a``, ``red-1b``, ``red-1c``, ``red-2a``, ``red-2b``,
``red-3``, ``red-4``).  A knight's strength and colour are read from its id.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.data import load

DATA: dict[str, Any] = load(__name__.rpartition(".")[0])

ROUNDS: int = DATA["rounds"]
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
START: dict[str, Any] = DATA["start"]
BOTH_COST: int = DATA["both_rewards_cost_gold"]

COUNTIES: dict[str, dict[str, Any]] = {c["letter"]: c for c in DATA["counties"]}
LETTERS: tuple[str, ...] = tuple(COUNTIES)
SURREY = "I"

LAWS: dict[str, dict[str, Any]] = {law["id"]: law for law in DATA["laws"]}
LAW_GROUPS: tuple[tuple[str, ...], ...] = tuple(
    tuple(sorted((i for i, law in LAWS.items() if law["group"] == g), key=lambda i: int(i[1:])))
    for g in range(max(law["group"] for law in LAWS.values()) + 1)
)

CONFLICT_SPACES: int = DATA["conflicts"]["spaces"]
CONFLICTS: dict[int, dict[str, Any]] = {c["n"]: c for c in DATA["conflicts"]["cards"]}

FAVOURS: dict[str, dict[str, Any]] = {f["id"]: f for f in DATA["kings_favour"]}
FAVOUR_LIMIT = 6  # the first six knights placed into conflicts in a round (LA-2.3)

SPACES: dict[str, dict[str, int]] = {s["id"]: s["reward"] for s in DATA["castle_spaces"]}
SPACE_IDS: tuple[str, ...] = tuple(SPACES)

NOBLE_POINTS: dict[int, int] = {
    int(k): v for k, v in DATA["end_scoring"]["nobles_at_table"].items()
}
STRENGTH_AWARDS: tuple[int, ...] = tuple(DATA["end_scoring"]["knight_strength"]["awards"])
EXTENSION_AWARDS: tuple[int, ...] = tuple(DATA["end_scoring"]["extensions"]["awards"])
FIRST_SPLIT = 12  # tied first places split this (LA-3)
SECOND_SPLIT = 4  # tied second places split this (LA-3)


def _suffixes(strengths: list[int]) -> tuple[str, ...]:
    counts = Counter(strengths)
    seen: Counter[int] = Counter()
    out = []
    for s in strengths:
        letter = "abcdefgh"[seen[s]] if counts[s] > 1 else ""
        seen[s] += 1
        out.append(f"{s}{letter}")
    return tuple(out)


KNIGHT_SUFFIXES: tuple[str, ...] = _suffixes(DATA["knights"])
START_COURT: tuple[int, ...] = tuple(START["court"])
ALLY_COURT: tuple[int, ...] = (2,)  # LA-4: the ally starts with its strength-2 knight at court


def _knights(colour: str) -> tuple[str, ...]:
    return tuple(f"{colour}-{s}" for s in KNIGHT_SUFFIXES)


# The search asks these millions of times per move: the answers for every real knight are
# looked up; anything else (an id from a player's action) is still parsed, with the same
# errors as before.
_KNIGHTS: dict[str, tuple[str, ...]] = {c: _knights(c) for c in COLOURS}
_COLOUR: dict[str, str] = {k: c for c, ks in _KNIGHTS.items() for k in ks}
_STRENGTH: dict[str, int] = {k: int(k[k.index("-") + 1]) for k in _COLOUR}
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}


def knights_of(colour: str) -> tuple[str, ...]:
    hit = _KNIGHTS.get(colour)
    return _knights(colour) if hit is None else hit


def strength(knight: str) -> int:
    hit = _STRENGTH.get(knight)
    return int(knight[knight.index("-") + 1]) if hit is None else hit


def colour_of(knight: str) -> str:
    hit = _COLOUR.get(knight)
    return knight[: knight.index("-")] if hit is None else hit


def start_court(colour: str, ally: bool) -> tuple[str, ...]:
    """The first knight of each starting strength (``red-1a``, ``red-2a``; ally: ``green-2a``)."""
    wanted = list(ALLY_COURT if ally else START_COURT)
    out = []
    for k in knights_of(colour):
        if strength(k) in wanted:
            wanted.remove(strength(k))
            out.append(k)
    return tuple(out)
