"""Artus (Artus and the Knights of the Round Table): the complete rules, basic and advanced.

Rules digest: ``docs/rules/artus.md`` (rule ids AR-1..AR-10); component data: ``data.json``
(copied unchanged, with its provenance note).  Modules: ``cards`` (data as constants), ``board``
(public board, card resolution, displacement), ``actions`` (legal plays and their checks),
``rules`` (state, set-up, turns, decide/evolve, result), ``view`` (the whole secrecy policy),
``bots``.

Events (``seat`` = the seat the event is about):

- ``GameStarted`` (seat None): ``rules``, ``players``, ``colours``, ``knights_per_player``,
  ``hands`` (per seat, sorted card ids; redacted to the viewer's own hand, others ``None``, plus
  ``hand_sizes``).
- ``KnightPlaced``: ``seat`` (board seat 0-28), ``knight``.
- ``CardPlayed``: the action's fields (``card`` and ``knight``/``figure``/``prince``/``steps``/
  ``direction``/``knights``/``option`` as used) plus ``kind`` (knight, move, ring, scoring) and the
  outcome: ``points`` (to the player), ``scored`` ({figure: value scored}), ``penalty`` (or None),
  ``moves`` ([{figure, from, to, displaced}], the mover first), ``rings`` ({prince: rings after}
  for changed figures), ``crowned`` (new King or None), ``king``, ``king_seat`` (after),
  ``table_turned``.
- ``CardDrawn``: ``pile``, ``card`` (others see only ``pile``).

Choices where the digest is silent (reading the Chinese seed and the rulebook):

- The start player is seat 0 ("the oldest player" in the seed).  ``round`` is 0 during the
  placement and counts turns of seat 0 from 1 afterwards.
- Basic games have no scoring pile at all: ``draw {pile: "scoring"}`` is refused (AR-2) and the
  views list only the knight and king piles.
- Hands are kept sorted; piles are sorted sets of the cards left, and a draw (or a deal) takes
  ``rng.choice`` of them, which is the same as the top of a shuffled face-down pile.
- Displacement searches counter-clockwise from the seat before the destination and skips
  occupied seats; the mover has left its origin, so the origin may receive the displaced figure
  (the search always ends: at most 20 figures on 29 seats).
- ``direction`` defaults to ``cw`` for knight and king move cards; ``legal_actions`` always
  states it.  S-choice moves forward only and takes no ``direction``.  Fields a card does not
  use are refused (AR-9), so every legal action has one spelling (``knights`` order aside).
- The S-choice ring goes on any prince of either metal (seed: "加一個戒指到任一個王子"); its
  move option may move the player's own knight, any prince or the King.  Moving the King (by a
  card or S-choice) scores nothing.
- S-gyr/S-carpet/S-red name their knights in ``knights`` (any order, no repeats); ``[]`` takes the
  penalty and is refused while some qualifying set exists.  S-all/S-neg score every own knight
  (a negative sum too: the seed says the player *must* score them).  Yellow seats qualify for
  S-gyr's yellow knight although they are worth 0.
- A carpet seat is one of the six fixed board seats ``carpet_seats``, whatever the King's seat.
- The turn ends without a draw once all own piles are empty; in the advanced game the second
  draw is skipped if the first emptied them.  A seat with an empty hand at its turn is passed
  over (cannot happen with equal decks); the game is over when all hands are empty, i.e. every
  card is played.
- The ring supply cannot run dry (the King holds 3 and each prince at most 2 of the 10 rings),
  but a ring card is refused (AR-4.3) if it ever did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine import Config, Event, Field
from domain.games.artus import bots as _bots
from domain.games.artus import rules as _rules
from domain.games.artus import view as _view
from domain.games.artus.cards import PILE_NAMES, RULES
from domain.rng import Rng

ACTIONS: dict[str, dict[str, Field]] = {
    "place_knight": {
        "seat": Field("int", True, doc="empty board seat 0-28 for your next knight (AR-2)"),
    },
    "play": {
        "card": Field("str", True, doc="card id from your hand, e.g. red/K3-6"),
        "knight": Field("str", doc="knight card / S-choice score: your knight, e.g. red-k1"),
        "figure": Field("str", doc="king move card / S-choice move: figure to move"),
        "prince": Field("str", doc="ring card / S-choice ring: the prince to get a ring"),
        "steps": Field("int", doc="seats to move, within the card's range"),
        "direction": Field("str", choices=("cw", "ccw"), doc="cw (default); ccw: backward cards"),
        "knights": Field(
            "list[str]", doc="S-gyr (3), S-carpet (2), S-red (3), or [] for the penalty"
        ),
        "option": Field("str", choices=("move", "ring", "score"), doc="S-choice option"),
    },
    "draw": {
        "pile": Field("str", True, choices=PILE_NAMES, doc="one of your non-empty piles"),
    },
}


class Artus:
    id = "artus"
    name = "Artus"
    min_players = 2
    max_players = 4
    options: Mapping[str, tuple[str, ...]] = {"rules": RULES}
    actions: Mapping[str, Mapping[str, Field]] = ACTIONS
    bots: Mapping[str, Any] = _bots.BOTS
    state_type = _rules.State

    def setup(self, config: Config, rng: Rng) -> list[Event]:
        return _rules.setup(config, rng)

    def initial(self, config: Config) -> _rules.State:
        return _rules.initial(config)

    def evolve(self, state: _rules.State, event: Event) -> _rules.State:
        return _rules.evolve(state, event)

    def to_act(self, state: _rules.State) -> tuple[int, ...]:
        return _rules.to_act(state)

    def legal_actions(self, state: _rules.State, seat: int) -> list[dict[str, Any]]:
        return _rules.legal_actions(state, seat)

    def decide(
        self, state: _rules.State, seat: int, action: Mapping[str, Any], rng: Rng
    ) -> list[Event]:
        return _rules.decide(state, seat, action, rng)

    def is_over(self, state: _rules.State) -> bool:
        return _rules.is_over(state)

    def result(self, state: _rules.State) -> dict[str, Any]:
        return _rules.result(state)

    def view(self, state: _rules.State, seat: int | None) -> dict[str, Any]:
        return _view.view(state, seat)

    def full_view(self, state: _rules.State) -> dict[str, Any]:
        return _view.full_view(state)

    def redact(self, event: Event, seat: int | None) -> dict[str, Any]:
        return _view.redact(event, seat)

    def reveals(self, event: Event) -> bool:
        return _view.reveals(event)


GAME = Artus()

__all__ = ["GAME", "Artus"]
