"""A synthetic game for long logs (no real game reaches 2,000 events): each turn a seat plays a
card from its hand for a point.  Its state is shaped and sized like Artus's (a board of 29
seats, hands, piles, the cards played), so loading it costs what loading a real game would.
It is registered only inside the benchmark process (``registered``), never in the API."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from domain import codec
from domain import shapes as sh
from domain.engine import Config, Event, Field, GameRules
from domain.errors import IllegalAction
from domain.games import GAMES
from domain.rng import Rng

ID = "bench-counter"
COLOURS = ("red", "yellow", "green", "blue")
N_SEATS = 29
PLAYED_KEPT = 80


@dataclass(frozen=True)
class Board:
    seats: tuple[str | None, ...]
    king: str
    rings: dict[str, int]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class State:
    players: int
    board: Board
    hands: tuple[tuple[str, ...], ...]
    piles: tuple[dict[str, tuple[str, ...]], ...]
    turn: int = 0
    count: int = 0
    played: tuple[str, ...] = ()


def _cards(seat: int, kind: str, n: int) -> tuple[str, ...]:
    return tuple(f"{COLOURS[seat]}/{kind}{i}-{i + 3}" for i in range(1, n + 1))


def random_bot(view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng) -> Any:
    return dict(rng.choice(list(actions)))


class Counter:
    id = ID
    name = "Counter (benchmark only)"
    min_players = 2
    max_players = 4
    options: Mapping[str, tuple[str, ...]] = {}
    actions: Mapping[str, Mapping[str, Field]] = {
        "play": {"card": Field("str", True), "points": Field("int", True)}
    }
    bots: Mapping[str, Any] = {"random": random_bot}
    state_type = State
    rules_version = 1
    view_state = sh.anything("the benchmark's state")
    event_data: Mapping[str, Any] = {"CardPlayed": sh.anything()}

    def setup(self, config: Config, rng: Rng) -> list[Event]:
        return []

    def initial(self, config: Config) -> State:
        n = config.n
        seats = tuple(f"{COLOURS[i % n]}-k{i}" if i % 2 else None for i in range(N_SEATS))
        rings = {"silver-1": 3, "bronze-1": 1, "silver-2": 1, "bronze-2": 1}
        piles = tuple(
            {"knight": _cards(s, "K", 4), "king": _cards(s, "M", 3), "scoring": _cards(s, "S", 4)}
            for s in range(n)
        )
        hands = tuple(_cards(s, "H", 6) for s in range(n))
        return State(n, Board(seats, "silver-1", rings, (0,) * n), hands, piles)

    def evolve(self, state: State, event: Event) -> State:
        seat, card, points = event.seat or 0, event.data["card"], event.data["points"]
        b = state.board
        scores = tuple(s + points if i == seat else s for i, s in enumerate(b.scores))
        seats = b.seats[1:] + b.seats[:1]
        hand = state.hands[seat]
        hands = tuple(hand[1:] + hand[:1] if i == seat else h for i, h in enumerate(state.hands))
        return replace(
            state,
            board=Board(seats, b.king, b.rings, scores),
            hands=hands,
            turn=(state.turn + 1) % state.players,
            count=state.count + 1,
            played=(*state.played[-PLAYED_KEPT + 1 :], card),
        )

    def to_act(self, state: State) -> tuple[int, ...]:
        return (state.turn,)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return [
            {"type": "play", "card": c, "points": p} for c in state.hands[seat][:2] for p in (1, 2)
        ]

    def decide(self, state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        if action["card"] not in state.hands[seat][:2] or action["points"] not in (1, 2):
            raise IllegalAction("BC-1", "play one of your first two cards for 1 or 2 points")
        return [Event("CardPlayed", seat, {"card": action["card"], "points": action["points"]})]

    def is_over(self, state: State) -> bool:
        return False

    def result(self, state: State) -> dict[str, Any]:
        scores = {str(i): s for i, s in enumerate(state.board.scores)}
        return {"scores": scores, "winners": [], "ranking": [], "details": {}}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return self.full_view(state)

    def full_view(self, state: State) -> dict[str, Any]:
        return codec.encode(state)

    def redact(
        self, event: Event, seat: int | None, config: Config | None = None
    ) -> dict[str, Any]:
        return dict(event.data)

    def reveals(self, event: Event) -> bool:
        return False


def _rules(c: Counter) -> GameRules[State]:
    """The counter as the registry's value: the engine and the service take a ``GameRules``."""
    return GameRules(
        id=c.id,
        name=c.name,
        min_players=c.min_players,
        max_players=c.max_players,
        options=c.options,
        actions=c.actions,
        bots=c.bots,
        state_type=c.state_type,
        setup=c.setup,
        initial=c.initial,
        evolve=c.evolve,
        to_act=c.to_act,
        legal_actions=c.legal_actions,
        decide=c.decide,
        is_over=c.is_over,
        result=c.result,
        view=c.view,
        full_view=c.full_view,
        redact=c.redact,
        reveals=c.reveals,
        view_state=c.view_state,
        event_data=c.event_data,
        rules_version=c.rules_version,
    )


GAME = _rules(Counter())


@contextmanager
def registered() -> Iterator[GameRules[State]]:
    """The counter game in ``domain.games.GAMES`` of this process for the duration."""
    GAMES[ID] = GAME
    try:
        yield GAME
    finally:
        GAMES.pop(ID, None)
