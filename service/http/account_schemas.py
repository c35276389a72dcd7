"""The request and answer documents of accounts (contract: v2 additions, Accounts)."""

from __future__ import annotations

import re
from functools import cache
from zoneinfo import available_timezones

from marshmallow import Schema, ValidationError, fields, validate

from domain.table import duration_ms
from service.accounts import SCOPES
from service.http.schemas import NAME
from service.i18n import LANGUAGES

HHMM = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")


@cache
def zones() -> frozenset[str]:
    """The IANA time zone names this process knows (read once: it lists the tz database)."""
    return frozenset(available_timezones())


def _timezone(value: str | None) -> None:
    if value is not None and value != "" and value not in zones():
        raise ValidationError("an IANA time zone name (Europe/Paris, Asia/Tokyo, UTC)")


def _duration(value: str | None) -> None:
    if value is not None and not duration_ms(value):
        raise ValidationError("an ISO 8601 duration (PT12H, P1D), or null")


QuietHours = Schema.from_dict(
    {
        "from": fields.Str(required=True, validate=validate.Regexp(HHMM, error="HH:MM")),
        "to": fields.Str(required=True, validate=validate.Regexp(HHMM, error="HH:MM")),
    },
    name="QuietHours",
)


class Notifications(Schema):
    """The notice settings (contract: Notices to people); a change names any subset."""

    email = fields.Bool(metadata={"description": "notices by email at all"})
    push = fields.Bool(metadata={"description": "Web Push to subscribed browsers"})
    your_turn = fields.Bool(metadata={"description": "a mail when your turn begins"})
    reminders = fields.Str(
        allow_none=True,
        validate=_duration,
        metadata={"description": "remind this long before a deadline (null: never)"},
    )
    digest = fields.Bool(metadata={"description": "one daily mail instead of single messages"})
    game_over = fields.Bool(metadata={"description": "a mail when a game of yours ends"})
    invitations = fields.Bool(metadata={"description": "a host's invitation to a seat"})
    quiet_hours = fields.Nested(
        QuietHours,
        allow_none=True,
        metadata={"description": "no mail from `from` to `to` (HH:MM, the account's timezone)"},
    )


STATUSES = ("active", "waiting", "finished")


class EmailIn(Schema):
    email = fields.Str(required=True, validate=validate.Length(min=3, max=254))


class Accepted(Schema):
    accepted = fields.Bool(required=True)


class VerifyIn(Schema):
    code = fields.Str(required=True, validate=validate.Length(min=1, max=128))
    name = fields.Str(
        load_default=None,
        validate=NAME,
        metadata={"description": "the new account's name (the first sign-in of an address)"},
    )


class SessionQuery(Schema):
    session = fields.Str(
        load_default=None,
        validate=validate.OneOf(["cookie"]),
        metadata={
            "description": "`cookie`: a browser's sign-in: the session is set as an HttpOnly "
            "cookie and the answer carries its `csrf` value instead of the token"
        },
    )


class PlayerDoc(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)


class SignedIn(Schema):
    player = fields.Nested(PlayerDoc, required=True)
    token = fields.Str(metadata={"description": "the account token, shown once (API clients)"})
    csrf = fields.Str(metadata={"description": "send as X-CSRF-Token with every write (cookie)"})


class Me(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    email = fields.Str(required=True)
    locale = fields.Str(allow_none=True)
    timezone = fields.Str(allow_none=True)
    notifications = fields.Nested(Notifications)
    csrf = fields.Str(metadata={"description": "a browser session's CSRF value"})


class MeIn(Schema):
    name = fields.Str(validate=NAME)
    locale = fields.Str(
        allow_none=True,
        validate=validate.OneOf(LANGUAGES),
        metadata={"description": "the API's and pages' language (else Accept-Language)"},
    )
    timezone = fields.Str(
        allow_none=True,
        validate=[validate.Length(max=64), _timezone],
        metadata={"description": "an IANA time zone name (quiet hours are in it)"},
    )
    notifications = fields.Nested(Notifications)


class TokenIn(Schema):
    name = fields.Str(required=True, validate=validate.Length(min=1, max=64))
    scopes = fields.List(
        fields.Str(validate=validate.OneOf(SCOPES)),
        load_default=list(SCOPES),
        validate=validate.Length(min=1, max=2),
    )


class TokenMade(Schema):
    id = fields.Str(required=True)
    token = fields.Str(required=True, metadata={"description": "shown once"})


class TokenDoc(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    scopes = fields.List(fields.Str(), required=True)
    created_at = fields.Int(required=True)


class Tokens(Schema):
    tokens = fields.List(fields.Nested(TokenDoc), required=True)


class GamesQuery(Schema):
    status = fields.Str(load_default=None, validate=validate.OneOf(STATUSES))


class RatingMove(Schema):
    before = fields.Float(required=True, metadata={"description": "the ordinal before the game"})
    after = fields.Float(required=True, metadata={"description": "the ordinal after it"})


class MyGame(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    seat = fields.Int(required=True)
    status = fields.Str(required=True)
    your_turn = fields.Bool(required=True)
    deadline = fields.Str(metadata={"description": "ISO 8601 UTC, on a clocked table"})
    version = fields.Int(required=True)
    updated_at = fields.Str(required=True)
    rating = fields.Nested(
        RatingMove,
        metadata={
            "description": "a finished rated game once counted: your rating's ordinal "
            "(GET /ratings/{game}) before and after it; absent otherwise"
        },
    )


class MyGames(Schema):
    games = fields.List(fields.Nested(MyGame), required=True)


class Profile(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    games = fields.Int(required=True, metadata={"description": "games played (seats held)"})
    ratings = fields.Dict(
        keys=fields.Str(),
        metadata={
            "description": "per game: {mu, sigma, ordinal, games, provisional} "
            "(GET /ratings/{game}); {} before a rated game"
        },
    )


class Blocks(Schema):
    blocks = fields.List(fields.Nested(PlayerDoc), required=True)


class ClaimIn(Schema):
    seat_token = fields.Str(required=True, validate=validate.Length(min=1, max=128))


class Claimed(Schema):
    seat = fields.Int(required=True)
    player = fields.Str(required=True)
    version = fields.Int(required=True)


class PasskeyMade(Schema):
    id = fields.Str(required=True)


class PasskeyDoc(Schema):
    id = fields.Str(required=True)
    created_at = fields.Int()
    last_used_at = fields.Int(allow_none=True)


class Passkeys(Schema):
    passkeys = fields.List(fields.Nested(PasskeyDoc), required=True)
