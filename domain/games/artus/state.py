"""The Artus state: one frozen dataclass (public board, private hands and piles), and what
derives from it alone."""

from __future__ import annotations

from dataclasses import dataclass

from domain.games.artus.board import Board
from domain.games.artus.data import KNIGHTS_ON_TABLE
from domain.games.artus.events import SETUP


@dataclass(frozen=True)
class State:
    players: int
    rules: str  # basic / advanced
    board: Board  # public
    hands: tuple[tuple[str, ...], ...]  # private: per seat, sorted card ids
    piles: tuple[dict[str, tuple[str, ...]], ...]  # private: per seat, pile -> sorted cards left
    phase: str = SETUP
    turn: int = 0  # the seat whose turn it is (play and draw phases)
    placed: int = 0  # knights placed so far (placement phase)
    plays_left: int = 0  # cards still to play this turn
    draws_left: int = 0  # cards still to draw this turn
    round: int = 0  # 0 during placement, then 1..16 (basic) or 1..11 (advanced)
    played: tuple[str, ...] = ()  # every card played, in order (public)


def knights_per_player(state: State) -> int:
    return KNIGHTS_ON_TABLE[state.players]
