"""Turn flow (KC-3): decide, evolve, whose turn, legal actions, the end and the result.

``decide`` checks an action against the rules and returns the events it causes, followed by the
automatic events of the flow (a castle phase with nothing to place, a King without tax markers,
an army that needs no refill, the crown turned over, the final taxation).  ``evolve`` applies one
event with ``dataclasses.replace``; it never fails and never draws.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.kings_and_castles import draws
from domain.games.kings_and_castles.attacks import can_attack_country, capture, legal_attacks
from domain.games.kings_and_castles.data import COUNTERS, ROUEN, TERRITORIES, ordered
from domain.games.kings_and_castles.events import (
    ATTACKS,
    ATTACKS_ENDED,
    BAG_REFILLED,
    BONUS,
    CASTLE_PLACED,
    CASTLES,
    CASTLES_ENDED,
    COUNTERS_DRAWN,
    CROWN_PLACED,
    CROWNS,
    ENEMIES_PLACED,
    FINAL,
    FINAL_TAX_COLLECTED,
    FORMING,
    OCCUPY,
    OVER,
    REFILL,
    ROUEN_OCCUPIED,
    TAX,
    TAX_COLLECTED,
    TAX_DECLINED,
    TERRITORY_CAPTURED,
    TURN_END,
    TURN_ENDED,
)
from domain.games.kings_and_castles.setup import crown_squares
from domain.games.kings_and_castles.state import (
    State,
    acting_colour,
    is_player_unit,
    king,
    mandated_country,
    since,
    town_values,
)
from domain.rng import Rng

# Which action types each phase takes.
PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    FORMING: ("draw",),
    CROWNS: ("place_crown",),
    BONUS: ("draw",),
    OCCUPY: ("occupy_rouen",),
    ATTACKS: ("attack", "end_attacks"),
    CASTLES: ("place_castle", "end_castles"),
    TAX: ("tax", "no_tax"),
    REFILL: ("refill",),
}


# --- whose turn, legal actions -------------------------------------------------------------


def to_act(state: State) -> tuple[int, ...]:
    colour = acting_colour(state)
    return () if colour is None else (state.owners[colour],)


def is_over(state: State) -> bool:
    return state.phase == OVER


def castle_targets(state: State) -> list[str]:
    """KC-7: territories held by a royal or baronial unit, without a castle."""
    return [t for t, h in state.territories.items() if is_player_unit(h) and t not in state.castles]


def _castles_in_army(state: State, colour: str) -> list[str]:
    return ordered(c for c in state.armies[colour] if COUNTERS[c].kind == "castle")


def _rouen_units(state: State, colour: str) -> list[str]:
    """One player-colour unit of each colour and kind (lowest id): the distinct choices.

    KC-2.6 (rules version 2): a royal unit (the King's colour); only if the army holds none,
    any player colour's unit.
    """
    units = [cid for cid in ordered(state.armies[colour]) if is_player_unit(cid)]
    if since(state, 2) and any(COUNTERS[cid].colour == colour for cid in units):
        units = [cid for cid in units if COUNTERS[cid].colour == colour]
    seen: dict[tuple[str, str], str] = {}
    for cid in units:
        c = COUNTERS[cid]
        seen.setdefault((c.colour, c.kind), cid)
    return list(seen.values())


def must_attack(state: State, attacks: list[dict[str, Any]] | None = None) -> str | None:
    """KC-3 (rules version 2): the square's country, while the King has not attacked it this
    turn and an attack on it is legal (``attacks``: the legal attacks, if already listed)."""
    country = mandated_country(state)
    if not since(state, 2) or country is None or country in state.countries_attacked:
        return None
    if attacks is None:
        return country if can_attack_country(state, country) else None
    return country if any(TERRITORIES[a["target"]].country == country for a in attacks) else None


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    colour = acting_colour(state)
    if colour is None or state.owners[colour] != seat:
        return []
    phase = state.phase
    if phase in (FORMING, BONUS, REFILL):
        kind = "refill" if phase == REFILL else "draw"
        options = draws.options(state.households[colour], draws.needed(state))
        return [{"type": kind, **o} for o in options]
    if phase == CROWNS:
        return [{"type": "place_crown", "square": s} for s in crown_squares(state, colour)]
    if phase == OCCUPY:
        return [{"type": "occupy_rouen", "counter": c} for c in _rouen_units(state, colour)]
    if phase == ATTACKS:
        attacks = legal_attacks(state)
        return attacks if must_attack(state, attacks) else [*attacks, {"type": "end_attacks"}]
    if phase == CASTLES:
        targets = castle_targets(state)
        return [
            *(
                {"type": "place_castle", "counter": c, "territory": t}
                for c in _castles_in_army(state, colour)
                for t in targets
            ),
            {"type": "end_castles"},
        ]
    if phase == TAX:
        tax = [{"type": "tax"}] if state.tax_markers[colour] > 0 else []
        return [*tax, {"type": "no_tax"}]
    return []


# --- decide --------------------------------------------------------------------------------


def decide(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    colour = acting_colour(state)
    kind = action["type"]
    if colour is None or kind not in PHASE_ACTIONS.get(state.phase, ()):
        rule = "KC-2" if state.phase in (FORMING, CROWNS) else "KC-3"
        raise IllegalAction(rule, f"{kind} is not possible in the {state.phase} phase")
    return _settle(state, [_DECIDERS[kind](state, colour, action, rng)])


def _draw(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    counts = draws.check(state.households[colour], draws.needed(state), action)
    return draws.draw_event(state, colour, counts, action.get("bag", 0), rng)


def _place_crown(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    square = action["square"]  # required, an int: the engine checked the shape
    if square not in crown_squares(state, colour):
        if not 1 <= square <= state.last_square:
            raise IllegalAction("KC-2", f"no square {square} in this game")
        if square in state.crowns:
            raise IllegalAction("KC-2", f"square {square} already holds a crown")
        raise IllegalAction("KC-2", f"square {square} is next to a square with your crown")
    return Event(CROWN_PLACED, state.owners[colour], {"colour": colour, "square": square})


def _occupy_rouen(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    cid = action.get("counter")
    if cid not in state.armies[colour] or not is_player_unit(cid):
        raise IllegalAction("KC-2", f"{cid} is not a royal or baronial unit of the King's army")
    royal = any(COUNTERS[c].colour == colour for c in state.armies[colour] if is_player_unit(c))
    if since(state, 2) and royal and COUNTERS[cid].colour != colour:
        raise IllegalAction("KC-2.6", f"William I gains Rouen: put a {colour} unit there")
    return Event(ROUEN_OCCUPIED, state.owners[colour], {"colour": colour, "counter": cid})


def _attack(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    data = capture(state, action.get("target", ""), list(action.get("counters") or []))
    return Event(TERRITORY_CAPTURED, state.owners[colour], data)


def _end_attacks(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    country = must_attack(state)
    if country is not None:
        raise IllegalAction("KC-3", f"the King must attack {country} first: an attack is legal")
    return Event(ATTACKS_ENDED, state.owners[colour], {"colour": colour})


def _place_castle(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    cid, territory = action.get("counter"), action.get("territory")
    if cid not in state.armies[colour] or COUNTERS[cid].kind != "castle":
        raise IllegalAction("KC-7", f"{cid} is not a castle in the King's army")
    if territory not in TERRITORIES:
        raise IllegalAction("KC-7", f"unknown territory {territory!r}")
    if territory not in castle_targets(state):
        raise IllegalAction(
            "KC-7", f"{territory} is not held by a royal or baronial unit or has a castle"
        )
    data = {"colour": colour, "counter": cid, "territory": territory}
    return Event(CASTLE_PLACED, state.owners[colour], data)


def _tax(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
    if state.tax_markers[colour] <= 0:
        raise IllegalAction("KC-8", f"{colour} has no tax marker left")
    amounts = town_values(state)
    amounts[colour] *= 2  # KC-8: the King's colour earns double
    digits = {c: (state.money[c] + amounts[c]) % 10 for c in state.colours}
    data: dict[str, Any] = {"colour": colour, "amounts": amounts, "digits": digits}
    if not since(state, 2):  # version 1 events carried the (public) seats for the redaction
        data["seats"] = dict(state.owners)
    return Event(TAX_COLLECTED, state.owners[colour], data)


def _simple(event_type: str) -> Callable[..., Event]:
    def make(state: State, colour: str, action: Mapping[str, Any], rng: Rng) -> Event:
        return Event(event_type, state.owners[colour], {"colour": colour})

    return make


_DECIDERS: dict[str, Callable[[State, str, Mapping[str, Any], Rng], Event]] = {
    "draw": _draw,
    "refill": _draw,
    "place_crown": _place_crown,
    "occupy_rouen": _occupy_rouen,
    "attack": _attack,
    "end_attacks": _end_attacks,
    "place_castle": _place_castle,
    "end_castles": _simple(CASTLES_ENDED),
    "tax": _tax,
    "no_tax": _simple(TAX_DECLINED),
}


def _automatic(state: State) -> Event | None:
    """The next event the flow makes without a decision, if any."""
    if since(state, 2) and not state.bag and state.destroyed:  # KC-4: the bag refills at once
        return Event(BAG_REFILLED, None, {"returned": ordered(state.destroyed)})
    colour = king(state)
    if colour is not None:
        seat = state.owners[colour]
        if state.phase == CASTLES and not (
            _castles_in_army(state, colour) and castle_targets(state)
        ):
            return Event(CASTLES_ENDED, seat, {"colour": colour, "auto": True})
        if state.phase == TAX and state.tax_markers[colour] == 0:
            return Event(TAX_DECLINED, seat, {"colour": colour, "auto": True})
    if state.phase == TURN_END or (state.phase == REFILL and draws.needed(state) == 0):
        nxt = state.square + 1 if state.square < state.last_square else None
        return Event(TURN_ENDED, None, {"square": state.square, "next": nxt})
    if state.phase == FINAL:
        amounts = {c: 2 * v for c, v in town_values(state).items()}  # KC-3: final taxation
        money = {c: state.money[c] + amounts[c] for c in state.colours}
        return Event(FINAL_TAX_COLLECTED, None, {"amounts": amounts, "money": money})
    return None


def _settle(state: State, events: list[Event]) -> list[Event]:
    for event in events:
        state = evolve(state, event)
    while (auto := _automatic(state)) is not None:
        events.append(auto)
        state = evolve(state, auto)
    return events


# --- evolve --------------------------------------------------------------------------------


def _with(mapping: dict[Any, Any], key: Any, value: Any) -> dict[Any, Any]:
    out = dict(mapping)
    out[key] = value
    return out


def _enemies_placed(s: State, d: Mapping[str, Any]) -> State:
    placed = d["placements"]
    return replace(
        s,
        territories={**s.territories, **placed},
        bag=s.bag - frozenset(placed.values()),
        phase=FORMING,
        step=0,
    )


def _counters_drawn(s: State, d: Mapping[str, Any]) -> State:
    colour, home, drawn, returned = d["colour"], d["household"], d["bag"], d["returned"]
    army = s.armies[colour].union(home, drawn)
    s = replace(
        s,
        armies=_with(s.armies, colour, army),
        households=_with(s.households, colour, s.households[colour].difference(home)),
        bag=s.bag.union(returned).difference(drawn),
        destroyed=s.destroyed.difference(returned) if returned else s.destroyed,
    )
    if d["purpose"] == "army":
        done = s.step + 1 == len(s.colours)
        return replace(s, step=0 if done else s.step + 1, phase=CROWNS if done else FORMING)
    if d["purpose"] == "bonus":
        occupy = s.square == 1 and s.territories[ROUEN] is None
        occupy = occupy and any(is_player_unit(c) for c in army)
        return replace(s, phase=OCCUPY if occupy else ATTACKS)
    return replace(s, phase=TURN_END)


def _bag_refilled(s: State, d: Mapping[str, Any]) -> State:
    returned = frozenset(d["returned"])
    return replace(s, bag=s.bag | returned, destroyed=s.destroyed - returned)


def _crown_placed(s: State, d: Mapping[str, Any]) -> State:
    crowns = _with(s.crowns, d["square"], d["colour"])
    if s.step + 1 == s.last_square:
        return replace(s, crowns=crowns, step=0, phase=BONUS, square=1)
    return replace(s, crowns=crowns, step=s.step + 1)


def _rouen_occupied(s: State, d: Mapping[str, Any]) -> State:
    colour, cid = d["colour"], d["counter"]
    return replace(
        s,
        armies=_with(s.armies, colour, s.armies[colour] - {cid}),
        territories=_with(s.territories, ROUEN, cid),
        phase=ATTACKS,
    )


def _territory_captured(s: State, d: Mapping[str, Any]) -> State:
    colour, target, stays, country = d["colour"], d["target"], d["stays"], d["country"]
    used = frozenset(d["counters"])
    lost = [c for c in (d["defender"], d["castle"]) if c is not None]
    castles = s.castles
    if target in castles:
        castles = {t: c for t, c in castles.items() if t != target}
    attacked = s.countries_attacked
    return replace(
        s,
        armies=_with(s.armies, colour, s.armies[colour] - used),
        territories=_with(s.territories, target, stays),
        castles=castles,
        destroyed=s.destroyed.union(used - {stays}, lost),
        countries_attacked=attacked if country in attacked else (*attacked, country),
        other_country=d["other_country"],
    )


def _castle_placed(s: State, d: Mapping[str, Any]) -> State:
    colour, cid = d["colour"], d["counter"]
    return replace(
        s,
        armies=_with(s.armies, colour, s.armies[colour] - {cid}),
        castles=_with(s.castles, d["territory"], cid),
    )


def _tax_collected(s: State, d: Mapping[str, Any]) -> State:
    colour, amounts = d["colour"], d["amounts"]
    return replace(
        s,
        money={c: m + amounts.get(c, 0) for c, m in s.money.items()},
        tax_markers=_with(s.tax_markers, colour, s.tax_markers[colour] - 1),
        phase=REFILL,
    )


def _turn_ended(s: State, d: Mapping[str, Any]) -> State:
    turned = s.turned | {d["square"]}
    if d["next"] is None:
        return replace(s, turned=turned, phase=FINAL)
    return replace(
        s,
        turned=turned,
        square=d["next"],
        phase=BONUS,
        countries_attacked=(),
        other_country=None,
    )


def _final_tax(s: State, d: Mapping[str, Any]) -> State:
    return replace(s, money=dict(d["money"]), phase=OVER)


_EVOLVERS: dict[str, Callable[[State, Mapping[str, Any]], State]] = {
    ENEMIES_PLACED: _enemies_placed,
    COUNTERS_DRAWN: _counters_drawn,
    BAG_REFILLED: _bag_refilled,
    CROWN_PLACED: _crown_placed,
    ROUEN_OCCUPIED: _rouen_occupied,
    TERRITORY_CAPTURED: _territory_captured,
    ATTACKS_ENDED: lambda s, d: replace(s, phase=CASTLES),
    CASTLE_PLACED: _castle_placed,
    CASTLES_ENDED: lambda s, d: replace(s, phase=TAX),
    TAX_COLLECTED: _tax_collected,
    TAX_DECLINED: lambda s, d: replace(s, phase=REFILL),
    TURN_ENDED: _turn_ended,
    FINAL_TAX_COLLECTED: _final_tax,
}
EVENT_TYPES = tuple(_EVOLVERS)


def evolve(state: State, event: Event) -> State:
    return _EVOLVERS[event.type](state, event.data)


# --- result --------------------------------------------------------------------------------


def result(state: State) -> dict[str, Any]:
    """Most money wins, ties share; a 2-player seat scores the sum of its two colours."""
    scores = {
        seat: sum(m for c, m in state.money.items() if state.owners[c] == seat)
        for seat in range(state.players)
    }
    best = max(scores.values())
    ranking = sorted(scores, key=lambda seat: (-scores[seat], seat))
    return {
        "scores": {str(seat): v for seat, v in scores.items()},
        "winners": [seat for seat in ranking if scores[seat] == best],
        "ranking": ranking,
        "details": {"money_by_colour": dict(state.money)},
    }
