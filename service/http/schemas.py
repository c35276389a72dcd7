"""Marshmallow schemas of the HTTP contract (``shared/contract.md``); they also generate the
OpenAPI document.  Schemas live only here, at the edge; the domain sees plain dicts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from domain import games
from domain.engine import ACTIVE, FINISHED, SCORING
from service.http.errors import ERRORS


class _Printable(validate.Regexp):
    """Printable text: no control characters (NUL, newlines, escapes: names end up in lists
    and logs), not blank.  The pattern is documented in the OpenAPI document; it is matched
    against the whole value (``re.match`` would let a final newline through ``$``)."""

    PATTERN = re.compile(r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")

    def __init__(self) -> None:
        super().__init__(
            self.PATTERN, error="must be printable text (no control characters, not blank)"
        )

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or self.PATTERN.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class Typed(fields.Raw):
    """A JSON object whose OpenAPI schema is a component made elsewhere (``game_schemas``:
    ``GameAction``, ``GameViewState``, ``GameEvent``); it loads any JSON object (the rules
    check it, with their own messages) and dumps the value as it is."""

    def __init__(self, component: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.component = component

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("Not a valid mapping type.")
        return value


NAME = [validate.Length(min=1, max=64), _Printable()]
# Versions are counted in a Redis stream id (64-bit); no game comes near this bound, and a
# request past it is refused here rather than by Redis.
MAX_VERSION = 1_000_000_000


class ErrorBody(Schema):
    code = fields.Str(
        required=True,
        validate=validate.OneOf([e.code for e in ERRORS]),
        metadata={"description": "machine-readable code (docs/errors.md)"},
    )
    message = fields.Str(required=True, metadata={"description": "what is wrong, for a person"})
    details = fields.Dict(required=True)


class ApiError(Schema):
    error = fields.Nested(ErrorBody, required=True)


STATUSES = (ACTIVE, SCORING, FINISHED)


# What every offered game allows, together, read from the registry when a request is checked
# (nothing is copied at import); each game's own limits are checked by the service.
class _OneOfNow(validate.Validator):
    """Like ``OneOf``, with the choices computed when a value is checked."""

    def __init__(self, choices: Callable[[], Sequence[str]]) -> None:
        self._choices = choices

    def __call__(self, value: Any) -> Any:
        allowed = self._choices()
        if value not in allowed:
            raise ValidationError(f"Must be one of: {', '.join(allowed)}.")
        return value


class _PlayerCount(validate.Validator):
    """From the fewest players of any offered game to the most."""

    def __call__(self, value: Sequence[Any]) -> Sequence[Any]:
        offered = games.GAMES.values()
        low, high = min(g.min_players for g in offered), max(g.max_players for g in offered)
        return validate.Length(min=low, max=high)(value)


def _offered() -> list[str]:
    return sorted(games.GAMES)


def _bots() -> list[str]:
    return sorted({b for g in games.GAMES.values() for b in g.bots})


class PlayerIn(Schema):
    name = fields.Str(required=True, validate=NAME)
    bot = fields.Str(load_default=None, allow_none=True, validate=_OneOfNow(_bots))


class CreateGame(Schema):
    game = fields.Str(required=True, validate=_OneOfNow(_offered))
    players = fields.List(fields.Nested(PlayerIn), required=True, validate=_PlayerCount())
    options = fields.Dict(
        keys=fields.Str(validate=validate.Length(max=32)),
        values=fields.Str(validate=validate.Length(max=32)),
        load_default=dict,
    )
    seed = fields.Str(
        load_default=None,
        validate=validate.Length(min=1, max=256),
        metadata={"description": "optional: a seed chosen by the creator (reproducible games)"},
    )


class SeatOut(Schema):
    seat = fields.Int(required=True)
    name = fields.Str(required=True)
    bot = fields.Str(allow_none=True)
    token = fields.Str(metadata={"description": "the seat's secret token, shown once"})


class Created(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Str(), required=True)
    version = fields.Int(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    host_token = fields.Str(required=True)
    seed_commitment = fields.Str(required=True)


class Result(Schema):
    scores = fields.Dict(keys=fields.Str(), values=fields.Float(), required=True)
    winners = fields.List(fields.Int(), required=True)
    ranking = fields.List(fields.Int(), required=True)
    details = fields.Dict(required=True)


class Summary(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Str(), required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    status = fields.Str(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Int(required=True)
    to_act = fields.List(fields.Int(), required=True)
    result = fields.Nested(Result)
    seed_commitment = fields.Str(required=True)
    created_at = fields.Str(required=True)
    updated_at = fields.Str(required=True)


class GameList(Schema):
    games = fields.List(fields.Nested(Summary), required=True)
    page = fields.Int(required=True)
    per_page = fields.Int(required=True)
    total = fields.Int(required=True, metadata={"description": "games matching the filters"})


class ListQuery(Schema):
    game = fields.Str(validate=validate.Length(max=64))
    status = fields.Str(validate=validate.OneOf(STATUSES))
    page = fields.Int(load_default=1, strict=False, validate=validate.Range(min=1, max=100_000))
    per_page = fields.Int(load_default=20, validate=validate.Range(min=1, max=100))


class ViewQuery(Schema):
    version = fields.Int(validate=validate.Range(min=1, max=MAX_VERSION))
    reveal = fields.Bool(
        load_default=False,
        metadata={"description": "finished games only: show everything at that version"},
    )


class View(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    version = fields.Int(required=True)
    status = fields.Str(required=True)
    you = fields.Int(allow_none=True, required=True)
    to_act = fields.List(fields.Int(), required=True)
    state = Typed("GameViewState", required=True)
    result = fields.Nested(Result)


class Actions(Schema):
    version = fields.Int(required=True)
    actions = fields.List(Typed("GameAction"), required=True)


class ActIn(Schema):
    action = Typed("GameAction", required=True)
    expected_version = fields.Int(
        required=True, strict=True, validate=validate.Range(min=0, max=MAX_VERSION)
    )


class Event(Schema):
    version = fields.Int(required=True)
    type = fields.Str(required=True)
    seat = fields.Int(allow_none=True, required=True)
    at = fields.Str(required=True)
    data = fields.Dict(required=True)


class Events(Schema):
    version = fields.Int(required=True)
    events = fields.List(Typed("GameEvent"), required=True)


class EventsQuery(Schema):
    after = fields.Int(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
    limit = fields.Int(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "long-poll up to this many seconds for events after `after`"},
    )


class UndoIn(Schema):
    to_version = fields.Int(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=0, max=MAX_VERSION),
    )


class Undone(Schema):
    version = fields.Int(required=True)
    undone = fields.List(fields.Nested(Event), required=True)


class AuditEvent(Event):
    actor = fields.Int(allow_none=True)
    command = fields.Raw(allow_none=True)
    hash = fields.Str(required=True)


class UndoRecord(Schema):
    by = fields.Str(required=True)
    at = fields.Str(required=True)
    from_version = fields.Int(required=True)
    to_version = fields.Int(required=True)
    events = fields.List(fields.Dict(), required=True)


class Audit(Schema):
    chain_ok = fields.Bool(required=True)
    first_bad_version = fields.Int(allow_none=True)
    head_hash = fields.Str(required=True)
    events = fields.List(fields.Nested(AuditEvent), required=True)
    undone = fields.List(fields.Nested(UndoRecord), required=True)


class Export(Schema):
    format = fields.Str(required=True, validate=validate.Equal("chronicle-export/1"))
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Str(), required=True)
    players = fields.List(fields.Nested(PlayerIn), required=True)
    seed = fields.Str(required=True, validate=validate.Length(min=1, max=256))
    seed_commitment = fields.Str(required=True)
    created_at = fields.Str(required=True)
    head_hash = fields.Str(required=True)
    events = fields.List(fields.Nested(AuditEvent), required=True)
    undone = fields.List(fields.Nested(UndoRecord), load_default=list)


class CatalogGame(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    players = fields.Dict(keys=fields.Str(), values=fields.Int(), required=True)
    options = fields.Dict(required=True)
    bots = fields.List(fields.Str(), required=True)
    actions = fields.Dict(required=True)


class Catalog(Schema):
    games = fields.List(fields.Nested(CatalogGame), required=True)
