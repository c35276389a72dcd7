"""The public board of Artus and the pure resolution of a card on it (AR-1, AR-4, AR-5, AR-6).

``Board`` holds only public facts (seat occupancy, the King, rings, scores), so a bot can
rebuild it from its view (``board_from_view``) and call ``resolve`` to evaluate an action.
``resolve`` assumes an action already checked by ``actions.check_play``; it returns the outcome
that the ``CardPlayed`` event records, and ``apply`` folds such an outcome into a board without
recomputing anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from domain.games.artus.data import (
    CARDS,
    KING_RINGS,
    N_SEATS,
    PRINCES,
    RINGS_TOTAL,
    VALUES,
    ZONES,
    owner,
    split_card,
)

T = TypeVar("T")


def put(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of ``items`` with ``items[index]`` replaced."""
    return (*items[:index], value, *items[index + 1 :])


@dataclass(frozen=True)
class Board:
    seats: tuple[str | None, ...]  # 29 seats clockwise: figure id or None
    king: str  # the prince who is King (the crown plate of the tabletop is at his seat)
    rings: dict[str, int]  # rings per prince figure, the King included
    scores: tuple[int, ...]  # per seat index (player)

    def king_seat(self) -> int:
        return self.seats.index(self.king)

    def value(self, seat: int) -> int:
        """Current value of a seat (AR-1): by clockwise offset from the King."""
        return VALUES[(seat - self.seats.index(self.king)) % N_SEATS]

    def zone(self, seat: int) -> str:
        return ZONES[(seat - self.seats.index(self.king)) % N_SEATS]

    def values(self) -> list[int]:
        ks = self.seats.index(self.king)
        return [VALUES[(s - ks) % N_SEATS] for s in range(N_SEATS)]

    def zones(self) -> list[str]:
        ks = self.seats.index(self.king)
        return [ZONES[(s - ks) % N_SEATS] for s in range(N_SEATS)]

    def supply(self) -> int:
        return RINGS_TOTAL - sum(self.rings.values())

    def princes(self) -> list[str]:
        """Princes that are not King (sorted)."""
        return [p for p in PRINCES if p != self.king]

    def knights_of(self, player: int) -> list[tuple[str, int]]:
        """``(knight, seat)`` of a player's knights on the table, sorted by knight id."""
        return sorted(
            (f, s) for s, f in enumerate(self.seats) if f is not None and owner(f) == player
        )


def board_from_view(view: Mapping[str, Any]) -> Board:
    """The public board as a seat's view shows it (for bots)."""
    return Board(
        seats=tuple(view["seats"]),
        king=view["king"],
        rings=dict(view["rings"]),
        scores=tuple(view["scores"]),
    )


def _outcome(
    board: Board,
    points: int,
    scored: dict[str, int],
    moves: list[dict[str, Any]] | None = None,
    king: str | None = None,
    king_seat: int | None = None,
    rings: dict[str, int] | None = None,
    penalty: int | None = None,
) -> dict[str, Any]:
    old_seat = board.king_seat()
    king = board.king if king is None else king
    king_seat = old_seat if king_seat is None else king_seat
    return {
        "points": points,
        "scored": scored,
        "penalty": penalty,
        "moves": moves or [],
        "rings": rings or {},
        "crowned": king if king != board.king else None,
        "king": king,
        "king_seat": king_seat,
        "table_turned": king_seat != old_seat,
    }


def move_figure(board: Board, figure: str, delta: int, score: bool) -> dict[str, Any]:
    """Move ``figure`` by ``delta`` seats (negative: counter-clockwise) with displacement (AR-5).

    The mover scores the value of the seat it left, before any rotation (AR-4.1/4.2), if
    ``score``.  It leaves its origin before it lands, so the origin counts as empty; an occupant
    of the destination goes to the next empty seat counter-clockwise and scores nothing.
    """
    seats = list(board.seats)
    origin = seats.index(figure)
    dest = (origin + delta) % N_SEATS
    points = board.value(origin) if score else 0
    seats[origin] = None
    occupant = seats[dest]
    seats[dest] = figure
    moves: list[dict[str, Any]] = [
        {"figure": figure, "from": origin, "to": dest, "displaced": False}
    ]
    if occupant is not None:
        to = (dest - 1) % N_SEATS
        while seats[to] is not None:
            to = (to - 1) % N_SEATS
        seats[to] = occupant
        moves.append({"figure": occupant, "from": dest, "to": to, "displaced": True})
    return _outcome(
        board,
        points,
        {figure: points} if score else {},
        moves,
        king_seat=seats.index(board.king),
    )


def add_ring(board: Board, prince: str) -> dict[str, Any]:
    """A ring from the supply on a prince: score his seat, crown him at 3 rings (AR-4.3)."""
    seat = board.seats.index(prince)
    points = board.value(seat)
    count = board.rings[prince] + 1
    if count < KING_RINGS:
        return _outcome(board, points, {prince: points}, rings={prince: count})
    return _outcome(
        board,
        points,
        {prince: points},
        king=prince,
        king_seat=seat,
        rings={prince: count, board.king: 1},
    )


def score_knights(board: Board, knights: list[str], sign: int = 1) -> dict[str, Any]:
    scored = {k: sign * board.value(board.seats.index(k)) for k in knights}
    return _outcome(board, sum(scored.values()), scored)


def signed_steps(action: Mapping[str, Any]) -> int:
    steps: int = action["steps"]
    return -steps if action.get("direction", "cw") == "ccw" else steps


def resolve(board: Board, player: int, action: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome of a checked ``play`` action of ``player`` on ``board``."""
    card = CARDS[split_card(action["card"])[1]]
    if card.kind == "knight":
        return move_figure(board, action["knight"], signed_steps(action), True)
    if card.kind == "move":
        figure = action["figure"]
        return move_figure(board, figure, signed_steps(action), figure != board.king)
    if card.kind == "ring":
        return add_ring(board, action["prince"])
    if card.id in ("S-all", "S-neg"):
        knights = [k for k, _ in board.knights_of(player)]
        return score_knights(board, knights, -1 if card.id == "S-neg" else 1)
    if card.id == "S-choice":
        option = action["option"]
        if option == "move":
            figure = action["figure"]
            return move_figure(board, figure, action["steps"], figure != board.king)
        if option == "ring":
            return add_ring(board, action["prince"])
        return score_knights(board, [action["knight"]])
    knights = list(action["knights"])
    if not knights:
        assert card.penalty is not None
        return _outcome(board, card.penalty, {}, penalty=card.penalty)
    return score_knights(board, knights)


def apply(board: Board, player: int, outcome: Mapping[str, Any]) -> Board:
    """Fold a recorded outcome into the board (no rule is re-evaluated)."""
    seats = board.seats
    moves = outcome["moves"]
    if moves:
        new = list(seats)
        for m in moves:
            new[m["from"]] = None
        for m in moves:
            new[m["to"]] = m["figure"]
        seats = tuple(new)
    rings = outcome["rings"]
    points = outcome["points"]
    scores = board.scores
    if points:
        scores = put(scores, player, scores[player] + points)
    return Board(
        seats=seats,
        king=outcome["king"],
        rings={**board.rings, **rings} if rings else board.rings,
        scores=scores,
    )
