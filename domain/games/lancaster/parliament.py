"""Phase 2, parliament: secret votes (LA-2.4), the current laws taking effect (LA-2.5) and vote
markers returning to the supply (LA-2.6).

Laws that need no choice take effect for every player in one ``LawTookEffect`` event.  Laws with
a choice are opened with ``LawOpened`` listing the seats to decide, in player order from the
start player: for upgrades (L1, L9, L10) the seats that can use them (public facts, and L1's
"most gold" is revealed by the law itself); for purchases (L4, L5, L16) every seat, so that who
cannot pay stays hidden.  Each of those seats then plays ``upgrade``/``buy`` or ``pass``.
Allies never count for laws (LA-4).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.lancaster.data import strength
from domain.games.lancaster.events import (
    LAW_OPENED,
    LAW_PASSED,
    LAW_TOOK_EFFECT,
    LAW_USED,
    LAWS_PHASE,
    VOTE_COMMITTED,
    VOTE_PHASE,
    VOTES_REVEALED,
)
from domain.games.lancaster.gains import draw_extensions
from domain.games.lancaster.rewards import enter_counties
from domain.games.lancaster.state import (
    State,
    Vote,
    apply_gains,
    conflicts_joined,
    counties_held,
    deployed,
    order,
    upgradable,
    upgrade_target,
    weakest_reserve,
)
from domain.rng import Rng

TILES = ("yes", "no")

# --- votes ------------------------------------------------------------------------------------


def legal_votes(state: State, seat: int) -> list[dict[str, Any]]:
    law = state.debate[0]
    top = state.players[seat].markers
    return [
        {"type": "vote", "law": law, "tile": t, "markers": m} for t in TILES for m in range(top + 1)
    ]


def decide_vote(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    if state.phase != VOTE_PHASE:
        raise IllegalAction("LA-2.4", "no law is being voted now")
    if seat in state.votes:
        raise IllegalAction("LA-2.4", "you have already committed your vote on this law")
    law = state.debate[0]
    if a["law"] != law:
        raise IllegalAction("LA-2.4", f"the law being voted is {law}, not {a['law']}")
    tile, markers = a["tile"], a["markers"]
    if tile not in TILES:
        raise IllegalAction("LA-2.4", "the vote tile is yes or no")
    if not 0 <= markers <= state.players[seat].markers:
        raise IllegalAction(
            "LA-2.4", f"you can commit 0 to {state.players[seat].markers} vote markers"
        )
    events = [Event(VOTE_COMMITTED, seat, {"law": law, "tile": tile, "markers": markers})]
    votes = {**state.votes, seat: Vote(tile, markers)}
    if len(votes) == state.n:
        events.append(_reveal(state, law, votes))
    return events


def _reveal(state: State, law: str, votes: dict[int, Vote]) -> Event:
    yes = sum(1 + v.markers for v in votes.values() if v.tile == "yes")
    no = sum(1 + v.markers for v in votes.values() if v.tile == "no")
    approved = yes >= no  # a tie approves
    return Event(
        VOTES_REVEALED,
        None,
        {
            "law": law,
            "votes": {
                str(s): {"tile": v.tile, "markers": v.markers} for s, v in sorted(votes.items())
            },
            "yes": yes,
            "no": no,
            "approved": approved,
            "dropped": state.current[0] if approved else None,
        },
    )


def evolve_vote(state: State, e: Event) -> State:
    d = e.data
    return replace(state, votes={**state.votes, e.seat: Vote(d["tile"], d["markers"])})


def evolve_reveal(state: State, e: Event) -> State:
    d = e.data
    debate = state.debate[1:]
    if not debate:  # the last law: every marker is spent (LA-2.6)
        players = tuple(replace(p, markers=0) for p in state.players)
    else:
        changed = list(state.players)
        for s, v in d["votes"].items():
            p = changed[int(s)]
            changed[int(s)] = replace(p, markers=p.markers - v["markers"])
        players = tuple(changed)
    current = state.current
    if d["approved"]:
        current = (*current[1:], d["law"])  # the leftmost is pushed out, the new law enters right
    state = replace(state, players=players, votes={}, debate=debate, current=current)
    if debate:
        return state
    return replace(state, phase=LAWS_PHASE, law_pos=0, law_queue=None)


# --- laws taking effect -----------------------------------------------------------------------


def _most(state: State, seat: int, attr: str) -> bool:
    """'Most X' laws reward every tied player; nobody has the most of nothing."""
    top = max(getattr(p, attr) for p in state.players)
    return bool(top > 0 and getattr(state.players[seat], attr) == top)


def _auto_gains(state: State, seat: int, law: str, rng: Rng) -> dict[str, Any]:
    p = state.players[seat]
    c = p.colour
    # each count is taken only by the laws that need it (every search playout opens laws)
    if law == "L2":
        rec = weakest_reserve(state, c, 1, exact=1) if _most(state, seat, "squires") else []
        return {"recruit": rec} if rec else {}
    if law == "L3":
        return {"power": 3 * (counties_held(state, c) // 2)}
    if law == "L6":
        built = draw_extensions(state, seat, conflicts_joined(state, c) // 2, rng)
        return {"build": built} if built else {}
    if law == "L7":
        return {"squires": sum(1 for k in deployed(state, c) if strength(k) == 2)}
    if law == "L8":
        half = conflicts_joined(state, c) // 2
        return {"squires": half, "markers": half, "gold": half}
    if law == "L11":
        return {"power": 5 * (len(p.built) // 3)}
    if law == "L12":
        return {"power": 3 * conflicts_joined(state, c)}
    if law == "L13":
        return {"power": 8 * (counties_held(state, c) // 3)}
    if law == "L14":
        ones = sum(1 for k in deployed(state, c) if strength(k) == 1)
        return {"power": 5 if ones == 3 else 0}
    if law == "L15":
        rec = weakest_reserve(state, c, len(p.nobles) // 3)
        return {"recruit": rec} if rec else {}
    if law == "L17":
        return {"power": 4 if f"{c}-4" in deployed(state, c) else 0}
    if law == "L18":
        return {"power": len(p.nobles)}
    raise AssertionError(law)


def _upgrades(state: State, seat: int, law: str) -> list[str]:
    c = state.players[seat].colour
    if law == "L1":
        return upgradable(state, c, only_deployed=True) if _most(state, seat, "gold") else []
    if law == "L9":
        if any(strength(k) == 2 for k in deployed(state, c)):
            return []
        return upgradable(state, c)
    # L10: a deployed strength-3 knight for the strength-4 knight in the reserve
    return [k for k in upgradable(state, c, only_deployed=True) if strength(k) == 3]


UPGRADE_LAWS = ("L1", "L9", "L10")
# purchase laws: law -> (price in gold, in squires, what one purchase brings)
PURCHASES: dict[str, tuple[int, int, dict[str, int]]] = {
    "L4": (1, 0, {"markers": 1}),
    "L5": (1, 1, {"power": 3}),
    "L16": (1, 0, {"power": 1}),
}


def _purchase_max(state: State, seat: int, law: str) -> int:
    gold, squires, _ = PURCHASES[law]
    p = state.players[seat]
    return min(p.gold // gold, p.squires // squires if squires else p.gold)


def _purchase_gains(law: str, count: int) -> dict[str, int]:
    gold, squires, item = PURCHASES[law]
    gains = {"gold": -gold * count, "squires": -squires * count}
    gains.update({k: v * count for k, v in item.items()})
    return {k: v for k, v in gains.items() if v}


def law_options(state: State, seat: int, law: str) -> list[dict[str, Any]]:
    """A seat's ways to use a law with a choice (``pass`` aside); empty: it cannot use it."""
    if law in UPGRADE_LAWS:
        return [{"type": "upgrade", "knight": k} for k in _upgrades(state, seat, law)]
    top = _purchase_max(state, seat, law)
    return [{"type": "buy", "count": n} for n in range(1, top + 1)]


def open_law(state: State, rng: Rng) -> Event:
    """The automatic step of the law at ``law_pos``: its effect, or who may decide on it."""
    law = state.current[state.law_pos]
    if law in PURCHASES:  # everyone is asked: who cannot pay stays behind the screen
        return Event(LAW_OPENED, None, {"law": law, "seats": list(order(state))})
    if law in UPGRADE_LAWS:
        seats = [s for s in order(state) if law_options(state, s, law)]
        return Event(LAW_OPENED, None, {"law": law, "seats": seats})
    effects = {}
    for s in order(state):
        gains = {k: v for k, v in _auto_gains(state, s, law, rng).items() if v}
        if gains:
            effects[str(s)] = gains
    return Event(LAW_TOOK_EFFECT, None, {"law": law, "effects": effects})


def legal_law_actions(state: State, seat: int) -> list[dict[str, Any]]:
    return [*law_options(state, seat, state.current[state.law_pos]), {"type": "pass"}]


def decide_law(state: State, seat: int, a: dict[str, Any]) -> list[Event]:
    if state.phase != LAWS_PHASE or not state.law_queue or state.law_queue[0] != seat:
        raise IllegalAction("LA-2.5", "no law is waiting for your decision")
    law = state.current[state.law_pos]
    if a["type"] == "pass":
        return [Event(LAW_PASSED, seat, {"law": law})]
    if a not in law_options(state, seat, law):
        raise IllegalAction("LA-2.5", f"{law} does not allow {a}")
    if a["type"] == "upgrade":
        gains: dict[str, Any] = {"upgrade": [a["knight"], upgrade_target(state, a["knight"])]}
    else:
        gains = _purchase_gains(law, a["count"])
    return [Event(LAW_USED, seat, {"law": law, "gains": gains})]


def _next_law(state: State) -> State:
    state = replace(state, law_pos=state.law_pos + 1, law_queue=None)
    return enter_counties(state) if state.law_pos >= len(state.current) else state


def evolve_took_effect(state: State, e: Event) -> State:
    for s, gains in e.data["effects"].items():
        state = apply_gains(state, int(s), gains)
    return _next_law(state)


def evolve_opened(state: State, e: Event) -> State:
    seats = tuple(e.data["seats"])
    return replace(state, law_queue=seats) if seats else _next_law(state)


def evolve_decided(state: State, e: Event) -> State:
    state = apply_gains(state, e.by, e.data.get("gains", {}))
    queue = state.law_queue[1:] if state.law_queue else ()
    return replace(state, law_queue=queue) if queue else _next_law(state)
