"""Hand-made Artus positions for scenario tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.engine import Config, Event, Player
from domain.games.artus import GAME
from domain.games.artus.board import Board
from domain.games.artus.data import CARDS_PER_TURN, piles_used
from domain.games.artus.state import State
from domain.rng import Rng

PRINCES_AT = {0: "silver-1", 7: "bronze-1", 14: "silver-2", 22: "bronze-2"}
RNG = Rng(b"test", b"artus")


def config(players: int = 2, rules: str = "basic", bots: Sequence[str | None] = ()) -> Config:
    bots = list(bots) + [None] * (players - len(bots))
    return Config(
        "artus", {"rules": rules}, tuple(Player(f"p{i}", bots[i]) for i in range(players))
    )


def make_state(
    *,
    players: int = 2,
    rules: str = "basic",
    knights: Mapping[int, str] | None = None,
    princes: Mapping[int, str] | None = None,
    king: str = "silver-1",
    rings: Mapping[str, int] | None = None,
    scores: Sequence[int] | None = None,
    hands: Mapping[int, Sequence[str]] | None = None,
    piles: Mapping[int, Mapping[str, Sequence[str]]] | None = None,
    phase: str = "play",
    turn: int = 0,
    plays_left: int | None = None,
    draws_left: int = 0,
    round: int = 1,
) -> State:
    """A position: figures by seat (princes default to their crown seats), hands and piles."""
    seats: list[str | None] = [None] * 29
    for s, f in {**(PRINCES_AT if princes is None else princes), **(knights or {})}.items():
        seats[s] = f
    all_rings = {"silver-1": 1, "silver-2": 1, "bronze-1": 1, "bronze-2": 1, king: 3}
    all_rings.update(rings or {})
    hand_t = tuple(tuple(sorted((hands or {}).get(s, ()))) for s in range(players))
    pile_t = tuple(
        {p: tuple(sorted((piles or {}).get(s, {}).get(p, ()))) for p in piles_used(rules)}
        for s in range(players)
    )
    if plays_left is None:
        plays_left = min(CARDS_PER_TURN[rules], len(hand_t[turn])) if phase == "play" else 0
    return State(
        players=players,
        rules=rules,
        board=Board(tuple(seats), king, all_rings, tuple(scores or (0,) * players)),
        hands=hand_t,
        piles=pile_t,
        phase=phase,
        turn=turn,
        placed=0,
        plays_left=plays_left,
        draws_left=draws_left,
        round=round,
    )


def started(players: int = 2, rules: str = "basic", seed: str = "s") -> tuple[State, list[Event]]:
    """The state right after set-up (placement phase) and the set-up events."""
    cfg = config(players, rules)
    events = GAME.setup(cfg, Rng.at(seed, 2))
    state = GAME.initial(cfg)
    for e in events:
        state = GAME.evolve(state, e)
    return state, events
