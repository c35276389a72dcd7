"""Artus state machine: set-up, turn order, decide and evolve (AR-2, AR-3, AR-7).

The board and the card resolution live in ``board.py``, card actions and their checks in
``actions.py``, the state in ``state.py``; this module adds the deals, phases and turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine import Config, Event
from domain.errors import IllegalAction
from domain.frozen import replace
from domain.games.artus.actions import card_actions, check_play
from domain.games.artus.board import Board, apply, put, resolve
from domain.games.artus.data import (
    CARDS_PER_TURN,
    COLOURS,
    FIRST_KING,
    HAND,
    KING_RINGS,
    N_SEATS,
    PRINCE_SEATS,
    RULES,
    knight_id,
    piles_used,
    player_cards,
)
from domain.games.artus.events import (
    CARD_DRAWN,
    CARD_PLAYED,
    DRAW,
    GAME_STARTED,
    KNIGHT_PLACED,
    OVER,
    PLACEMENT,
    PLAY,
)
from domain.games.artus.state import State, knights_per_player
from domain.rng import Rng


def initial(config: Config) -> State:
    """Princes on their crown seats, full piles, nothing dealt yet (AR-2)."""
    n = config.n
    rules = config.options.get("rules", RULES[0])
    seats: list[str | None] = [None] * N_SEATS
    rings = {}
    for prince, seat in PRINCE_SEATS:
        seats[seat] = prince
        rings[prince] = KING_RINGS if prince == FIRST_KING else 1
    board = Board(tuple(seats), FIRST_KING, rings, (0,) * n)
    return State(
        players=n,
        rules=rules,
        board=board,
        hands=((),) * n,
        piles=tuple(player_cards(s, rules) for s in range(n)),
    )


def setup(config: Config, rng: Rng) -> list[Event]:
    """Deal every hand from the shuffled piles: one ``GameStarted`` event (AR-2)."""
    state = initial(config)
    hands = []
    for seat in range(state.players):
        hand: list[str] = []
        for pile, count in HAND[state.rules].items():
            left = list(state.piles[seat][pile])
            for _ in range(count):
                card = rng.choice(left)
                left.remove(card)
                hand.append(card)
        hands.append(sorted(hand))
    return [
        Event(
            GAME_STARTED,
            None,
            {
                "rules": state.rules,
                "players": state.players,
                "colours": list(COLOURS[: state.players]),
                "knights_per_player": knights_per_player(state),
                "hands": hands,
            },
        )
    ]


def to_act(state: State) -> tuple[int, ...]:
    if state.phase == PLACEMENT:
        # From the seat before the start player (seat 0), counter-clockwise (AR-2).
        return (state.players - 1 - state.placed % state.players,)
    if state.phase in (PLAY, DRAW):
        return (state.turn,)
    return ()


def is_over(state: State) -> bool:
    return state.phase == OVER


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    if state.phase == PLACEMENT:
        return [
            {"type": "place_knight", "seat": s}
            for s, f in enumerate(state.board.seats)
            if f is None
        ]
    if state.phase == DRAW:
        return [{"type": "draw", "pile": p} for p, cards in state.piles[seat].items() if cards]
    return [a for card in state.hands[seat] for a in card_actions(state.board, seat, card)]


def decide(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    kind = action["type"]
    if kind == "place_knight":
        return _decide_place(state, seat, action)
    if kind == "play":
        return _decide_play(state, seat, action)
    return _decide_draw(state, seat, action, rng)  # the engine checked the type is known


def _decide_place(state: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
    if state.phase != PLACEMENT:
        raise IllegalAction("AR-2", "all knights are placed; knights are placed only at the start")
    target = action["seat"]
    if not 0 <= target < N_SEATS:  # the engine checked it is an int
        raise IllegalAction("AR-1", f"seats are numbered 0-{N_SEATS - 1}")
    occupant = state.board.seats[target]
    if occupant is not None:
        raise IllegalAction("AR-2", f"seat {target} is taken by {occupant}; place on an empty seat")
    mine = len(state.board.knights_of(seat))
    knight = knight_id(COLOURS[seat], mine + 1)
    return [Event(KNIGHT_PLACED, seat, {"seat": target, "knight": knight})]


def _decide_play(state: State, seat: int, action: Mapping[str, Any]) -> list[Event]:
    if state.phase == PLACEMENT:
        raise IllegalAction("AR-2", "place all knights before playing cards")
    if state.phase == DRAW:
        raise IllegalAction("AR-3", "draw now: cards are drawn after playing")
    if state.phase != PLAY:
        raise IllegalAction("AR-3", "no card can be played now: every card is played")
    card = check_play(state.board, seat, state.hands[seat], action)
    outcome = resolve(state.board, seat, action)
    data = {k: v for k, v in action.items() if k != "type"}
    if card.kind in ("knight", "move"):
        data.setdefault("direction", "cw")
    if isinstance(data.get("knights"), list):
        data["knights"] = list(data["knights"])
    data["kind"] = card.kind
    data.update(outcome)
    return [Event(CARD_PLAYED, seat, data)]


def _decide_draw(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    if state.phase == PLACEMENT:
        raise IllegalAction("AR-2", "place all knights first")
    if state.phase == PLAY:
        raise IllegalAction("AR-3", "play your card(s) first; draw afterwards")
    if state.phase != DRAW:
        raise IllegalAction("AR-3", "no card can be drawn now: every card is played")
    pile = action["pile"]  # one of PILE_NAMES: the engine checked the field's choices
    if pile not in piles_used(state.rules):
        raise IllegalAction("AR-2", f"the {pile} pile is not used in the {state.rules} game")
    left = state.piles[seat][pile]
    if not left:
        raise IllegalAction("AR-3", f"your {pile} pile is empty")
    card = rng.choice(left)  # the pile is kept sorted: a uniform draw = top of a shuffled pile
    return [Event(CARD_DRAWN, seat, {"pile": pile, "card": card})]


# -- evolve -----------------------------------------------------------------------------------


def evolve(state: State, event: Event) -> State:
    """Apply one event; an unknown event type raises ``KeyError`` (as in every game)."""
    return _EVOLVE[event.type](state, event)


def _started(state: State, event: Event) -> State:
    hands = tuple(tuple(sorted(h)) for h in event.data["hands"])
    dealt = {c for h in hands for c in h}
    piles = tuple(
        {p: tuple(c for c in cards if c not in dealt) for p, cards in own.items()}
        for own in state.piles
    )
    return replace(state, hands=hands, piles=piles, phase=PLACEMENT)


def _placed(state: State, event: Event) -> State:
    target = event.data["seat"]
    b = state.board
    seats = put(b.seats, target, event.data["knight"])
    board = Board(seats, b.king, b.rings, b.scores)
    placed = state.placed + 1
    if placed < knights_per_player(state) * state.players:
        return replace(state, board=board, placed=placed)
    per_turn = CARDS_PER_TURN[state.rules]
    return replace(
        state,
        board=board,
        placed=placed,
        phase=PLAY,
        turn=0,
        round=1,
        plays_left=min(per_turn, len(state.hands[0])),
    )


def _card_played(state: State, event: Event) -> State:
    seat = event.seat
    assert seat is not None
    data = event.data
    card = data["card"]
    board = apply(state.board, seat, data)
    hand = tuple(c for c in state.hands[seat] if c != card)
    hands = put(state.hands, seat, hand)
    played = (*state.played, card)
    plays_left = state.plays_left - 1
    if plays_left > 0 and hand:
        return replace(state, board=board, hands=hands, played=played, plays_left=plays_left)
    if any(state.piles[seat].values()):
        return replace(
            state,
            board=board,
            hands=hands,
            played=played,
            plays_left=0,
            phase=DRAW,
            draws_left=CARDS_PER_TURN[state.rules],
        )
    return _next_turn(replace(state, board=board, hands=hands, played=played))


def _card_drawn(state: State, event: Event) -> State:
    seat = event.seat
    assert seat is not None
    pile, card = event.data["pile"], event.data["card"]
    mine = state.piles[seat]
    own = {**mine, pile: tuple(c for c in mine[pile] if c != card)}
    piles = put(state.piles, seat, own)
    hand = tuple(sorted((*state.hands[seat], card)))
    hands = put(state.hands, seat, hand)
    draws_left = state.draws_left - 1
    if draws_left > 0 and any(own.values()):
        return replace(state, piles=piles, hands=hands, draws_left=draws_left)
    return _next_turn(replace(state, piles=piles, hands=hands))


def _next_turn(state: State) -> State:
    """Play passes clockwise (ascending seats); the game ends when every card is played."""
    n = state.players
    for i in range(1, n + 1):
        nxt = (state.turn + i) % n
        if state.hands[nxt]:
            break
    else:
        return replace(state, phase=OVER, plays_left=0, draws_left=0)
    return replace(
        state,
        phase=PLAY,
        turn=nxt,
        round=state.round + (1 if nxt <= state.turn else 0),
        plays_left=min(CARDS_PER_TURN[state.rules], len(state.hands[nxt])),
        draws_left=0,
    )


_EVOLVE = {
    GAME_STARTED: _started,
    KNIGHT_PLACED: _placed,
    CARD_PLAYED: _card_played,
    CARD_DRAWN: _card_drawn,
}


def result(state: State) -> dict[str, Any]:
    """Highest score wins; ties share the win (AR-7)."""
    scores = state.board.scores
    best = max(scores)
    ranking = sorted(range(state.players), key=lambda s: (-scores[s], s))
    return {
        "scores": {str(s): scores[s] for s in range(state.players)},
        "winners": [s for s in range(state.players) if scores[s] == best],
        "ranking": ranking,
        "details": {
            "rules": state.rules,
            "colours": list(COLOURS[: state.players]),
            "rounds": state.round,
            "cards_played": len(state.played),
            "king": state.board.king,
            "rings": dict(state.board.rings),
        },
    }
