"""The engine: what every game implements, and the checks common to all games.

A game is a pure state machine, one value of functions (``GameRules`` below).  The engine wraps
a game's state in a ``Match`` (configuration, state, version, final result) and owns the few
things every game shares:

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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

from domain import jsontext
from domain import shapes as sh
from domain import table as tables
from domain.errors import BadAction, Forbidden
from domain.rng import Rng
from domain.shapes import Shape

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

    @property
    def by(self) -> int:
        """The seat of an event that is about a seat (a game's own events say which)."""
        assert self.seat is not None, f"{self.type} is about a seat"
        return self.seat


@dataclass(frozen=True)
class Player:
    name: str | None  # None: an open seat (see ``domain.table``)
    bot: str | None = None

    def doc(self) -> dict[str, Any]:
        """The player as the log and the documents show it (``GameCreated``, export,
        summary): the one place its ``{"name", "bot"}`` form is built."""
        return {"name": self.name, "bot": self.bot}


@dataclass(frozen=True)
class Config:
    """A game's configuration, as recorded in ``GameCreated``.

    ``rules_version``: the edition of the game's rules the log was recorded under, so a stored
    game replays under the rules it was played with (the log is the truth).  A new game is
    created under the game's current ``rules_version`` (None here means "current");
    ``GameCreated`` records it only when it is not 1, and a log without it is version 1.
    """

    game: str
    options: Mapping[str, str]
    players: tuple[Player, ...]
    rules_version: int | None = None
    table: Mapping[str, Any] | None = None  # open seats, clock, ... (``domain.table``)

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


S = TypeVar("S")


@dataclass(frozen=True)
class GameRules(Generic[S]):
    """A game as one value: its data and its rules as pure functions over its state ``S``.

    Each game package builds one (``GAME`` in ``domain/games/<game>/__init__.py``) from the
    functions of its modules; the registry lists them.  Attribute access reads like a method
    call (``game.legal_actions(state, seat)``), so callers need not know it is not a class.
    """

    id: str
    name: str
    min_players: int
    max_players: int
    options: Mapping[str, tuple[str, ...]]  # allowed values; the first is the default
    actions: Mapping[str, Mapping[str, Field]]  # action type -> its fields (besides "type")
    bots: Mapping[str, Bot]  # name -> bot; ``domain.bots.random_bot`` serves every game
    state_type: type[S]  # the frozen dataclass of the state (for snapshots)
    # Events that set the game up (deals, random placements), appended with GameCreated.
    setup: Callable[[Config, Rng], list[Event]]
    initial: Callable[[Config], S]  # the state before the set-up events
    # Apply one of this game's events.  Never fails on its own events, never draws randomness;
    # raises ``KeyError`` on an event type it does not know.
    evolve: Callable[[S, Event], S]
    # Seats that may act now (several for simultaneous decisions); () once over.
    to_act: Callable[[S], tuple[int, ...]]
    # Every legal action of a seat now, each in a form that can be posted back as is.
    legal_actions: Callable[[S, int], list[dict[str, Any]]]
    # Events for a shape-checked action of a seat to act (the engine checked the game is active,
    # the seat is to act and the action's shape); raises ``IllegalAction``.
    decide: Callable[[S, int, Mapping[str, Any], Rng], list[Event]]
    is_over: Callable[[S], bool]  # the rules reached the end (the scoring job then scores)
    result: Callable[[S], dict[str, Any]]  # ``{scores: {seat: n}, winners, ranking, details}``
    view: Callable[[S, int | None], dict[str, Any]]  # what a seat (None: spectator) may see
    full_view: Callable[[S], dict[str, Any]]  # everything, for replay after the end
    # The data of an event as a seat (None: a spectator) may see it, given the game's config.
    redact: Callable[[Event, int | None, Config], dict[str, Any]]
    # Does this event show hidden information to anyone (a draw, a shuffle, a reveal)?
    reveals: Callable[[Event], bool]
    # What ``view``/``full_view`` return and each own event's data as ``redact`` shows it
    # (``domain/shapes.py``; the game's ``shapes`` module): the API document is made of them.
    view_state: Shape
    event_data: Mapping[str, Shape]
    rules_version: int = 1  # the current edition of the rules (new games); see ``Config``


Game = GameRules[Any]  # a registered game, whatever its state type


@dataclass(frozen=True)
class Match:
    """A game's folded log: its configuration, the game state, the version and the result."""

    config: Config
    state: Any
    version: int
    result: Mapping[str, Any] | None = None
    table: tables.Table | None = None  # seats, bots and clock; None only in hand-made matches

    def status(self, game: Game) -> str:
        if self.result is not None:
            return FINISHED
        if self.table is not None and (status := self.table.status()):
            return status  # waiting or abandoned
        return SCORING if game.is_over(self.state) else ACTIVE

    def bot(self, seat: int) -> str | None:
        """The bot that plays ``seat`` now (None: a person)."""
        if self.table is not None:
            return self.table.bot_of(seat)
        return self.config.players[seat].bot

    def to_act(self, game: Game) -> tuple[int, ...]:
        return game.to_act(self.state) if self.status(game) == ACTIVE else ()


def created_event(config: Config) -> Event:
    data: dict[str, Any] = {
        "game": config.game,
        "options": dict(config.options),
        "players": [p.doc() for p in config.players],
    }
    if config.rules_version not in (None, 1):  # absent = 1: logs from before versions replay
        data["rules_version"] = config.rules_version
    if config.table is not None:
        data["table"] = dict(config.table)
    return Event(GAME_CREATED, None, data)


# The data of the engine's own events, as every game shows them (``GameRules.event_data``).
ENGINE_EVENT_DATA: dict[str, Shape] = {
    GAME_CREATED: sh.record(
        {
            "game": sh.STR,
            "options": sh.map_of(sh.STR, "option names"),
            "players": sh.list_of(
                sh.record(
                    {"name": sh.nullable(sh.STR, "null: an open seat"), "bot": sh.nullable(sh.STR)}
                )
            ),
            "rules_version": sh.optional(sh.integer("absent: 1")),
            "table": sh.optional(tables.RULES_DATA),
        }
    ),
    GAME_FINISHED: sh.record(
        {
            "scores": sh.map_of(sh.INT, sh.SEAT_MAP, "each seat's score"),
            "winners": sh.INTS,
            "ranking": sh.INTS,
            "details": sh.map_of(sh.anything(), "", "the game's own scoring details"),
        },
        "the final result",
    ),
}


def config_from_created(data: Mapping[str, Any]) -> Config:
    return Config(
        game=data["game"],
        options=dict(data["options"]),
        players=tuple(Player(p["name"], p.get("bot")) for p in data["players"]),
        rules_version=int(data.get("rules_version", 1)),
        table=data.get("table"),
    )


def new_table(config: Config) -> tables.Table:
    return tables.initial(config.table, [(p.name, p.bot) for p in config.players])


def normalized(events: Sequence[Event]) -> list[Event]:
    """Events whose data went through JSON, exactly as they will be read back from the log."""
    return [Event(e.type, e.seat, jsontext.normal(e.data)) for e in events]


def create(game: Game, config: Config, rng: Rng) -> list[Event]:
    """The creation batch: ``GameCreated`` then the game's set-up events.

    A config without a rules version gets the game's current one; a replayed log keeps its own.
    """
    if config.rules_version is None:
        config = replace(config, rules_version=game.rules_version)
    return normalized([created_event(config), *game.setup(config, rng)])


def evolve(game: Game, match: Match | None, event: Event) -> Match:
    """One event: the creation, the result, or one of the game's own events."""
    return fold(game, (event,), match)


def fold(game: Game, events: Iterable[Event], match: Match | None = None) -> Match:
    """``evolve`` over ``events``; the ``Match`` is built once at the end (same result).

    Returns ``match`` itself when there is nothing to fold, so callers can tell "unchanged".
    """
    if match is None:
        config, state, version, result, table = None, None, 0, None, None
    else:
        config, state, version, result = match.config, match.state, match.version, match.result
        table = match.table
    changed = False
    for event in events:
        changed = True
        if event.type == GAME_CREATED:
            config = config_from_created(event.data)
            state, version, result = game.initial(config), 1, None
            table = new_table(config)
            continue
        assert config is not None, "a log starts with GameCreated"
        version += 1
        if event.type == GAME_FINISHED:
            result = dict(event.data)
        elif table is not None and tables.is_event(event.type, event.data):
            table = tables.evolve(table, event, version)  # the table's, never the game's
        else:
            state, result = game.evolve(state, event), None
    if match is not None and not changed:
        return match
    assert config is not None, "cannot fold an empty log"
    return Match(config, state, version, result, table)


def settle(game: Game, match: Match, at: int) -> Match:
    """The end of a batch recorded at ``at`` (ms): the table notes whose turn began (the
    clock), whose ended.  Without a clock nothing is noted."""
    table = match.table
    if table is None or (not table.rules.clocked and not table.timed_out):
        return match
    settled = tables.settle(table, match.to_act(game), at, match.version)
    return match if settled is table else replace(match, table=settled)


def decide(game: Game, match: Match, seat: int, action: Mapping[str, Any], rng: Rng) -> list[Event]:
    """The common checks, then the game's own rules."""
    return decide_checked(game, match, seat, check_shape(game, action), rng)


def decide_checked(
    game: Game, match: Match, seat: int, action: dict[str, Any], rng: Rng
) -> list[Event]:
    """``decide`` for an action ``check_shape`` has returned: the service checks the shape
    first (a malformed action is refused before a stale version) and does not pay twice."""
    status = match.status(game)
    if status == tables.WAITING:
        raise Forbidden("not_started", "the game waits for players; no action is taken yet")
    if status != ACTIVE:
        raise Forbidden("game_over", f"the game is {status}; no more actions are taken")
    if seat not in game.to_act(match.state):
        raise Forbidden("not_your_turn", f"seat {seat} is not to act now")
    return normalized(game.decide(match.state, seat, action, rng))


def finish(game: Game, match: Match) -> list[Event]:
    """The scoring job's events: the final result, once the rules reached the end."""
    if match.status(game) != SCORING:
        return []
    result = game.result(match.state)
    if match.table is not None:
        result = tables.with_resigned(match.table, result)
    return normalized([Event(GAME_FINISHED, None, result)])


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
    if not isinstance(kind, str) or kind not in game.actions:
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
        if match.bot(seat)
    ]
