"""The engine: what every game implements, and the checks common to all games.

A game is a pure state machine (``Game`` below).  The engine wraps a game's state in a ``Match``
(configuration, state, version, final result) and owns the few things every game shares:

- the creation event ``GameCreated`` and the final ``GameFinished`` event (the result, appended
  by the scoring job once the rules say the game is over);
- the order of checks before a game sees an action: game still active, the seat is one of those
  to act, the action has a known type and well-typed fields; only then the game's own ``decide``;
- the follow-up decision after every append (a bot turn? final scoring?).

Commands are imperative (``play``), events past tense (``CardPlayed``).  Evolving never fails and
never draws a random number: every random outcome is decided in ``decide`` with the ``Rng`` the
engine passes in and is recorded in the event.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.errors import BadAction, Forbidden
from domain.rng import Rng

GAME_CREATED = "GameCreated"
GAME_FINISHED = "GameFinished"

ACTIVE, SCORING, FINISHED = "active", "scoring", "finished"


@dataclass(frozen=True)
class Event:
    """A fact.  ``seat`` is the seat the event is about (None for the game itself).

    ``data`` is JSON data: the engine passes every decided event through a JSON round trip
    (``normalized``), so ``evolve`` sees the same shapes (lists, string keys) whether an event
    was just decided or read back from the store.
    """

    type: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Player:
    name: str
    bot: str | None = None


@dataclass(frozen=True)
class Config:
    game: str
    options: Mapping[str, str]
    players: tuple[Player, ...]

    @property
    def n(self) -> int:
        return len(self.players)


@dataclass(frozen=True)
class Field:
    """One field of an action, for shape checks and API documentation.

    ``kind``: ``int``, ``str``, ``bool``, ``list[str]``, ``list[int]`` or ``object``
    (a JSON object of string keys to integers).
    """

    kind: str
    required: bool = False
    choices: tuple[str, ...] | None = None
    doc: str = ""


class Bot(Protocol):
    def __call__(
        self, view: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], rng: Rng
    ) -> dict[str, Any]: ...


class Game(Protocol):
    """The contract of a game package (see ``domain/games/artus`` for a complete one)."""

    id: str
    name: str
    min_players: int
    max_players: int
    options: Mapping[str, tuple[str, ...]]  # allowed values; the first is the default
    actions: Mapping[str, Mapping[str, Field]]  # action type -> its fields (besides "type")
    bots: Mapping[str, Bot]
    state_type: type  # the frozen dataclass of the state (for snapshots)

    def setup(self, config: Config, rng: Rng) -> list[Event]:
        """Events that set the game up (deals, random placements), appended with GameCreated."""

    def initial(self, config: Config) -> Any:
        """The state before the set-up events."""

    def evolve(self, state: Any, event: Event) -> Any:
        """Apply one of this game's events.  Never fails, never draws randomness."""

    def to_act(self, state: Any) -> tuple[int, ...]:
        """Seats that may act now (several for simultaneous decisions); () once over."""

    def legal_actions(self, state: Any, seat: int) -> list[dict[str, Any]]:
        """Every legal action of ``seat`` now, each in a form that can be posted back as is."""

    def decide(self, state: Any, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
        """Events for a shape-checked action of a seat to act; raises ``IllegalAction``."""

    def is_over(self, state: Any) -> bool:
        """The rules reached the end (the scoring job then appends the result)."""

    def result(self, state: Any) -> dict[str, Any]:
        """``{scores: {seat: n}, winners, ranking, details}`` of a game that is over."""

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may see of ``state``."""

    def full_view(self, state: Any) -> dict[str, Any]:
        """Everything, for replay after the end."""

    def redact(self, event: Event, seat: int | None) -> dict[str, Any]:
        """The data of ``event`` as ``seat`` (None: a spectator) may see it."""

    def reveals(self, event: Event) -> bool:
        """Does this event show hidden information to anyone (a draw, a shuffle, a reveal)?"""


@dataclass(frozen=True)
class Match:
    """A game's folded log: its configuration, the game state, the version and the result."""

    config: Config
    state: Any
    version: int
    result: Mapping[str, Any] | None = None

    def status(self, game: Game) -> str:
        if self.result is not None:
            return FINISHED
        return SCORING if game.is_over(self.state) else ACTIVE

    def to_act(self, game: Game) -> tuple[int, ...]:
        return game.to_act(self.state) if self.status(game) == ACTIVE else ()


def created_event(config: Config) -> Event:
    return Event(
        GAME_CREATED,
        None,
        {
            "game": config.game,
            "options": dict(config.options),
            "players": [{"name": p.name, "bot": p.bot} for p in config.players],
        },
    )


def config_from_created(data: Mapping[str, Any]) -> Config:
    return Config(
        game=data["game"],
        options=dict(data["options"]),
        players=tuple(Player(p["name"], p.get("bot")) for p in data["players"]),
    )


def normalized(events: Sequence[Event]) -> list[Event]:
    """Events whose data went through JSON, exactly as they will be read back from the log."""
    return [Event(e.type, e.seat, json.loads(json.dumps(e.data))) for e in events]


def create(game: Game, config: Config, rng: Rng) -> list[Event]:
    """The creation batch: ``GameCreated`` then the game's set-up events."""
    return normalized([created_event(config), *game.setup(config, rng)])


def evolve(game: Game, match: Match | None, event: Event) -> Match:
    if event.type == GAME_CREATED:
        config = config_from_created(event.data)
        return Match(config, game.initial(config), 1)
    assert match is not None, "a log starts with GameCreated"
    if event.type == GAME_FINISHED:
        return Match(match.config, match.state, match.version + 1, dict(event.data))
    return Match(match.config, game.evolve(match.state, event), match.version + 1)


def fold(game: Game, events: Sequence[Event], match: Match | None = None) -> Match:
    for event in events:
        match = evolve(game, match, event)
    assert match is not None, "cannot fold an empty log"
    return match


def decide(game: Game, match: Match, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    """The common checks, then the game's own rules."""
    status = match.status(game)
    if status != ACTIVE:
        raise Forbidden("game_over", f"the game is {status}; no more actions are taken")
    if seat not in game.to_act(match.state):
        raise Forbidden("not_your_turn", f"seat {seat} is not to act now")
    return normalized(game.decide(match.state, seat, check_shape(game, action), rng))


def finish(game: Game, match: Match) -> list[Event]:
    """The scoring job's events: the final result, once the rules reached the end."""
    if match.status(game) != SCORING:
        return []
    return normalized([Event(GAME_FINISHED, None, game.result(match.state))])


_KINDS: dict[str, Any] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "list[int]": lambda v: (
        isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
    ),
    "object": lambda v: (
        isinstance(v, dict)
        and all(isinstance(x, int) and not isinstance(x, bool) for x in v.values())
    ),
}


def check_shape(game: Game, action: Mapping[str, Any]) -> dict[str, Any]:
    """A well-typed action with only known fields, or ``BadAction`` naming every problem."""
    if not isinstance(action, Mapping):
        raise BadAction("an action is a JSON object", {"action": ["must be an object"]})
    kind = action.get("type")
    if kind not in game.actions:
        known = ", ".join(sorted(game.actions))
        raise BadAction(
            f"unknown action type {kind!r} for {game.id}",
            {"action.type": [f"must be one of: {known}"]},
        )
    spec = game.actions[kind]
    problems: dict[str, list[str]] = {}
    for name, value in action.items():
        if name == "type":
            continue
        f = spec.get(name)
        if f is None:
            problems[f"action.{name}"] = ["unknown field"]
        elif not _KINDS[f.kind](value):
            problems[f"action.{name}"] = [f"must be {f.kind}"]
        elif f.choices is not None and value not in f.choices:
            problems[f"action.{name}"] = [f"must be one of: {', '.join(f.choices)}"]
    for name, f in spec.items():
        if f.required and name not in action:
            problems[f"action.{name}"] = ["missing"]
    if problems:
        raise BadAction(f"malformed {kind} action", problems)
    return dict(action)


@dataclass(frozen=True)
class Job:
    """A follow-up job: ``kind`` is ``bot`` or ``score``; ids are deterministic.

    ``background``: a bot turn of a game without a human seat.  Nobody waits for it, so it
    goes after every job of a game where a person waits (fairness between games).
    """

    kind: str
    game_id: str
    version: int
    seat: int | None = None
    background: bool = False

    @property
    def id(self) -> str:
        suffix = f"-{self.seat}" if self.seat is not None else ""
        return f"{self.kind}-{self.game_id}-{self.version}{suffix}"


def follow_ups(game: Game, game_id: str, match: Match) -> list[Job]:
    """What must happen next without a human: bot turns for bot seats to act, or scoring."""
    status = match.status(game)
    if status == SCORING:
        return [Job("score", game_id, match.version)]
    if status != ACTIVE:
        return []
    background = all(p.bot for p in match.config.players)
    return [
        Job("bot", game_id, match.version, seat, background)
        for seat in game.to_act(match.state)
        if match.config.players[seat].bot
    ]
