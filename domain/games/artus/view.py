"""The whole secrecy policy of Artus (AR-8, AR-10), in one module.

Hidden: each seat's hand (its owner sees it), the cards left in every pile (nobody sees them; the
order is not even stored) and the card a draw took (its drawer sees it).  Public: the board, the
scores, hand sizes, how many cards are left in each pile, which pile a draw came from and every
card played.  After the end, ``full_view`` shows everything for replay.
"""

from __future__ import annotations

from typing import Any

from domain.engine import Config, Event
from domain.games.artus.data import CARPET, COLOURS, ROUNDS
from domain.games.artus.events import CARD_DRAWN, GAME_STARTED
from domain.games.artus.rules import to_act
from domain.games.artus.state import State, knights_per_player


def _public(state: State) -> dict[str, Any]:
    b = state.board
    return {
        "rules": state.rules,
        "players": state.players,
        "colours": list(COLOURS[: state.players]),
        "knights_per_player": knights_per_player(state),
        "seats": list(b.seats),
        "king": b.king,
        "king_seat": b.king_seat(),
        "rings": dict(b.rings),
        "ring_supply": b.supply(),
        "values": b.values(),
        "zones": b.zones(),
        "carpet": list(CARPET),
        "scores": list(b.scores),
        "hand_sizes": [len(h) for h in state.hands],
        "piles": [{p: len(cards) for p, cards in own.items()} for own in state.piles],
        "played": list(state.played),
        "round": state.round,
        "rounds": ROUNDS[state.rules],
        "phase": state.phase,
        "to_act": list(to_act(state)),
        "turn": state.turn,
        "plays_left": state.plays_left,
        "draws_left": state.draws_left,
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (None: a spectator, who gets no ``hand``)."""
    out = _public(state)
    out["seat"] = seat
    if seat is not None:
        out["hand"] = list(state.hands[seat])
    return out


def full_view(state: State) -> dict[str, Any]:
    """Everything: every hand and the cards left in every pile (for replay after the end)."""
    out = _public(state)
    out["seat"] = None
    out["hands"] = [list(h) for h in state.hands]
    out["pile_cards"] = [{p: list(cards) for p, cards in own.items()} for own in state.piles]
    return out


def redact(event: Event, seat: int | None, config: Config) -> dict[str, Any]:
    """The data of ``event`` as ``seat`` may see it."""
    data = dict(event.data)
    if event.type == GAME_STARTED:
        hands = data["hands"]
        data["hand_sizes"] = [len(h) for h in hands]
        data["hands"] = [list(h) if s == seat else None for s, h in enumerate(hands)]
    elif event.type == CARD_DRAWN and seat != event.seat:
        data = {"pile": data["pile"]}
    return data


def reveals(event: Event) -> bool:
    """Deals and draws show hidden cards to their owner."""
    return event.type in (GAME_STARTED, CARD_DRAWN)
