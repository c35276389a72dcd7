"""Kings and Castles (game id ``kings-and-castles``), after the rules digest KC-1 ... KC-10
(``docs/digests/kings-and-castles.md``).

Modules: ``data`` (components, data.json), ``state`` (the state dataclass), ``events`` (event
and phase names), ``setup`` (KC-2), ``draws`` (KC-4), ``attacks`` (KC-5, KC-6), ``rules`` (turn
flow, decide, evolve, result), ``view`` (the whole secrecy policy), ``bots``.

Counter ids: ``<colour>-<kind>-<n>`` with kinds ``knight``, ``men_at_arms``, ``archers``,
``mercenary``, ``castle`` (``blue-men_at_arms-2``, ``pink-mercenary-3``).

Events (``seat`` = the owner of the colour concerned; None for the game itself):

- ``EnemiesPlaced`` (None, set-up): ``placements`` {territory: enemy unit id}.
- ``CountersDrawn``: ``colour``, ``purpose`` (army, bonus, refill), ``household`` [ids],
  ``bag`` [ids in draw order], ``refill_at`` (bag draws made before the destroyed counters went
  back into the bag, or None), ``returned`` [ids put back].
- ``CrownPlaced``: ``colour``, ``square``.
- ``RouenOccupied``: ``colour``, ``counter``.
- ``TerritoryCaptured``: ``colour`` (the King), ``target``, ``country``, ``side`` (royal,
  baronial, enemy), ``attacker`` (colour of the units), ``counters`` [ids], ``defender``,
  ``castle`` (or None), ``stays``, ``other_country`` (KC-5.4, after this attack).
- ``AttacksEnded``: ``colour``.  ``CastlePlaced``: ``colour``, ``counter``, ``territory``.
- ``CastlesEnded``, ``TaxDeclined``: ``colour`` (+ ``auto: true`` when nothing was to decide).
- ``TaxCollected``: ``colour`` (the King), ``amounts`` {colour: n} (redacted to the viewer's own
  colours), ``digits`` {colour: last digit of money after}; rules version 1 also ``seats``
  {colour: seat} (public; the redaction now reads the seats from the config).
- ``TurnEnded`` (None): ``square``, ``next`` (None after the last square).
- ``FinalTaxCollected`` (None, public): ``amounts`` {colour: n}, ``money`` {colour: total}.

- ``BagRefilled`` (None, rules version 2): ``returned`` [ids]: the destroyed counters went back
  into the bag the moment it was empty (KC-4, see ``draws``).

Rules versions (``Config.rules_version``, recorded in ``GameCreated``; a log without it is 1):
version 1 is the reading before issue 13 (the King may end his attacks at once, any player
unit may take Rouen, the bag refills only when a later draw needs it); version 2, current for new
games, reads the seed as below.  Every rule that changed asks ``state.since(state, 2)``, so a
stored game replays, and an old log imports, under the rules it was played with.

Choices where the digest is silent (read from the Japanese seed where it helps):

- Seats and colours: 2 players: seat 0 green + pink, seat 1 blue + teal; 3 players: green, blue,
  teal (pink unused); 4 players: green, blue, teal, pink.  Each colour has its own household,
  army, tax markers (3, or 2 in the short game) and money.
- Play order of colours (army forming, crown placing): seat order; with 2 players green, blue,
  pink, teal, so each player alternates its two colours (seed: 交互に使用).  Crowns per colour
  follow: squares / colours (6 or 3 with 2 and 4 players, 8 or 4 with 3 players).
- Armies are formed (KC-2 step 4) before crowns are placed (step 5), as the digest orders them.
- Every draw takes exactly what it owes (10 when forming, the bonus, or up to 10 when refilling)
  as household counts plus a bag count; it stops short only if bag and destroyed pile are empty.
- ``occupy_rouen`` puts a unit of the King's colour from his army into Rouen (KC-2.6, rules
  version 2; seed: 「ウィリアム１世は、必ずRouenの領土にユニットを置いてプレイを開始しなくては
  なりません。この領土を得るのに攻撃を行う必要はありません」, "William I must begin by putting a
  unit on Rouen; he needs no attack to *gain* this territory": the gain is the King's).  Only if
  the army holds none, a unit of any other player colour (never an enemy unit).  If the army holds
  no player unit at all after the bonus draw, Rouen stays empty; an empty territory cannot be
  attacked (attacks need a defender).
- KC-5.3: the attacking units of the highest value are of one colour and kind, hence
  interchangeable; the lowest id stays.  Mercenaries are interchangeable only with the same colour
  and value, i.e. never (one of each value per colour), so each set of them is listed.
- KC-5.4: royal units attack only the square's country.  Baronial and enemy units share the one
  other country of the turn, fixed by the first of their attacks outside the square's country.
- KC-3 / KC-1 (rules version 2; seed: 「国の名前 − キングのプレイヤーが必ず攻撃しなくてはならない
  国です」, "the country's name: the country the King player *must* attack"): ``end_attacks`` is
  legal only once an attack on the square's country was made this turn (by units of any side), or
  while no attack on it is legal.  Attacks on the one other country stay optional.  The game cannot
  stall: every attack takes at least one counter out of the army.
- KC-5.5: in a contested country an enemy unit may attack any player colour's territory (royal too)
  adjacent to another enemy-held territory; player units attack only enemy-held territories.
- KC-7: any castle in the King's army (any colour) may go on any territory held by a royal or
  baronial unit, in any country, with no castle yet; any number per turn.
- KC-8: the King's colour earns double; with 2 players the King's other colour earns single.
  Tax events are redacted to a seat's own colours; the new last digits are public.
- Phases with nothing to decide pass by themselves (events marked ``auto``): castles when no castle
  can be placed, taxation without a tax marker, refill when the army holds 10 or more.
- Final taxation follows the refill of the last square (24, or 12 in the short game); then the
  game is over and all money is revealed.  Ties for the most money share the win.
"""  # noqa: RUF002 -- the seed's own minus sign, quoted exactly

from __future__ import annotations

from domain.engine import Field, GameRules
from domain.games.kings_and_castles import mcts, rules, setup, shapes, view
from domain.games.kings_and_castles.bots import BOTS
from domain.games.kings_and_castles.state import RULES_VERSION, State

_HOUSEHOLD = Field("object", True, None, "counts from the household: knight, men_at_arms, archers")
_BAG = Field("int", True, None, "how many counters to draw at random from the bag")

ACTIONS: dict[str, dict[str, Field]] = {
    "place_crown": {"square": Field("int", True, None, "an empty square of the track")},
    "draw": {"household": _HOUSEHOLD, "bag": _BAG},
    "occupy_rouen": {"counter": Field("str", True, None, "a unit of the King's army")},
    "attack": {
        "target": Field("str", True, None, "the territory attacked"),
        "counters": Field("list[str]", True, None, "counter ids from the King's army"),
    },
    "end_attacks": {},
    "place_castle": {
        "counter": Field("str", True, None, "a castle of the King's army"),
        "territory": Field("str", True, None, "a territory held by a player unit"),
    },
    "end_castles": {},
    "tax": {},
    "no_tax": {},
    "refill": {"household": _HOUSEHOLD, "bag": _BAG},
}

GAME: GameRules[State] = GameRules(
    id="kings-and-castles",
    name="Kings and Castles",
    min_players=2,
    max_players=4,
    options={"length": ("full", "short")},
    actions=ACTIONS,
    bots={**BOTS, **mcts.BOTS},
    state_type=State,
    setup=setup.setup,
    initial=setup.initial,
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
    rules_version=RULES_VERSION,
)

__all__ = ["GAME"]
