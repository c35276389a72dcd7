"""Phase 3, rewards: counties A to I (LA-2.7, Surrey's start player) and castles (LA-2.8).

County: the occupant's owner takes the noble tile, the reward, or both for 3 gold (``take``);
Gloucester's upgrade names the knight in ``knight``.  Castle: from the start player, each player
takes the rewards of their castle knights and extensions one ``castle_reward`` at a time in the
order they like, or ``pass`` to leave the rest; then ``CastleFinished`` gives the vote markers
of the guests (1 + nobles at the table; none in the last round).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.lancaster.conflicts import enter_conflicts
from domain.games.lancaster.data import (
    BOTH_COST,
    COUNTIES,
    LETTERS,
    ROUNDS,
    SPACE_IDS,
    SPACES,
    SURREY,
    colour_of,
)
from domain.games.lancaster.events import (
    CASTLE_FINISHED,
    CASTLE_PASSED,
    CASTLE_PHASE,
    CASTLE_REWARD_TAKEN,
    COUNTIES_PHASE,
    COUNTY_REWARDED,
    START_PLAYER_CHOSEN,
)
from domain.games.lancaster.gains import merge, reward_gains
from domain.games.lancaster.state import (
    State,
    apply_gains,
    is_ally,
    order,
    seat_of,
    set_player,
    upgradable,
    weakest_reserve,
)
from domain.rng import Rng

# --- counties ---------------------------------------------------------------------------------


def _next_county(state: State, after: int) -> State:
    for i in range(after + 1, len(LETTERS)):
        if LETTERS[i] in state.counties:
            return replace(state, county_pos=i)
    return enter_castle(state)


def enter_counties(state: State) -> State:
    return _next_county(replace(state, phase=COUNTIES_PHASE, surrey=None), -1)


def county_owner(state: State) -> int:
    return seat_of(state, colour_of(state.counties[LETTERS[state.county_pos]].knight))


def county_options(state: State) -> list[dict[str, Any]]:
    letter = LETTERS[state.county_pos]
    colour = colour_of(state.counties[letter].knight)
    ally = is_ally(state, colour)
    p = state.players[seat_of(state, colour)]
    noble = state.noble_stock[letter] > 0 and (ally or letter not in p.nobles)
    takes = ["noble"] if noble else []
    takes.append("reward")
    if noble and not ally and p.gold >= BOTH_COST:
        takes.append("both")
    upgrades = upgradable(state, colour) if COUNTIES[letter]["reward"].get("upgrade") else []
    out: list[dict[str, Any]] = []
    for take in takes:
        base = {"type": "county_reward", "county": letter, "take": take}
        if take != "noble" and upgrades:
            out += [{**base, "knight": k} for k in upgrades]
        else:
            out.append(base)
    return out


def decide_county_reward(state: State, seat: int, a: dict[str, Any], rng: Rng) -> list[Event]:
    if state.surrey is not None:
        raise IllegalAction("LA-2.7", "Surrey's holder chooses the start player first")
    letter = LETTERS[state.county_pos]
    if a["county"] != letter:
        raise IllegalAction("LA-2.7", f"county {letter} is being rewarded now, not {a['county']}")
    if a not in county_options(state):
        raise IllegalAction(
            "LA-2.7",
            f"{a['take']} is not possible at {letter} (one noble per letter and per player, "
            f"both costs {BOTH_COST} gold; an upgrade names an upgradable knight)",
        )
    colour = colour_of(state.counties[letter].knight)
    take = a["take"]
    parts: list[dict[str, Any]] = []
    if take in ("noble", "both"):
        parts.append({"noble_removed" if is_ally(state, colour) else "noble": letter})
    if take in ("reward", "both"):
        reward = COUNTIES[letter]["reward"]
        parts.append(reward_gains(state, colour, reward, rng, a.get("knight")))
    if take == "both":
        parts.append({"gold": -BOTH_COST})
    data = {"county": letter, "take": take, "knight": state.counties[letter].knight}
    return [Event(COUNTY_REWARDED, seat, {**data, "gains": merge(*parts)})]


def evolve_county_reward(state: State, e: Event) -> State:
    state = apply_gains(state, e.by, e.data["gains"])
    if e.data["county"] == SURREY:
        return replace(state, surrey=e.seat)
    return _next_county(state, state.county_pos)


def decide_start_player(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    if state.surrey != seat:
        raise IllegalAction("LA-2.7", "only Surrey's holder chooses the start player, once")
    if not 0 <= a["seat"] < state.n:
        raise IllegalAction("LA-2.7", f"there is no seat {a['seat']}")
    return [Event(START_PLAYER_CHOSEN, seat, {"start": a["seat"]})]


def evolve_start_player(state: State, e: Event) -> State:
    state = replace(state, start=e.data["start"], surrey=None)  # the new order applies at once
    return _next_county(state, state.county_pos)


# --- castles ----------------------------------------------------------------------------------


def enter_castle(state: State) -> State:
    return replace(
        state, phase=CASTLE_PHASE, castle_pos=0, castle_taken=frozenset(), castle_passed=False
    )


def castle_seat(state: State) -> int:
    return order(state)[state.castle_pos]


def castle_sources(state: State) -> list[str]:
    """The current castle player's sources not taken yet (own castle knights, extensions)."""
    if state.castle_passed:
        return []
    p = state.players[castle_seat(state)]
    used = {sp for k, sp in state.castle.items() if colour_of(k) == p.colour} | p.built
    return [sp for sp in SPACE_IDS if sp in used and sp not in state.castle_taken]


def castle_options(state: State) -> list[dict[str, Any]]:
    """The sources the current castle player can take now (each once, any order)."""
    p = state.players[castle_seat(state)]
    out: list[dict[str, Any]] = []
    for source in castle_sources(state):
        reward = SPACES[source]
        if reward.get("pay_squires", 0) > p.squires:
            continue
        if reward.get("new_knight") and not weakest_reserve(state, p.colour):
            continue
        base = {"type": "castle_reward", "source": source}
        if reward.get("upgrade"):
            out += [{**base, "knight": k} for k in upgradable(state, p.colour)]
        else:
            out.append(base)
    return out


def legal_castle(state: State) -> list[dict[str, Any]]:
    """While sources are left the player is asked (``pass`` is always possible), so that
    squires too few to pay for a source stay behind the screen."""
    return [*castle_options(state), {"type": "pass"}] if castle_sources(state) else []


def decide_castle_reward(state: State, seat: int, a: dict[str, Any], rng: Rng) -> list[Event]:
    if a not in castle_options(state):
        raise IllegalAction(
            "LA-2.8",
            f"castle reward {a.get('source')!r} is not available: each knight or extension pays "
            "once, a payment needs the squires, an upgrade an upgradable knight",
        )
    p = state.players[seat]
    gains = reward_gains(state, p.colour, SPACES[a["source"]], rng, a.get("knight"))
    return [Event(CASTLE_REWARD_TAKEN, seat, {"source": a["source"], "gains": gains})]


def decide_castle_pass(state: State, seat: int) -> list[Event]:
    return [Event(CASTLE_PASSED, seat, {})]


def castle_finish(state: State) -> Event:
    seat = castle_seat(state)
    markers = 0 if state.round >= ROUNDS else 1 + len(state.players[seat].nobles)
    return Event(CASTLE_FINISHED, seat, {"markers": markers})


def evolve_castle_reward(state: State, e: Event) -> State:
    state = apply_gains(state, e.by, e.data["gains"])
    return replace(state, castle_taken=state.castle_taken | {e.data["source"]})


def evolve_castle_pass(state: State, e: Event) -> State:
    return replace(state, castle_passed=True)


def evolve_castle_finished(state: State, e: Event) -> State:
    p = state.players[e.by]
    state = set_player(state, e.by, markers=p.markers + e.data["markers"])
    state = replace(
        state, castle_pos=state.castle_pos + 1, castle_taken=frozenset(), castle_passed=False
    )
    return enter_conflicts(state) if state.castle_pos >= state.n else state
