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
from domain.games.lancaster import conflicts, parliament, placement, rewards, setup
from domain.games.lancaster.data import colour_of
from domain.games.lancaster.events import (
    CASTLE_FINISHED,
    CASTLE_PASSED,
    CASTLE_PHASE,
    CASTLE_REWARD_TAKEN,
    CONFLICT_RESOLVED,
    CONFLICTS_PHASE,
    COUNTIES_PHASE,
    COUNTY_REWARDED,
    FAVOUR_TAKEN,
    GAME_SET_UP,
    KNIGHT_PLACED_IN_CASTLE,
    KNIGHT_PLACED_IN_CONFLICT,
    KNIGHT_PLACED_IN_COUNTY,
    KNIGHT_RANSOMED,
    LAW_OPENED,
    LAW_PASSED,
    LAW_TOOK_EFFECT,
    LAW_USED,
    LAWS_PHASE,
    NEXT_ROUND_PHASE,
    OVER_PHASE,
    PLACEMENT_PHASE,
    PRISONERS_LOST,
    ROUND_ENDED,
    ROUND_STARTED,
    START_EXTENSION_BUILT,
    START_PHASE,
    START_PLAYER_CHOSEN,
    VOTE_COMMITTED,
    VOTE_PHASE,
    VOTES_REVEALED,
)
from domain.games.lancaster.state import State, seat_of
from domain.rng import Rng

_EVOLVE: dict[str, Callable[[State, Event], State]] = {
    GAME_SET_UP: setup.evolve_setup,
    START_EXTENSION_BUILT: setup.evolve_start,
    KNIGHT_PLACED_IN_COUNTY: placement.evolve_county,
    KNIGHT_PLACED_IN_CASTLE: placement.evolve_castle,
    KNIGHT_PLACED_IN_CONFLICT: placement.evolve_conflict,
    FAVOUR_TAKEN: placement.evolve_favour,
    VOTE_COMMITTED: parliament.evolve_vote,
    VOTES_REVEALED: parliament.evolve_reveal,
    LAW_TOOK_EFFECT: parliament.evolve_took_effect,
    LAW_OPENED: parliament.evolve_opened,
    LAW_USED: parliament.evolve_decided,
    LAW_PASSED: parliament.evolve_decided,
    COUNTY_REWARDED: rewards.evolve_county_reward,
    START_PLAYER_CHOSEN: rewards.evolve_start_player,
    CASTLE_REWARD_TAKEN: rewards.evolve_castle_reward,
    CASTLE_PASSED: rewards.evolve_castle_pass,
    CASTLE_FINISHED: rewards.evolve_castle_finished,
    CONFLICT_RESOLVED: conflicts.evolve_resolved,
    KNIGHT_RANSOMED: conflicts.evolve_ransomed,
    PRISONERS_LOST: conflicts.evolve_lost,
    ROUND_ENDED: setup.evolve_round_ended,
    ROUND_STARTED: setup.evolve_round_started,
}


def evolve(state: State, event: Event) -> State:
    return _EVOLVE[event.type](state, event)


def is_over(state: State) -> bool:
    return state.phase == OVER_PHASE


# --- who acts ---------------------------------------------------------------------------------


def to_act(state: State) -> tuple[int, ...]:
    phase = state.phase
    if phase == START_PHASE:
        return tuple(s for s in range(state.n) if not state.players[s].built)
    if phase == PLACEMENT_PHASE:
        if state.favour_due is not None:
            return (seat_of(state, colour_of(state.favour_due)),)
        return () if state.turn is None else (state.turn,)
    if phase == VOTE_PHASE:
        return tuple(s for s in range(state.n) if s not in state.votes)
    if phase == LAWS_PHASE:
        return state.law_queue[:1] if state.law_queue else ()
    if phase == COUNTIES_PHASE:
        return (state.surrey,) if state.surrey is not None else (rewards.county_owner(state),)
    if phase == CASTLE_PHASE:
        return (rewards.castle_seat(state),) if rewards.castle_sources(state) else ()
    if phase == CONFLICTS_PHASE:
        seat = conflicts.ransom_seat(state)
        return () if seat is None else (seat,)
    return ()


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    phase = state.phase
    if phase == START_PHASE:
        return setup.legal_start(state, seat)
    if phase == PLACEMENT_PHASE:
        if state.favour_due is not None:
            return placement.legal_favours(state)
        return placement.legal_placements(state, seat)
    if phase == VOTE_PHASE:
        return parliament.legal_votes(state, seat)
    if phase == LAWS_PHASE:
        return parliament.legal_law_actions(state, seat)
    if phase == COUNTIES_PHASE:
        if state.surrey is not None:
            return [{"type": "choose_start_player", "seat": s} for s in range(state.n)]
        return rewards.county_options(state)
    if phase == CASTLE_PHASE:
        return rewards.legal_castle(state)
    return conflicts.legal_ransom(state)


# --- decide -----------------------------------------------------------------------------------

Decider = Callable[[State, int, dict[str, Any], Rng], list[Event]]


def _no_rng(fn: Callable[[State, int, dict[str, Any]], list[Event]]) -> Decider:
    return lambda state, seat, a, rng: fn(state, seat, a)


# action type -> (its phase, the rule named when it comes out of phase, the checks)
_DECIDERS: dict[str, tuple[str, str, Decider]] = {
    "build_start_extension": (START_PHASE, "LA-1", _no_rng(setup.decide_start)),
    "place_county": (PLACEMENT_PHASE, "LA-2.1", _no_rng(placement.decide_county)),
    "place_castle": (PLACEMENT_PHASE, "LA-2.2", _no_rng(placement.decide_castle)),
    "place_conflict": (PLACEMENT_PHASE, "LA-2.3", _no_rng(placement.decide_conflict)),
    "take_favour": (PLACEMENT_PHASE, "LA-2.3", _no_rng(placement.decide_favour)),
    "vote": (VOTE_PHASE, "LA-2.4", _no_rng(parliament.decide_vote)),
    "upgrade": (LAWS_PHASE, "LA-2.5", _no_rng(parliament.decide_law)),
    "buy": (LAWS_PHASE, "LA-2.5", _no_rng(parliament.decide_law)),
    "county_reward": (COUNTIES_PHASE, "LA-2.7", rewards.decide_county_reward),
    "choose_start_player": (COUNTIES_PHASE, "LA-2.7", _no_rng(rewards.decide_start_player)),
    "castle_reward": (CASTLE_PHASE, "LA-2.8", rewards.decide_castle_reward),
    "ransom": (CONFLICTS_PHASE, "LA-2.9", _no_rng(conflicts.decide_ransom)),
}
# phase -> (the rule of passing there, the checks)
_PASSES: dict[str, tuple[str, Decider]] = {
    LAWS_PHASE: ("LA-2.5", _no_rng(parliament.decide_law)),
    CASTLE_PHASE: ("LA-2.8", lambda state, seat, a, rng: rewards.decide_castle_pass(state, seat)),
    CONFLICTS_PHASE: (
        "LA-2.9",
        lambda state, seat, a, rng: [conflicts.prisoners_lost(state, seat)],
    ),
}


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
    if phase == LAWS_PHASE and state.law_queue is None:
        return parliament.open_law(state, rng)
    if phase == CASTLE_PHASE and not rewards.castle_sources(state):
        return rewards.castle_finish(state)
    if phase == CONFLICTS_PHASE:
        if state.prisoners:
            return None  # an owner decides on ransoms
        if state.conflict_queue:
            return conflicts.resolve(state)
        return setup.end_round(state)
    if phase == NEXT_ROUND_PHASE:
        return setup.start_round(state, rng)
    return None


def advance(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Play the automatic steps until someone must decide (or the game is over)."""
    events = []
    while (e := _auto(state, rng)) is not None:
        events.append(e)
        state = evolve(state, e)
    return state, events


def _played(
    state: State, seat: int, action: Mapping[str, Any], rng: Rng
) -> tuple[State, list[Event]]:
    events = _checked(state, seat, dict(action), rng)
    for e in events:
        state = evolve(state, e)
    state, auto = advance(state, rng)
    return state, events + auto


def decide(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    """The engine checked that ``seat`` is to act and the action's shape."""
    return _played(state, seat, action, rng)[1]


def play(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> State:
    """The state after ``decide`` and ``evolve`` of its events (which ``decide`` has already
    evolved: the search need not do it again)."""
    return _played(state, seat, action, rng)[0]
