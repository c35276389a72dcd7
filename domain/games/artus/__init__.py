"""Artus (Artus and the Knights of the Round Table): the complete rules, basic and advanced.

Rules digest: ``docs/digests/artus.md`` (rule ids AR-1..AR-10); component data: ``data.json``
(copied unchanged, with its provenance note).  Modules: ``data`` (data as constants), ``board``
(public board, card resolution, displacement), ``state`` (the state), ``events`` (event and
phase names), ``actions`` (legal plays and their checks), ``rules`` (set-up, turns,
decide/evolve, result), ``view`` (the whole secrecy policy), ``bots``.

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

from domain.engine import Field, GameRules
from domain.games.artus import bots, mcts, rules, shapes, view
from domain.games.artus.data import PILE_NAMES, RULES
from domain.games.artus.state import State

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


GAME: GameRules[State] = GameRules(
    id="artus",
    name="Artus",
    min_players=2,
    max_players=4,
    options={"rules": RULES},
    actions=ACTIONS,
    bots={**bots.BOTS, **mcts.BOTS},
    state_type=State,
    setup=rules.setup,
    initial=rules.initial,
    evolve=rules.evolve,
    to_act=rules.to_act,
    legal_actions=rules.legal_actions,
    decide=rules.decide,
    is_over=rules.is_over,
    result=rules.result,
    view=view.view,
    full_view=view.full_view,
    redact=view.redact,
    reveals=view.reveals,
    view_state=shapes.VIEW_STATE,
    event_data=shapes.EVENT_DATA,
)

__all__ = ["GAME"]
