"""The whole secrecy policy of Lancaster (LA-5): state views and event redaction.

Private to the owner: gold and squires (behind the screen; public with 2 players, who play
without screens), the tile and markers of a committed vote until ``VotesRevealed``, and the
gold/squires split of a King's favour goods tile (others see ``{"goods": n}``).  Hidden from
everyone: the order of the law deck (its groups and their sizes are public), the conflict deck
and each extension pile (only their sizes are shown; none of these orders is stored anywhere).
Everything else is public: knights, squires on the board, vote marker counts, nobles, power,
extensions, laws, which seats have committed a vote.  ``full_view`` shows everything.
"""

from __future__ import annotations

from typing import Any

from domain.engine import Config, Event
from domain.games.lancaster import conflicts as conflict_rules
from domain.games.lancaster import rewards
from domain.games.lancaster.data import (
    CONFLICTS,
    COUNTIES,
    LETTERS,
    SPACE_IDS,
    colour_of,
    knights_of,
    strength,
)
from domain.games.lancaster.events import (
    CASTLE_PHASE,
    CONFLICTS_PHASE,
    COUNTIES_PHASE,
    FAVOUR_TAKEN,
    GAME_SET_UP,
    LAW_TOOK_EFFECT,
    LAWS_PHASE,
    PLACEMENT_PHASE,
    ROUND_STARTED,
    VOTE_COMMITTED,
    VOTE_PHASE,
    VOTES_REVEALED,
)
from domain.games.lancaster.rules import to_act
from domain.games.lancaster.state import Conflict, State, colours_in_play, order

REVEALING = frozenset({GAME_SET_UP, ROUND_STARTED, VOTES_REVEALED})


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see."""
    return _view(state, seat, full=False)


def full_view(state: State) -> dict[str, Any]:
    """Everything, for replay after the end."""
    return _view(state, None, full=True)


def _card(card: Conflict) -> dict[str, Any]:
    data = CONFLICTS[card.n]
    return {
        "n": card.n,
        "france": data["france"],
        "power": list(data["power"]),
        "spaces": [list(stack) for stack in card.spaces],
        "strengths": [sum(strength(k) for k in stack) for stack in card.spaces],
    }


def _knights(state: State, colour: str) -> dict[str, list[str]]:
    mine = knights_of(colour)
    return {
        "court": [k for k in mine if k in state.court],
        "reserve": [k for k in mine if k in state.reserve],
    }


def _pending(state: State) -> dict[str, Any] | None:
    """The decision the game waits for, in public terms."""
    phase = state.phase
    if phase == PLACEMENT_PHASE:
        if state.favour_due is not None:
            return {"kind": "favour", "knight": state.favour_due}
        return {"kind": "place", "seat": state.turn}
    if phase == VOTE_PHASE:
        return {"kind": "vote", "law": state.debate[0]}
    if phase == LAWS_PHASE and state.law_queue:
        return {"kind": "law", "law": state.current[state.law_pos], "seats": list(state.law_queue)}
    if phase == COUNTIES_PHASE:
        if state.surrey is not None:
            return {"kind": "start_player", "seat": state.surrey}
        return {"kind": "county", "county": LETTERS[state.county_pos]}
    if phase == CASTLE_PHASE:
        return {
            "kind": "castle",
            "seat": rewards.castle_seat(state),
            "taken": sorted(state.castle_taken),
        }
    if phase == CONFLICTS_PHASE and state.prisoners:
        return {"kind": "ransom", "seat": conflict_rules.ransom_seat(state)}
    return None


def _view(state: State, seat: int | None, full: bool) -> dict[str, Any]:
    players = []
    for s, p in enumerate(state.players):
        row: dict[str, Any] = {
            "seat": s,
            "colour": p.colour,
            "ally": p.ally,
            "power": p.power,
            "markers": p.markers,
            "nobles": list(p.nobles),
            "extensions": sorted(p.built),
            "extension_pile": len(SPACE_IDS) - len(p.built),
            "knights": _knights(state, p.colour),
        }
        if p.ally is not None:
            row["ally_knights"] = _knights(state, p.ally)
        if full or state.n == 2 or s == seat:
            row["gold"] = p.gold
            row["squires"] = p.squires
        players.append(row)
    castles: dict[str, dict[str, str]] = {c: {} for c in colours_in_play(state.n)}
    for k, sp in sorted(state.castle.items()):
        castles[colour_of(k)][sp] = k
    out: dict[str, Any] = {
        "you": seat,
        "round": state.round,
        "phase": state.phase,
        "start": state.start,
        "order": list(order(state)),
        "to_act": list(to_act(state)),
        "pending": _pending(state),
        "players": players,
        "counties": {
            L: {
                "name": COUNTIES[L]["name"],
                "min": COUNTIES[L]["min"],
                "reward": COUNTIES[L]["reward"],
                "nobles_left": state.noble_stock[L],
                "occupant": (
                    {"knight": state.counties[L].knight, "squires": state.counties[L].squires}
                    if L in state.counties
                    else None
                ),
            }
            for L in LETTERS
        },
        "castles": castles,
        "conflicts": {
            "upper": [_card(c) for c in state.upper],
            "lower": [_card(c) for c in state.lower],
            "deck": len(state.conflict_deck),
        },
        "prisoners": list(state.prisoners),
        "favour": {"face_up": sorted(state.favour_up), "conflict_knights": state.conflict_knights},
        "laws": {
            "current": list(state.current),
            "debate": list(state.debate),
            "deck": [len(g) for g in state.law_deck],
        },
    }
    if state.phase == VOTE_PHASE:
        vote: dict[str, Any] = {"law": state.debate[0], "committed": sorted(state.votes)}
        if seat is not None and seat in state.votes:
            v = state.votes[seat]
            vote["mine"] = {"tile": v.tile, "markers": v.markers}
        if full:
            vote["votes"] = {
                str(s): {"tile": v.tile, "markers": v.markers}
                for s, v in sorted(state.votes.items())
            }
        out["vote"] = vote
    if full:
        out["conflicts"]["deck_cards"] = list(state.conflict_deck)
        out["laws"]["deck_cards"] = [list(g) for g in state.law_deck]
    return out


def redact(event: Event, seat: int | None, config: Config) -> dict[str, Any]:
    """The data of ``event`` as ``seat`` (None: a spectator) may see it."""
    data = dict(event.data)
    if seat is not None and seat == event.seat:
        return data
    if event.type == VOTE_COMMITTED:
        return {"law": data["law"]}
    if event.type == FAVOUR_TAKEN:
        gains = dict(data["gains"])
        goods = gains.pop("gold", 0) + gains.pop("squires", 0)
        if goods:
            gains["goods"] = goods
        data["gains"] = gains
    return data


def _builds(event: Event) -> bool:
    d = event.data
    if event.type == LAW_TOOK_EFFECT:
        return any("build" in g for g in d["effects"].values())
    return "build" in d.get("gains", {})


def reveals(event: Event) -> bool:
    """Deals, the vote reveal and extension draws show hidden information."""
    return event.type in REVEALING or _builds(event)
