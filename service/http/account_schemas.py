"""The request and answer documents of accounts (contract: v2 additions, Accounts)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.accounts import SCOPES
from service.http.schemas import NAME

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
    notifications = fields.Dict(keys=fields.Str())
    csrf = fields.Str(metadata={"description": "a browser session's CSRF value"})


class MeIn(Schema):
    name = fields.Str(validate=NAME)
    locale = fields.Str(allow_none=True, validate=validate.OneOf(["en", "ja", "zh-Hant"]))
    timezone = fields.Str(allow_none=True, validate=validate.Length(max=64))
    notifications = fields.Dict(keys=fields.Str(), values=fields.Raw())


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


class MyGame(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    seat = fields.Int(required=True)
    status = fields.Str(required=True)
    your_turn = fields.Bool(required=True)
    deadline = fields.Str(metadata={"description": "ISO 8601 UTC, on a clocked table"})
    version = fields.Int(required=True)
    updated_at = fields.Str(required=True)


class MyGames(Schema):
    games = fields.List(fields.Nested(MyGame), required=True)


class Profile(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    games = fields.Int(required=True, metadata={"description": "games played (seats held)"})
    ratings = fields.Dict(keys=fields.Str(), metadata={"description": "none yet"})


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
