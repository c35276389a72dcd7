"""Hand-made Kings and Castles positions for scenario tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain import simulate
from domain.engine import Config, Player
from domain.games.kings_and_castles import GAME
from domain.games.kings_and_castles.data import COUNTERS, TERRITORIES
from domain.games.kings_and_castles.events import ATTACKS
from domain.games.kings_and_castles.state import State
from domain.rng import Rng
from projections import chain
from projections.records import CREATE, FINISH, Recorded

RNG_SEED = "kc-test"


def config(players: int = 4, length: str = "full", bots: Sequence[str | None] = ()) -> Config:
    bots = list(bots) + [None] * (players - len(bots))
    return Config(
        "kings-and-castles",
        {"length": length},
        tuple(Player(f"p{i}", bots[i]) for i in range(players)),
    )


def rng(n: int = 1) -> Rng:
    return Rng.at(RNG_SEED, n)


def position(
    *,
    players: int = 4,
    length: str = "full",
    square: int = 1,
    king: str = "green",
    phase: str = ATTACKS,
    army: Iterable[str] = (),
    armies: Mapping[str, Iterable[str]] | None = None,
    holders: Mapping[str, str] | None = None,
    castles: Mapping[str, str] | None = None,
    destroyed: Iterable[str] = (),
    bag: Iterable[str] | None = None,
    other_country: str | None = None,
    money: Mapping[str, int] | None = None,
    tax_markers: Mapping[str, int] | None = None,
) -> State:
    """A consistent position: counters named somewhere are taken out of households and the bag.

    Territories not in ``holders`` are empty; crowns go round-robin with ``king`` on ``square``.
    """
    state = GAME.initial(config(players, length))
    all_armies: dict[str, frozenset[str]] = {c: frozenset() for c in state.colours}
    all_armies.update({c: frozenset(ids) for c, ids in (armies or {}).items()})
    all_armies[king] = frozenset(army) | all_armies[king]
    holders = dict(holders or {})
    castles = dict(castles or {})
    placed = set(destroyed).union(*all_armies.values(), holders.values(), castles.values())
    assert placed <= set(COUNTERS) and set(holders) | set(castles) <= set(TERRITORIES)
    crowns = {
        s: state.colours[(s - 1) % len(state.colours)] for s in range(1, state.last_square + 1)
    }
    crowns[square] = king
    pool = state.bag if bag is None else frozenset(bag)
    return replace(
        state,
        phase=phase,
        square=square,
        crowns=crowns,
        turned=frozenset(range(1, square)),
        territories={t: holders.get(t) for t in TERRITORIES},
        castles=castles,
        armies=all_armies,
        households={c: h - placed for c, h in state.households.items()},
        bag=pool - placed,
        destroyed=frozenset(destroyed),
        tax_markers={**state.tax_markers, **(tax_markers or {})},
        money={**state.money, **(money or {})},
        other_country=other_country,
    )


def seat_of(state: State) -> int:
    return GAME.to_act(state)[0]


def attack(target: str, *counters: str) -> dict[str, Any]:
    return {"type": "attack", "target": target, "counters": list(counters)}


def every_counter(state: State) -> list[str]:
    """Every counter's place, as a flat list (conservation: no repeats, nothing missing)."""
    out: list[str] = []
    for group in (*state.households.values(), *state.armies.values()):
        out.extend(group)
    out.extend(state.bag)
    out.extend(state.destroyed)
    out.extend(h for h in state.territories.values() if h is not None)
    out.extend(state.castles.values())
    return out


def counters_in_play(state: State) -> set[str]:
    return {cid for cid, c in COUNTERS.items() if c.colour in state.colours or c.is_enemy}


def _eager(game: Any, match: Any, seat: int, actions: list[dict[str, Any]], r: Rng) -> dict:
    """Breaks every version-2 reading where version 1 allows it."""
    for a in actions:
        if a["type"] == "end_attacks":
            return a
    rouen = [a for a in actions if a["type"] == "occupy_rouen"]
    king = match.state.crowns.get(match.state.square)
    baronial = [a for a in rouen if not a["counter"].startswith(f"{king}-")]
    return (baronial or [r.choice(actions)])[0]


def recorded(seed: str, steps: list[simulate.Step]) -> list[Recorded]:
    """The log the service would store for these steps (commands, actors, the hash chain)."""
    key, prev = chain.chain_key(seed), chain.GENESIS
    out: list[Recorded] = []
    for i, step in enumerate(steps):
        command = CREATE if i == 0 else FINISH if step.action is None else step.action
        for j, e in enumerate(step.events):
            rec = Recorded(
                len(out) + 1, e.type, e.seat, 0, step.seat, command if j == 0 else None,
                dict(e.data), "",
            )  # fmt: skip
            prev = chain.link(key, prev, rec)
            out.append(replace(rec, hash=prev))
    return out


def v1_steps(seed: str) -> list[simulate.Step]:
    """A short 2-player game under rules version 1 that breaks version 2 wherever it may."""
    cfg = Config(GAME.id, {"length": "short"}, (Player("a"), Player("b")), rules_version=1)
    return list(simulate.playthrough(GAME, cfg, seed, _eager))
