"""Artus component data (``data.json``, copied unchanged from the shared rules) as constants.

The JSON is read once when the package is imported (package data, not game I/O).  Everything
else here is derived from it: seat values and zones by clockwise offset from the King (AR-1),
the crown seats and the princes on them (AR-2), the card catalogue (AR-4, AR-6) and the ids
of figures and cards (AR-9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.data import load

DATA: dict[str, Any] = load(__name__.rpartition(".")[0])

N_SEATS: int = DATA["seats"]
VALUES: tuple[int, ...] = tuple(DATA["value_by_clockwise_offset_from_king"])
assert len(VALUES) == N_SEATS


def _zones() -> tuple[str, ...]:
    zones = [""] * N_SEATS
    for name, (lo, hi) in DATA["colour_by_clockwise_offset"].items():
        for k in range(lo, hi + 1):
            zones[k] = name
    assert all(zones), "every offset has a colour"
    return tuple(zones)


ZONES: tuple[str, ...] = _zones()  # by clockwise offset from the King: crown/red/yellow/green
CARPET: tuple[int, ...] = tuple(sorted(DATA["carpet_seats"]))
CARPET_SET: frozenset[int] = frozenset(CARPET)
RINGS_TOTAL: int = DATA["rings_total"]
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
KNIGHTS_ON_TABLE: dict[int, int] = {int(k): v for k, v in DATA["knights_on_table"].items()}
RULES: tuple[str, ...] = ("basic", "advanced")
HAND: dict[str, dict[str, int]] = DATA["hand"]
ROUNDS: dict[str, int] = DATA["rounds"]
CARDS_PER_TURN: dict[str, int] = DATA["cards_per_turn"]
PILE_NAMES: tuple[str, ...] = ("knight", "king", "scoring")


def piles_used(rules: str) -> tuple[str, ...]:
    """Basic play leaves the scoring cards in the box (AR-2)."""
    return PILE_NAMES if rules == "advanced" else PILE_NAMES[:2]


def _princes() -> tuple[tuple[str, int], ...]:
    """(prince id, crown seat) in crown-seat order; the first is on the large crown."""
    count: dict[str, int] = {}
    out = []
    for crown in sorted(DATA["crown_seats"], key=lambda c: (not c.get("large", False), c["seat"])):
        metal = crown["metal"]
        count[metal] = count.get(metal, 0) + 1
        out.append((f"{metal}-{count[metal]}", crown["seat"]))
    return tuple(out)


PRINCE_SEATS: tuple[tuple[str, int], ...] = _princes()
PRINCES: tuple[str, ...] = tuple(sorted(p for p, _ in PRINCE_SEATS))
FIRST_KING: str = PRINCE_SEATS[0][0]
KING_RINGS = 3  # rings of the King; at this count a prince is crowned (AR-4.3)
METAL: dict[str, str] = {p: p.split("-")[0] for p in PRINCES}


@dataclass(frozen=True)
class Card:
    """One card of the catalogue (without colour): ``kind`` is knight, move, ring or scoring."""

    id: str
    pile: str
    kind: str
    min: int = 0
    max: int = 0
    backward: bool = False
    metals: tuple[str, ...] = ()
    penalty: int | None = None


def _catalogue() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for c in DATA["knight_cards"]:
        cards[c["id"]] = Card(
            c["id"], "knight", "knight", c["min"], c["max"], c.get("backward", False)
        )
    for c in DATA["king_cards"]:
        cards[c["id"]] = Card(
            c["id"],
            "king",
            c["type"],
            c.get("min", 0),
            c.get("max", 0),
            c.get("backward", False),
            tuple(c["metals"]),
        )
    for c in DATA["scoring_cards"]:
        cards[c["id"]] = Card(c["id"], "scoring", "scoring", penalty=c.get("penalty"))
    return cards


CARDS: dict[str, Card] = _catalogue()
PILE_CARDS: dict[str, tuple[str, ...]] = {
    pile: tuple(sorted(c.id for c in CARDS.values() if c.pile == pile)) for pile in PILE_NAMES
}


def card_id(colour: str, base: str) -> str:
    return f"{colour}/{base}"


def split_card(card: str) -> tuple[str, str]:
    """``("red", "K3-6")`` for ``"red/K3-6"``; ``("", "")`` for a string that is not a card id."""
    colour, sep, base = card.partition("/")
    if not sep or colour not in COLOUR_INDEX or base not in CARDS:
        return "", ""
    return colour, base


def knight_id(colour: str, n: int) -> str:
    return f"{colour}-k{n}"


def owner(figure: str) -> int | None:
    """The seat owning a knight (``"red-k2"`` -> 0); None for princes and unknown ids."""
    colour, sep, _ = figure.partition("-k")
    return COLOUR_INDEX.get(colour) if sep else None


def player_cards(seat: int, rules: str) -> dict[str, tuple[str, ...]]:
    """Every card of a seat's colour by pile (sorted), for the piles used by ``rules``."""
    colour = COLOURS[seat]
    return {p: tuple(sorted(card_id(colour, b) for b in PILE_CARDS[p])) for p in piles_used(rules)}
