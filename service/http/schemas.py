"""Marshmallow schemas of the HTTP contract (``docs/contract.md``); they also generate the
OpenAPI document.  Schemas live only here, at the edge; the domain sees plain dicts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain import games
from domain import table as tables
from domain.engine import ACTIVE, FINISHED, SCORING
from service import invisible
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


class _Visible(validate.Validator):
    """No invisible or reordering character (``service.invisible``: the one check of names
    and chat lines, so that a name cannot be made to read as another); ``line``: a chat
    line's text, which keeps the joiners of emoji and of some scripts."""

    def __init__(self, line: bool = False) -> None:
        self.line = line

    def __call__(self, value: Any) -> Any:
        why = invisible.problem(value, self.line) if isinstance(value, str) else None
        if why is not None:
            raise ValidationError(why)
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


class StrictBool(fields.Bool):
    """A JSON body's boolean: ``true`` or ``false`` only (marshmallow's also takes 1, "yes",
    "on"..., which the document, a JSON boolean, says are refused)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


NAME = [validate.Length(min=1, max=64), _Printable(), _Visible()]
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


STATUSES = (tables.WAITING, ACTIVE, SCORING, FINISHED, tables.ABANDONED)


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


def choices_now(self: Any, field: fields.Field, **kwargs: Any) -> dict[str, Any]:
    """An apispec attribute function: a field checked by ``_OneOfNow`` is documented with the
    choices of the registry when the OpenAPI document is made (so clients and the fuzz tests
    know the games and bots offered), still without a copy taken at import."""
    for validator in field.validators:
        if isinstance(validator, _OneOfNow):
            none = [None] if field.allow_none else []  # OpenAPI 3.0: a nullable enum lists null
            return {"enum": [*validator._choices(), *none]}
    return {}


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
    name = fields.Str(load_default=None, validate=NAME, metadata={"description": "unless open"})
    bot = fields.Str(load_default=None, allow_none=True, validate=_OneOfNow(_bots))
    open = StrictBool(
        load_default=False,
        metadata={"description": "an open seat, taken by whoever holds its invitation"},
    )

    @validates_schema
    def named_unless_open(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("open"):
            if data.get("name") is not None or data.get("bot") is not None:
                raise ValidationError("an open seat has no name and no bot", "open")
        elif data.get("name") is None:
            raise ValidationError("Missing data for required field.", "name")


class TimeControlIn(Schema):
    """Contract: Time controls.  Durations are ISO 8601 (weeks to seconds); what they may be
    is checked with the rest of the table (``service.time_control``)."""

    per_turn = fields.Str(validate=validate.Length(min=2, max=32))
    bank = fields.Str(validate=validate.Length(min=2, max=32))
    increment = fields.Str(validate=validate.Length(min=2, max=32))
    max = fields.Str(validate=validate.Length(min=2, max=32))
    weekends = fields.Str(
        validate=validate.OneOf(("off", "on")),
        metadata={"description": "off: no time runs Saturday and Sunday in `timezone`"},
    )
    vacation = fields.Str(
        validate=validate.Length(min=2, max=32),
        metadata={"description": "whole days each seat may take in the game (P14D)"},
    )


class ClockOut(Schema):
    remaining = fields.Str(required=True, metadata={"description": "ISO 8601 duration"})
    deadline = fields.Str(metadata={"description": "ISO 8601 UTC, while the seat is to act"})
    vacation_until = fields.Str(metadata={"description": "ISO 8601 UTC, while on vacation"})


CLOCKS = {"description": "seat -> its clock now (a clocked table's people; Time controls)"}


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
        metadata={
            "description": "optional: a seed chosen by the creator (reproducible games); the "
            "summary then says `seed_chosen`.  A server with CHRONICLE_CHOSEN_SEEDS=solo takes "
            "it only at a table of one person and bots"
        },
    )
    public = StrictBool(
        load_default=None, metadata={"description": "listed in the lobby (status waiting)"}
    )
    turn_time = fields.Str(
        load_default=None,
        validate=validate.Length(min=2, max=32),
        metadata={
            "description": "ISO 8601 duration per turn (P3D, PT2M; at least PT1S, at most P365D)"
        },
    )
    time_control = fields.Nested(
        TimeControlIn,
        load_default=None,
        metadata={"description": "per_turn, or a bank with an increment (instead of turn_time)"},
    )
    timezone = fields.Str(
        load_default=None,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "IANA time zone of the table (weekends off); default UTC"},
    )
    resign_bot = fields.Str(
        load_default=None,
        validate=_OneOfNow(_bots),
        metadata={"description": "the bot that plays a resigned or timed-out seat (greedy)"},
    )
    timeouts_before_takeover = fields.Int(
        load_default=None,
        strict=True,
        validate=validate.Range(min=1, max=100),
        metadata={"description": "timeouts in a row before the bot keeps the seat (3)"},
    )
    rated = StrictBool(
        load_default=None,
        metadata={
            "description": "the result counts for ratings: the creator signed in, every other "
            "seat a bot or open (taken only signed in), undo `none` or `turn`, no `seed`"
        },
    )


class SeatOut(Schema):
    seat = fields.Int(required=True)
    name = fields.Str(metadata={"description": "absent for an open seat"})
    bot = fields.Str(allow_none=True)
    open = fields.Bool(metadata={"description": "true: the seat waits for a player"})
    resigned = fields.Bool()
    player = fields.Str(metadata={"description": "the account holding the seat (public id)"})
    token = fields.Str(metadata={"description": "the seat's secret token, shown once"})


class Invitation(Schema):
    seat = fields.Int(required=True)
    code = fields.Str(required=True, metadata={"description": "link-safe; shown once"})


class Created(Schema):
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Str(), required=True)
    version = fields.Int(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    host_token = fields.Str(required=True)
    seed_commitment = fields.Str(required=True)
    invitations = fields.List(fields.Nested(Invitation))


class Score(fields.Number):
    """A score as the rules computed it: an int stays an int.  (``fields.Float`` dumped every
    score as a float, so a result read 31.0 in summaries and views but 31 in the events and the
    export, which are not dumped through a schema.)"""

    num_type = float  # what a value that is neither int nor float becomes

    def _format_num(self, value: Any) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return float(value)
        return value


class Result(Schema):
    scores = fields.Dict(keys=fields.Str(), values=Score(), required=True)
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
    seed_chosen = fields.Bool(
        required=True,
        metadata={
            "description": "the host chose the seed (or imported the log, which holds it): "
            "they may know every hidden card"
        },
    )
    created_at = fields.Str(required=True)
    updated_at = fields.Str(required=True)
    public = fields.Bool()
    rated = fields.Bool(metadata={"description": "a rated table (Ratings); absent: not rated"})
    turn_time = fields.Str()
    deadlines = fields.Dict(
        keys=fields.Str(),
        values=fields.Str(),
        metadata={"description": "seat -> ISO time by which it must act (with turn_time)"},
    )
    time_control = fields.Nested(TimeControlIn)
    timezone = fields.Str()
    clocks = fields.Dict(keys=fields.Str(), values=fields.Nested(ClockOut), metadata=CLOCKS)


class GameList(Schema):
    games = fields.List(fields.Nested(Summary), required=True)
    page = fields.Int(required=True)
    per_page = fields.Int(required=True)
    total = fields.Int(
        required=True,
        metadata={"description": "games matching the filters that the caller may see"},
    )


class ListQuery(Schema):
    game = fields.Str(validate=validate.Length(max=64))
    status = fields.Str(
        validate=validate.OneOf(STATUSES),
        metadata={"description": "waiting: the public tables that wait for players"},
    )
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
    deadlines = fields.Dict(keys=fields.Str(), values=fields.Str())
    time_control = fields.Nested(TimeControlIn)
    timezone = fields.Str()
    clocks = fields.Dict(keys=fields.Str(), values=fields.Nested(ClockOut), metadata=CLOCKS)


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
    hash = fields.Str(
        metadata={"description": "the undo trail's own chain: HMAC over the one before"}
    )


class Imported(Schema):
    from_ = fields.Str(data_key="from", attribute="from", allow_none=True, required=True)
    verified = fields.List(
        fields.Str(),
        required=True,
        metadata={"description": "what the import checked before storing anything"},
    )


class Audit(Schema):
    chain_ok = fields.Bool(required=True)
    first_bad_version = fields.Int(allow_none=True)
    undo_chain_ok = fields.Bool(
        required=True,
        allow_none=True,
        metadata={
            "description": "the undo trail's own hash chain verifies; null: the trail (its "
            "first records) was imported unsigned from a legacy export, see undo_chain_unsigned"
        },
    )
    first_bad_undo = fields.Int(allow_none=True, metadata={"description": "index in undone"})
    undo_chain_unsigned = fields.Str(
        required=True,
        allow_none=True,
        metadata={
            "description": "why undo_chain_ok is null: how many undo records came without "
            "hash from an export made before undo records were signed (else null)"
        },
    )
    imported = fields.Nested(Imported, allow_none=True)
    head_hash = fields.Str(required=True)
    events = fields.List(fields.Nested(AuditEvent), required=True)
    undone = fields.List(fields.Nested(UndoRecord), required=True)


class ExportPlayer(Schema):
    name = fields.Str(allow_none=True, validate=validate.Length(max=64))
    bot = fields.Str(allow_none=True, validate=_OneOfNow(_bots))


class Export(Schema):
    format = fields.Str(required=True, validate=validate.Equal("chronicle-export/1"))
    id = fields.Str(required=True)
    game = fields.Str(required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Str(), required=True)
    players = fields.List(fields.Nested(ExportPlayer), required=True)
    table = fields.Dict(metadata={"description": "the table section of GameCreated"})
    seed = fields.Str(required=True, validate=validate.Length(min=1, max=256))
    seed_commitment = fields.Str(required=True)
    created_at = fields.Str(required=True)
    head_hash = fields.Str(required=True)
    events = fields.List(fields.Nested(AuditEvent), required=True)
    undone = fields.List(fields.Nested(UndoRecord), load_default=list)
    chat = fields.List(fields.Dict(), load_default=list, validate=validate.Length(max=100_000))


class CatalogWords(Schema):
    """What a person reads about an option, an option's value or a bot."""

    label = fields.Str(required=True, metadata={"description": "a short name, e.g. `Basic`"})
    description = fields.Str(required=True, metadata={"description": "a sentence or two"})


class CatalogOption(CatalogWords):
    values = fields.List(fields.Str(), required=True)
    default = fields.Str(required=True, metadata={"description": "the first of `values`"})
    choices = fields.Dict(
        keys=fields.Str(),
        values=fields.Nested(CatalogWords),
        required=True,
        metadata={"description": "per value of `values`: its label and description"},
    )


class CatalogGame(Schema):
    id = fields.Str(required=True)
    name = fields.Str(required=True)
    description = fields.Str(
        required=True, metadata={"description": "the game for a person: theme, length, players"}
    )
    rules = fields.Str(
        required=True,
        metadata={"description": "the path of its rules for players: `/api/v1/docs/rules/<id>`"},
    )
    players = fields.Dict(keys=fields.Str(), values=fields.Int(), required=True)
    options = fields.Dict(keys=fields.Str(), values=fields.Nested(CatalogOption), required=True)
    bots = fields.List(fields.Str(), required=True)
    bot_levels = fields.Dict(
        keys=fields.Str(),
        values=fields.Nested(CatalogWords),
        required=True,
        metadata={"description": "per name of `bots`: its label and how it plays"},
    )
    actions = fields.Dict(required=True)


class Catalog(Schema):
    games = fields.List(fields.Nested(CatalogGame), required=True)


# ---- tables, webhooks and chat (contract: v1 additions) ---------------------------------------


class JoinIn(Schema):
    name = fields.Str(required=True, validate=NAME)
    invitation = fields.Str(
        load_default=None,
        validate=validate.Length(min=1, max=128),
        metadata={"description": "private tables"},
    )


class Joined(Schema):
    seat = fields.Int(required=True)
    token = fields.Str(required=True, metadata={"description": "the seat's token, shown once"})


class StartIn(Schema):
    fill = fields.Str(
        load_default=None,
        validate=_OneOfNow(_bots),
        metadata={"description": "the bot for every open seat (default: the resign bot)"},
    )


class TableChange(Schema):
    version = fields.Int(required=True)
    seat = fields.Int()
    bot = fields.Str()
    status = fields.Str()
    filled = fields.Dict(keys=fields.Str(), values=fields.Str())


class WebhookIn(Schema):
    url = fields.Str(required=True, validate=validate.Length(min=8, max=2048))


class WebhookOut(Schema):
    secret = fields.Str(
        metadata={"description": "HMAC-SHA256 key of the Chronicle-Signature header; shown once"}
    )
    seat = fields.Int()
    removed = fields.Bool()


_CHAT_TEXT = validate.Regexp(
    r"^[^\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]*$",
    error="no control characters (but newlines and tabs)",
)


class ChatIn(Schema):
    text = fields.Str(
        required=True,
        validate=[validate.Length(min=1, max=500), _CHAT_TEXT, _Visible(line=True)],
    )
    room = fields.Str(load_default=None, validate=validate.OneOf(["players", "spectators"]))
    name = fields.Str(load_default=None, validate=NAME, metadata={"description": "spectators"})


class ChatPosted(Schema):
    id = fields.Int(required=True)
    at = fields.Str(required=True)


class ChatQuery(Schema):
    room = fields.Str(validate=validate.OneOf(["players", "spectators"]))
    after = fields.Int(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))


class ChatLine(Schema):
    id = fields.Int(required=True)
    room = fields.Str(required=True)
    seat = fields.Int(allow_none=True, required=True)
    name = fields.Str(required=True)
    at = fields.Str(required=True)
    text = fields.Str(metadata={"description": "absent if the host hid the line"})
    hidden = fields.Bool()
    player = fields.Str(metadata={"description": "the account that said it (signed in)"})
    blocked = fields.Bool(metadata={"description": "you blocked its sender: no text"})


class ChatLines(Schema):
    lines = fields.List(fields.Nested(ChatLine), required=True)


class Hidden(Schema):
    id = fields.Int(required=True)
    hidden = fields.Bool(required=True)
