"""Lancaster: the complete rules for 2-5 players (2 players with allies).

Rules digest: ``docs/digests/lancaster.md`` (rule ids LA-1..LA-6); component data: ``data.json``
(copied unchanged, with its provenance note).  Modules: ``data`` (data as constants, knight
names), ``state`` (the state tree and board helpers), ``events`` (event and phase names),
``gains`` (rewards as gains records, extension draws), ``setup`` (LA-1, rounds), ``placement``
(LA-2.1-2.3), ``parliament`` (LA-2.4-2.6), ``rewards`` (LA-2.7-2.8), ``conflicts`` (LA-2.9),
``scoring`` (LA-3), ``rules`` (turn flow, decide, evolve), ``view`` (the whole secrecy policy,
LA-5), ``bots``.

Knights are named ``<colour>-<strength><letter>`` (``red-1a`` .. ``red-1c``, ``red-2a``,
``red-2b``, ``red-3``, ``red-4``).  Seat s plays ``colours[s]``; with 2 players seat s also runs
the ally ``colours[2 + s]`` (seat 0: red + green, seat 1: blue + yellow), whose knights are
named the same way (``green-2a``).  A "gains" record (``gold``, ``squires``, ``markers``,
``power`` deltas; ``upgrade`` [old, new]; ``recruit`` [knights]; ``build`` [spaces]; ``noble``;
``noble_removed``) says what a reward did.

Events (``seat`` = the seat the event is about; None = the game):

- ``GameSetUp`` (None): ``current``, ``debate`` (law ids), ``conflicts`` (card numbers laid),
  ``removed_conflicts``, ``favours`` (tile ids in play).
- ``StartExtensionBuilt``: ``space``.
- ``KnightPlacedInCounty``: ``knight``, ``county``, ``squires``; ``expelled``,
  ``expelled_squires`` when it expels.
- ``KnightPlacedInCastle``: ``knight``, ``space``.
- ``KnightPlacedInConflict``: ``knight``, ``conflict``, ``space`` (0 = top), ``favour`` (a King's
  favour is owed).
- ``FavourTaken``: ``tile``, ``knight`` (the conflict knight), ``gains`` (others see
  ``{"goods": n}`` instead of the gold/squires split).
- ``VoteCommitted``: ``law``, ``tile``, ``markers`` (others and spectators see only ``law``).
- ``VotesRevealed`` (None): ``law``, ``votes`` ({seat: {tile, markers}}), ``yes``, ``no``,
  ``approved``, ``dropped`` (the current law pushed out, or None).
- ``LawTookEffect`` (None): ``law``, ``effects`` ({seat: gains}).
- ``LawOpened`` (None): ``law``, ``seats`` (who may use it, in player order).
- ``LawUsed``: ``law``, ``gains``.  ``LawPassed``: ``law``.
- ``CountyRewarded``: ``county``, ``take``, ``knight`` (the occupant), ``gains``.
- ``StartPlayerChosen``: ``start``.
- ``CastleRewardTaken``: ``source``, ``gains``.  ``CastlePassed``: {}.
  ``CastleFinished``: ``markers`` (the guests' vote markers).
- ``ConflictResolved`` (None): ``conflict``, ``row``, ``strength``, ``france``, ``won``,
  ``outcome`` (won | first_loss | second_loss), ``ranking`` ([{colour, strength, power}]),
  ``power`` ({seat: points}), ``prisoners``, ``to_reserve`` (ally prisoners).
- ``KnightRansomed``: ``knight``, ``gold``.  ``PrisonersLost``: ``knights``.
- ``RoundEnded`` (None): ``round``.  ``RoundStarted`` (None): ``round``, ``conflicts``, ``laws``.

Choices where the digest is silent (reading the Japanese seed):

- Set-up: every player builds the start extension at the same time (all seats act, public).
- Seat s's 2-player ally is ``colours[2 + s]``.  On its turn a player places one knight from its
  own court or its ally's; it is skipped when neither can be placed.  An ally's county reward is
  decided by its player: ``noble`` removes the tile from the game, ``reward`` keeps only new
  knights and upgrades for the ally (gold, squires, markers, power and extensions are lost);
  ``both`` is impossible (no gold).  The ally's castle pays nothing (no goods, no squires to
  pay with).  Ally ranks in conflicts pay nobody; ally prisoners go to the reserve.
- Conflicts in both rows take knights during placement (reinforcing a lower-row card).
- A new knight (county B, barracks, L15) is the weakest knight of the reserve; L2 recruits a
  strength-1 knight.  An upgrade takes the first reserve knight of strength + 1 by name.  An
  upgrade may target any own knight outside the reserve (court or board) unless the law says
  "deployed" (L1, L10: on the board).
- A King's favour is taken at once, and is compulsory; a tile whose reward cannot be used
  (nothing to upgrade, no noble to take, goods for an ally) is taken for nothing.  The tiles
  run out before the sixth knight with 3 players (5 tiles).  ``take_favour`` names the choice
  in ``knight`` (upgrade), ``goods`` ({gold, squires} summing to 2) or ``noble`` (a letter),
  because an action field has one kind.
- "Most X" laws (L1, L2) need at least 1 of X.  Vote markers return to the supply when the last
  law has been voted, before the laws take effect, so markers from L4/L8 serve next round.
- Purchase laws use ``buy {count}`` (1..what you can pay) or ``pass``; upgrade laws
  ``upgrade {knight}`` or ``pass``.  Upgrade laws ask only the seats that can use them (public
  facts; L1's "most gold" is revealed by the law itself); purchase laws ask every seat, castle
  rewards ask while sources are left and ransoms ask every owner of prisoners, even when they
  cannot pay, so that nobody learns what is behind a screen.
- Castle: each source (a space with an own knight, or an extension) pays once per round even if
  an extension is drawn for a space that holds a knight; barracks and training yard are optional
  (they cost squires).  ``pass`` leaves the remaining sources.
- Knight strength at the end counts own knights outside the reserve (the reserve is the stock
  of unrecruited or lost knights).
- Gold and squires are hidden by the screen, but the gains of a public action are shown (they
  can be read off the board anyway); only a King's favour goods split is private.

Actions are listed in ``ACTIONS`` below (LA-6).
"""

from __future__ import annotations

from domain.engine import Field, GameRules
from domain.games.lancaster import bots, mcts, rules, scoring, setup, shapes, view
from domain.games.lancaster.data import FAVOURS, LETTERS, SPACE_IDS
from domain.games.lancaster.state import State

KNIGHT_DOC = "a knight id, e.g. red-1b, red-4 (2 players: also your ally's, e.g. green-2a)"

ACTIONS: dict[str, dict[str, Field]] = {
    "build_start_extension": {
        "space": Field("str", True, SPACE_IDS, "the castle space your first extension covers"),
    },
    "place_county": {
        "knight": Field("str", True, doc=KNIGHT_DOC + ", from court"),
        "county": Field("str", True, LETTERS, "county letter A-I"),
        "squires": Field("int", doc="squires placed with the knight (default 0; none for allies)"),
    },
    "place_castle": {
        "knight": Field("str", True, doc=KNIGHT_DOC + ", from court"),
        "space": Field("str", True, SPACE_IDS, "an empty space of the knight's castle"),
    },
    "place_conflict": {
        "knight": Field("str", True, doc=KNIGHT_DOC + ", from court"),
        "conflict": Field("int", True, doc="the conflict card number (upper or lower row)"),
    },
    "take_favour": {
        "tile": Field("str", True, tuple(sorted(FAVOURS)), "a face-up King's favour tile"),
        "knight": Field("str", doc="upgrade tile: the knight to upgrade"),
        "goods": Field("object", doc="goods tile: {gold, squires} summing to 2"),
        "noble": Field("str", choices=LETTERS, doc="noble tile: the county letter"),
    },
    "vote": {
        "law": Field("str", True, doc="the law under debate being voted"),
        "tile": Field("str", True, ("yes", "no"), "your vote tile"),
        "markers": Field("int", True, doc="vote markers committed, 0..all yours"),
    },
    "upgrade": {"knight": Field("str", True, doc="law L1/L9/L10: the knight to upgrade")},
    "buy": {"count": Field("int", True, doc="law L4/L5/L16: how many to buy (1 or more)")},
    "pass": {},
    "county_reward": {
        "county": Field("str", True, LETTERS, "the county being rewarded"),
        "take": Field("str", True, ("noble", "reward", "both"), "noble, reward, or both (3 gold)"),
        "knight": Field("str", doc="Gloucester's upgrade: the knight to upgrade"),
    },
    "choose_start_player": {"seat": Field("int", True, doc="the new start player (Surrey)")},
    "castle_reward": {
        "source": Field("str", True, SPACE_IDS, "a castle space with your knight or extension"),
        "knight": Field("str", doc="training yard: the knight to upgrade"),
    },
    "ransom": {"knight": Field("str", True, doc="a prisoner of yours; costs its strength in gold")},
}


GAME: GameRules[State] = GameRules(
    id="lancaster",
    name="Lancaster",
    min_players=2,
    max_players=5,
    options={},
    actions=ACTIONS,
    bots={**bots.BOTS, **mcts.BOTS},
    state_type=State,
    setup=setup.setup,
    initial=setup.initial,
    evolve=rules.evolve,
    to_act=rules.to_act,
    legal_actions=rules.legal_actions,
    decide=rules.decide,
    is_over=rules.is_over,
    result=scoring.result,
    view=view.view,
    full_view=view.full_view,
    redact=view.redact,
    reveals=view.reveals,
    view_state=shapes.VIEW_STATE,
    event_data=shapes.EVENT_DATA,
)

__all__ = ["GAME"]
