"""Artus bots.  They decide from the seat's view only (never the full state).

- ``random``: uniform over the legal actions.
- ``greedy``: the action with the best immediate score change for its own seat, evaluated with
  the rules' own resolution on the public board rebuilt from the view; ties broken by the rng.
  Placement has no immediate score: it takes the highest-valued empty seat.  A draw takes the
  pile whose remaining cards (known to their owner: all own cards of that pile minus hand and
  played) would score best on average on the current board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots import random_bot
from domain.games.artus.actions import card_actions
from domain.games.artus.board import Board, board_from_view, resolve
from domain.games.artus.data import player_cards
from domain.rng import Rng


def _best_points(board: Board, seat: int, card: str) -> int:
    return max(int(resolve(board, seat, a)["points"]) for a in card_actions(board, seat, card))


def _pile_estimates(view: Mapping[str, Any], board: Board, seat: int) -> dict[str, float]:
    gone = set(view["hand"]) | set(view["played"])
    out: dict[str, float] = {}
    for pile, cards in player_cards(seat, view["rules"]).items():
        left = [c for c in cards if c not in gone]
        if left:
            out[pile] = sum(_best_points(board, seat, c) for c in left) / len(left)
    return out


def greedy_bot(
    view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng
) -> dict[str, Any]:
    acts = list(actions)
    seat = view["seat"]
    kind = acts[0]["type"]
    scores: list[float]
    if kind == "place_knight":
        scores = [view["values"][a["seat"]] for a in acts]
    elif kind == "draw":
        board = board_from_view(view)
        estimate = _pile_estimates(view, board, seat)
        scores = [estimate.get(a["pile"], 0.0) for a in acts]
    else:
        board = board_from_view(view)
        scores = [resolve(board, seat, a)["points"] for a in acts]
    best = max(scores)
    return dict(rng.choice([a for a, s in zip(acts, scores, strict=True) if s == best]))


BOTS = {"random": random_bot, "greedy": greedy_bot}
