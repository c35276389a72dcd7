"""Turn flow: who acts (``to_act``), what they may do (``legal_actions``), decide and evolve.

``decide`` checks an action against the rules of its phase, then plays the automatic steps that
follow until the next decision (law effects, castle guests, conflicts, the next round's deals),
drawing every random outcome there and recording it in the event.  ``evolve`` only applies
events: it never draws and never fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.games.lancaster import conflicts, parliament, placement, rewards, scoring, setup
from domain.games.lancaster.components import colour_of
from domain.games.lancaster.state import State, seat_of
from domain.rng import Rng

initial = setup.initial
result = scoring.result

_EVOLVE: dict[str, Callable[[State, Event], State]] = {
    "GameSetUp": setup.evolve_setup,
    "StartExtensionBuilt": setup.evolve_start,
    "KnightPlacedInCounty": placement.evolve_county,
    "KnightPlacedInCastle": placement.evolve_castle,
    "KnightPlacedInConflict": placement.evolve_conflict,
    "FavourTaken": placement.evolve_favour,
    "VoteCommitted": parliament.evolve_vote,
    "VotesRevealed": parliament.evolve_reveal,
    "LawTookEffect": parliament.evolve_took_effect,
    "LawOpened": parliament.evolve_opened,
    "LawUsed": parliament.evolve_decided,
    "LawPassed": parliament.evolve_decided,
    "CountyRewarded": rewards.evolve_county_reward,
    "StartPlayerChosen": rewards.evolve_start_player,
    "CastleRewardTaken": rewards.evolve_castle_reward,
    "CastlePassed": rewards.evolve_castle_pass,
    "CastleFinished": rewards.evolve_castle_finished,
    "ConflictResolved": conflicts.evolve_resolved,
    "KnightRansomed": conflicts.evolve_ransomed,
    "PrisonersLost": conflicts.evolve_lost,
    "RoundEnded": setup.evolve_round_ended,
    "RoundStarted": setup.evolve_round_started,
}


def evolve(state: State, event: Event) -> State:
    return _EVOLVE[event.type](state, event)


def is_over(state: State) -> bool:
    return state.phase == "over"


# --- who acts ---------------------------------------------------------------------------------


def to_act(state: State) -> tuple[int, ...]:
    phase = state.phase
    if phase == "start":
        return tuple(s for s in range(state.n) if not state.players[s].built)
    if phase == "placement":
        if state.favour_due is not None:
            return (seat_of(state, colour_of(state.favour_due)),)
        return () if state.turn is None else (state.turn,)
    if phase == "vote":
        return tuple(s for s in range(state.n) if s not in state.votes)
    if phase == "laws":
        return state.law_queue[:1] if state.law_queue else ()
    if phase == "counties":
        return (state.surrey,) if state.surrey is not None else (rewards.county_owner(state),)
    if phase == "castle":
        return (rewards.castle_seat(state),) if rewards.castle_sources(state) else ()
    if phase == "conflicts":
        seat = conflicts.ransom_seat(state)
        return () if seat is None else (seat,)
    return ()


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    phase = state.phase
    if phase == "start":
        return setup.legal_start(state, seat)
    if phase == "placement":
        if state.favour_due is not None:
            return placement.legal_favours(state)
        return placement.legal_placements(state, seat)
    if phase == "vote":
        return parliament.legal_votes(state, seat)
    if phase == "laws":
        return parliament.legal_law_actions(state, seat)
    if phase == "counties":
        if state.surrey is not None:
            return [{"type": "choose_start_player", "seat": s} for s in range(state.n)]
        return rewards.county_options(state)
    if phase == "castle":
        return rewards.legal_castle(state)
    return conflicts.legal_ransom(state)


# --- decide -----------------------------------------------------------------------------------

Decider = Callable[[State, int, dict[str, Any], Rng], list[Event]]


def _no_rng(fn: Callable[[State, int, dict[str, Any]], list[Event]]) -> Decider:
    return lambda state, seat, a, rng: fn(state, seat, a)


# action type -> (its phase, the rule named when it comes out of phase, the checks)
_DECIDERS: dict[str, tuple[str, str, Decider]] = {
    "build_start_extension": ("start", "LA-1", _no_rng(setup.decide_start)),
    "place_county": ("placement", "LA-2.1", _no_rng(placement.decide_county)),
    "place_castle": ("placement", "LA-2.2", _no_rng(placement.decide_castle)),
    "place_conflict": ("placement", "LA-2.3", _no_rng(placement.decide_conflict)),
    "take_favour": ("placement", "LA-2.3", _no_rng(placement.decide_favour)),
    "vote": ("vote", "LA-2.4", _no_rng(parliament.decide_vote)),
    "upgrade": ("laws", "LA-2.5", _no_rng(parliament.decide_law)),
    "buy": ("laws", "LA-2.5", _no_rng(parliament.decide_law)),
    "county_reward": ("counties", "LA-2.7", rewards.decide_county_reward),
    "choose_start_player": ("counties", "LA-2.7", _no_rng(rewards.decide_start_player)),
    "castle_reward": ("castle", "LA-2.8", rewards.decide_castle_reward),
    "ransom": ("conflicts", "LA-2.9", _no_rng(conflicts.decide_ransom)),
}
# phase -> (the rule of passing there, the checks)
_PASSES: dict[str, tuple[str, Decider]] = {
    "laws": ("LA-2.5", _no_rng(parliament.decide_law)),
    "castle": ("LA-2.8", lambda state, seat, a, rng: rewards.decide_castle_pass(state, seat)),
    "conflicts": ("LA-2.9", lambda state, seat, a, rng: [conflicts.prisoners_lost(state, seat)]),
}


def _rule(state: State, kind: str) -> str:
    if kind == "pass":
        return _PASSES[state.phase][0] if state.phase in _PASSES else "LA-6"
    return _DECIDERS[kind][1]


def _checked(state: State, seat: int, a: dict[str, Any], rng: Rng) -> list[Event]:
    kind = a["type"]
    if kind == "pass":
        if state.phase not in _PASSES:
            raise IllegalAction("LA-6", "there is nothing to pass on now")
        return _PASSES[state.phase][1](state, seat, a, rng)
    phase, rule, check = _DECIDERS[kind]
    if state.phase != phase:
        raise IllegalAction(rule, f"{kind} is not possible in the {state.phase} phase")
    if kind.startswith("place_") and state.favour_due is not None:
        raise IllegalAction("LA-2.3", "take the King's favour of your conflict knight first")
    return check(state, seat, a, rng)


def _auto(state: State, rng: Rng) -> Event | None:
    """The next step that needs nobody's decision, or None when someone must act (or over)."""
    phase = state.phase
    if phase == "laws" and state.law_queue is None:
        return parliament.open_law(state, rng)
    if phase == "castle" and not rewards.castle_sources(state):
        return rewards.castle_finish(state)
    if phase == "conflicts":
        if state.prisoners:
            return None  # an owner decides on ransoms
        if state.conflict_queue:
            return conflicts.resolve(state)
        return setup.end_round(state)
    if phase == "next_round":
        return setup.start_round(state, rng)
    return None


def advance(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Play the automatic steps until someone must decide (or the game is over)."""
    events = []
    while (e := _auto(state, rng)) is not None:
        events.append(e)
        state = evolve(state, e)
    return state, events


def decide(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    if seat not in to_act(state):
        raise IllegalAction(_rule(state, action["type"]), f"seat {seat} has nothing to decide now")
    events = _checked(state, seat, dict(action), rng)
    for e in events:
        state = evolve(state, e)
    return events + advance(state, rng)[1]
