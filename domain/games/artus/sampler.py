"""Deal Artus's hidden cards at random, consistent with one seat's view (for the ``mcts`` bot).

What a seat cannot see is which of another seat's unplayed cards are in its hand and which are
still in its piles, and the order of its own piles.  The view shows everything needed to
deal them exactly consistently: every card played, each seat's hand size and pile sizes, and
each seat's cards by pile (the cards of its colour).  So for every other seat and pile: the
pile's unplayed cards are shuffled, the pile keeps as many as the view shows and the hand
gets the rest.  The seat's own piles are what is left of its colour (hand and played cards
taken out).  Nothing else is hidden; the board is rebuilt as ``board_from_view`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.artus.board import board_from_view
from domain.games.artus.data import PRINCE_SEATS, player_cards
from domain.games.artus.state import State
from domain.search.ismcts import FastRng


def sample(view: Mapping[str, Any], rng: FastRng) -> State:
    """A full state whose ``view(state, seat)`` is ``view``; hidden cards dealt by ``rng``."""
    seat = view["seat"]
    rules, n = view["rules"], view["players"]
    played = set(view["played"])
    hands: list[tuple[str, ...]] = []
    piles: list[dict[str, tuple[str, ...]]] = []
    for s in range(n):
        if s == seat:
            hand = tuple(view["hand"])
            gone = played | set(hand)
            own = {
                p: tuple(c for c in cards if c not in gone)
                for p, cards in player_cards(s, rules).items()
            }
        else:
            held: list[str] = []
            own = {}
            for p, cards in player_cards(s, rules).items():
                unseen = [c for c in cards if c not in played]
                left = view["piles"][s][p]
                shuffled = rng.shuffled(unseen)
                own[p] = tuple(sorted(shuffled[:left]))
                held += shuffled[left:]
            hand = tuple(sorted(held))
        hands.append(hand)
        piles.append(own)
    figures = sum(1 for f in view["seats"] if f is not None)
    return State(
        players=n,
        rules=rules,
        board=board_from_view(view),
        hands=tuple(hands),
        piles=tuple(piles),
        phase=view["phase"],
        turn=view["turn"],
        placed=figures - len(PRINCE_SEATS),
        plays_left=view["plays_left"],
        draws_left=view["draws_left"],
        round=view["round"],
        played=tuple(view["played"]),
    )
