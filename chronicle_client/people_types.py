"""The documents of the contract's "v2 additions: people" as typed dictionaries: accounts,
vacations, invitations, ratings and reviews (``docs/contract.md``)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Player(TypedDict):
    id: str  # the public id (never an email)
    name: str


class SignedIn(TypedDict):
    player: Player
    token: str  # the account token (``acct_...``), shown once


class Me(TypedDict):
    id: str
    name: str
    email: str  # only here, to the account itself
    locale: str | None  # en, ja, zh-TW or None
    timezone: str | None
    notifications: dict[str, Any]


class TokenMade(TypedDict):
    id: str
    token: str  # shown once


class TokenInfo(TypedDict):
    id: str
    name: str
    scopes: list[str]  # "play", "read"
    created_at: int  # ms since the epoch


class RatingMove(TypedDict):
    before: float  # the ordinal just before the game
    after: float


class MyGame(TypedDict):
    id: str
    game: str
    seat: int
    status: str
    your_turn: bool
    deadline: NotRequired[str]
    version: int
    updated_at: str
    rating: NotRequired[RatingMove]  # a counted rated game only


class Standing(TypedDict):
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma
    games: int
    provisional: bool  # fewer than 5 rated games


class Profile(TypedDict):
    id: str
    name: str
    games: int
    ratings: dict[str, Standing]  # game kind -> standing


class Claimed(TypedDict):
    seat: int
    player: str
    version: int


class Vacation(TypedDict):
    version: int
    seat: int
    until: NotRequired[str]  # ISO 8601 UTC, on a start only


class Invited(TypedDict):
    seat: int
    player: str
    version: int  # the version of ``SeatInvited``


class Rating(Standing):
    player: str  # an account's public id or ``bot:<bot>``
    name: str


class RatingChange(TypedDict):
    player: str
    name: str
    before: Standing
    after: Standing


class GameRatings(TypedDict):
    game: str
    changes: list[RatingChange]


class Alternative(TypedDict):
    action: dict[str, Any]
    value: float


class Decision(TypedDict):
    version: int  # the version the seat decided at
    played: dict[str, Any]
    best: dict[str, Any]
    value_played: float
    value_best: float
    swing: float
    alternatives: list[Alternative]


class ReviewAsked(TypedDict):
    status: str  # queued, running, done


class Review(TypedDict):
    status: str
    decisions: list[Decision]
