"""Set-up (LA-1), the start extensions, and the end and start of rounds.

``initial`` builds everything that involves no chance; ``GameSetUp`` records the first deals
(3 current laws, 3 laws under debate, 2 conflict cards).  Decks are sorted tuples of the cards
left; each card is drawn with ``rng.choice`` when it is revealed (law groups in order: the group
is public, the order within it is not).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Config, Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.lancaster.data import (
    COLOURS,
    CONFLICTS,
    DATA,
    FAVOURS,
    LAW_GROUPS,
    LETTERS,
    ROUNDS,
    SPACE_IDS,
    START,
    knights_of,
    start_court,
)
from domain.games.lancaster.events import (
    GAME_SET_UP,
    NEXT_ROUND_PHASE,
    OVER_PHASE,
    ROUND_ENDED,
    ROUND_STARTED,
    SETUP_PHASE,
    START_EXTENSION_BUILT,
    START_PHASE,
)
from domain.games.lancaster.placement import start_placement
from domain.games.lancaster.state import Conflict, Player, State
from domain.rng import Rng

LAWS_DEALT = 3  # per row
CONFLICTS_DEALT = 2  # per round


def favour_tiles(n: int) -> frozenset[str]:
    return frozenset(t for t, f in FAVOURS.items() if n not in f.get("removed_with_players", ()))


def removed_conflicts(n: int) -> tuple[int, ...]:
    return tuple(DATA["conflicts"]["remove_by_players"][str(n)])


def initial(config: Config) -> State:
    n = config.n
    players, court, reserve = [], set(), set()
    for seat in range(n):
        ally = COLOURS[2 + seat] if n == 2 else None
        players.append(
            Player(
                colour=COLOURS[seat],
                ally=ally,
                gold=START["gold"],
                squires=START["squires"],
                markers=START["vote_markers"],
            )
        )
        for colour, is_ally in ((COLOURS[seat], False), (ally, True)):
            if colour is None:
                continue
            first = start_court(colour, is_ally)
            court |= set(first)
            reserve |= set(knights_of(colour)) - set(first)
    per_county = DATA["nobles_per_county"][str(n)]
    return State(
        n=n,
        players=tuple(players),
        round=1,
        phase=SETUP_PHASE,
        start=0,
        court=frozenset(court),
        reserve=frozenset(reserve),
        prisoners=(),
        counties={},
        castle={},
        upper=(),
        lower=(),
        conflict_deck=tuple(sorted(set(CONFLICTS) - set(removed_conflicts(n)))),
        noble_stock=dict.fromkeys(LETTERS, per_county),
        favour_up=favour_tiles(n),
        conflict_knights=0,
        favour_due=None,
        law_deck=LAW_GROUPS,
        current=(),
        debate=(),
        votes={},
        turn=None,
        law_pos=0,
        law_queue=None,
        county_pos=0,
        surrey=None,
        castle_pos=0,
        castle_taken=frozenset(),
        castle_passed=False,
        conflict_queue=(),
    )


def draw_laws(deck: tuple[tuple[str, ...], ...], count: int, rng: Rng) -> list[str]:
    groups = [list(g) for g in deck]
    out = []
    for _ in range(count):
        group = next((g for g in groups if g), None)
        if group is None:
            break
        law = rng.choice(group)
        group.remove(law)
        out.append(law)
    return out


def draw_conflicts(deck: tuple[int, ...], count: int, rng: Rng) -> list[int]:
    pile = list(deck)
    return [pile.pop(pile.index(rng.choice(pile))) for _ in range(min(count, len(pile)))]


def setup(config: Config, rng: Rng) -> list[Event]:
    state = initial(config)
    laws = draw_laws(state.law_deck, 2 * LAWS_DEALT, rng)
    cards = draw_conflicts(state.conflict_deck, CONFLICTS_DEALT, rng)
    data = {
        "current": laws[:LAWS_DEALT],
        "debate": laws[LAWS_DEALT:],
        "conflicts": cards,
        "removed_conflicts": list(removed_conflicts(config.n)),
        "favours": sorted(state.favour_up),
    }
    return [Event(GAME_SET_UP, None, data)]


def _without_laws(
    deck: tuple[tuple[str, ...], ...], laws: list[str]
) -> tuple[tuple[str, ...], ...]:
    gone = set(laws)
    return tuple(tuple(x for x in g if x not in gone) for g in deck)


def _deal(state: State, conflicts: list[int], laws: list[str]) -> dict[str, Any]:
    return {
        "upper": (*state.upper, *(Conflict(n) for n in conflicts)),
        "conflict_deck": tuple(c for c in state.conflict_deck if c not in set(conflicts)),
        "law_deck": _without_laws(state.law_deck, laws),
    }


def evolve_setup(state: State, e: Event) -> State:
    d = e.data
    return replace(
        state,
        phase=START_PHASE,
        current=tuple(d["current"]),
        debate=tuple(d["debate"]),
        **_deal(state, d["conflicts"], [*d["current"], *d["debate"]]),
    )


# --- the start extension (LA-1) ---------------------------------------------------------------


def legal_start(state: State, seat: int) -> list[dict[str, Any]]:
    return [{"type": "build_start_extension", "space": sp} for sp in SPACE_IDS]


def decide_start(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    if state.players[seat].built:
        raise IllegalAction("LA-1", "you have built your start extension already")
    if a["space"] not in SPACE_IDS:
        raise IllegalAction("LA-1", f"no castle space {a['space']!r}")
    return [Event(START_EXTENSION_BUILT, seat, {"space": a["space"]})]


def evolve_start(state: State, e: Event) -> State:
    players = list(state.players)
    players[e.by] = replace(players[e.by], built=frozenset({e.data["space"]}))
    state = replace(state, players=tuple(players))
    return start_placement(state) if all(p.built for p in state.players) else state


# --- end and start of rounds ------------------------------------------------------------------


def end_round(state: State) -> Event:
    return Event(ROUND_ENDED, None, {"round": state.round})


def evolve_round_ended(state: State, e: Event) -> State:
    home = {o.knight for o in state.counties.values()} | set(state.castle)
    return replace(
        state,
        court=state.court | home,
        counties={},
        castle={},
        favour_up=favour_tiles(state.n),
        conflict_knights=0,
        favour_due=None,
        conflict_queue=(),
        phase=OVER_PHASE if state.round >= ROUNDS else NEXT_ROUND_PHASE,
    )


def start_round(state: State, rng: Rng) -> Event:
    conflicts = draw_conflicts(state.conflict_deck, CONFLICTS_DEALT, rng)
    laws = draw_laws(state.law_deck, LAWS_DEALT, rng)
    return Event(
        ROUND_STARTED, None, {"round": state.round + 1, "conflicts": conflicts, "laws": laws}
    )


def evolve_round_started(state: State, e: Event) -> State:
    d = e.data
    state = replace(
        state, round=d["round"], debate=tuple(d["laws"]), **_deal(state, d["conflicts"], d["laws"])
    )
    return start_placement(state)
