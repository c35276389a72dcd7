"""The contract's documents as typed dictionaries (``docs/contract.md``).

They type what the service sends; a game's ``state``, its actions and its events' ``data`` are
the game's own (see its rules digest) and stay ``dict[str, Any]`` here.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Action = dict[str, Any]


class TimeControl(TypedDict, total=False):
    """A table's time control (contract: Time controls); durations are ISO 8601."""

    per_turn: str
    bank: str
    increment: str
    max: str
    weekends: str  # "off" or "on"
    vacation: str  # the whole days each seat may take off, e.g. "P14D"


class Clock(TypedDict):
    """One seat's clock when the document was read."""

    remaining: str  # ISO 8601 duration, rounded down to whole seconds
    deadline: NotRequired[str]  # ISO 8601 UTC, while the seat is to act
    vacation_until: NotRequired[str]  # ISO 8601 UTC, while the seat is on vacation


class Seat(TypedDict):
    seat: int
    name: str
    bot: str | None
    token: NotRequired[str]  # a human seat's token, in the creation response only
    player: NotRequired[str]  # the public id of the account holding the seat


class Invitation(TypedDict):
    seat: int
    code: str


class Created(TypedDict):
    id: str
    game: str
    options: dict[str, str]
    version: int
    seats: list[Seat]
    host_token: str
    seed_commitment: str
    invitations: NotRequired[list[Invitation]]  # one per open seat


class Result(TypedDict):
    scores: dict[str, int | float]
    winners: list[int]
    ranking: list[int]
    details: dict[str, Any]


class Summary(TypedDict):
    id: str
    game: str
    options: dict[str, str]
    seats: list[Seat]
    status: str  # active, scoring, finished
    version: int
    to_act: list[int]
    result: NotRequired[Result]
    seed_commitment: str
    seed_chosen: bool  # the creator chose the seed (or imported the log): they may know the deal
    created_at: str
    updated_at: str
    turn_time: NotRequired[str]  # an ISO 8601 duration, at a clocked table
    deadlines: NotRequired[dict[str, str]]  # seat -> ISO time, at a clocked table
    public: NotRequired[bool]
    rated: NotRequired[bool]
    time_control: NotRequired[TimeControl]
    timezone: NotRequired[str]
    clocks: NotRequired[dict[str, Clock]]  # seat -> its clock (the people of a clocked table)


class View(TypedDict):
    id: str
    game: str
    version: int
    status: str
    you: int | None
    to_act: list[int]
    state: dict[str, Any]
    result: NotRequired[Result]
    deadlines: NotRequired[dict[str, str]]  # seat -> ISO time, at a clocked table
    time_control: NotRequired[TimeControl]
    timezone: NotRequired[str]
    clocks: NotRequired[dict[str, Clock]]  # seat -> its clock, at the current version only


class Actions(TypedDict):
    version: int
    actions: list[Action]


class Event(TypedDict):
    version: int
    type: str
    seat: int | None
    at: str
    data: dict[str, Any]


class Events(TypedDict):
    version: int
    events: list[Event]


class Undone(TypedDict):
    version: int
    undone: list[Event]


class Joined(TypedDict):
    seat: int
    token: str


class GameList(TypedDict):
    games: list[Summary]
    page: int
    per_page: int
    total: int
