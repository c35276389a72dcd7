"""What the OpenAPI document adds to flask-smorest's: typed games, error responses, 400s.

- **Games**: every game's components (``game_schemas``) are registered, and a ``Typed`` field
  of ``schemas.py`` is documented as a reference to its component.
- **Error responses**: every operation declares the errors it may answer, derived from the
  operation itself (``ErrorResponses``, an apispec plugin: it runs for every route registered,
  including routes added later, with no per-endpoint work): 400 for a request with a body or
  parameters, 401/403 for one that takes a bearer token, 404 under a game, 409 for a write
  under a game, 412 with an ``If-Match`` header, 408 and 413 with a body, 422 with an
  ``Idempotency-Key`` or where the operation declares it, 429 but on the health checks (the
  only paths the rate limits exempt: ``limits.UNLIMITED_PATHS``), 503 unless it never
  touches Redis, 507 for writes.  Each response lists the codes of its status, from the one
  table (``errors.ERRORS``), whose closed enum the error schema carries.
- **Creation**: what ``POST /games`` checks beyond marshmallow's fields is documented too, so
  a schema-valid creation is accepted (``creation_rules``, after the blueprints): a seat is
  ``NamedSeat`` or ``OpenSeat`` (a name is required unless the seat is open, and an open
  seat has neither name nor bot: ``schemas.PlayerIn.named_unless_open``), and ``CreateGame``
  is a ``oneOf`` on ``game`` of ``Create<Game>Game``, with that game's player count, its
  options and their values (``game_config.option_values``, as ``checked_config`` checks) and
  the turn time's form (``domain.table.duration_ms``).  Each is made from the fields
  marshmallow documented (one source); the minimum turn time is left to the answer (400).
- **400, not 422**: webargs answers schema violations with 422 by default and flask-smorest
  documents that; the contract says 400, so the parser of every blueprint (``Parser``) uses
  400, and the document says so.
"""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec, BasePlugin
from flask_smorest import Api
from webargs.flaskparser import FlaskParser

from domain import games
from service.game_config import option_values
from service.http import game_schemas, limits
from service.http.errors import CODES, codes_for
from service.http.game_schemas import REF
from service.http.schemas import Typed

WRITES = frozenset({"post", "put", "patch", "delete"})
NO_REDIS = frozenset({"/healthz"})  # liveness answers without Redis (and is not limited)
_HTTP_METHODS = frozenset({"get", "head", "post", "put", "patch", "delete", "options", "trace"})


class Parser(FlaskParser):
    """webargs' parser for Flask, answering schema violations with the contract's 400."""

    DEFAULT_VALIDATION_STATUS = 400


def _header(operation: dict[str, Any], name: str) -> bool:
    return any(
        isinstance(p, dict) and p.get("in") == "header" and p.get("name", "").lower() == name
        for p in operation.get("parameters", [])
    )


def error_statuses(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    """The error statuses an operation may answer, from what it takes (see the module doc)."""
    under_game = "{" in path
    write = method in WRITES
    has_body = "requestBody" in operation or any(
        isinstance(p, dict) and p.get("in") == "body" for p in operation.get("parameters", [])
    )
    has_params = bool(operation.get("parameters"))
    bearer = any("bearer" in s for s in operation.get("security", []))
    declared = {int(str(k)) for k in operation.get("responses", {}) if str(k).isdigit()}
    out: set[int] = set()
    if has_body or has_params:
        out.add(400)
    if bearer:
        out |= {401, 403}
    if under_game:
        out.add(404)
    if write and under_game:
        out.add(409)
    if _header(operation, "if-match"):
        out.add(412)
    if has_body:
        out |= {408, 413}  # a body too slow to come (``service.http1``), or too large
    if _header(operation, "idempotency-key") or 422 in declared:
        out.add(422)
    if path not in limits.UNLIMITED_PATHS:
        out.add(429)
    if path not in NO_REDIS:
        out.add(503)
    if write:
        out.add(507)
    out |= {s for s in declared if s >= 400}
    return sorted(out)


def error_response(status: int, note: str = "") -> dict[str, Any]:
    meanings = "; ".join(f"`{c}`: {CODES[c].meaning}" for c in codes_for(status))
    description = f"{note} -- {meanings}" if note else meanings
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}},
    }


class ErrorResponses(BasePlugin):
    """apispec plugin: the error responses of every operation (module doc)."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        if path is None or not operations:
            return
        openapi_path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", path)
        for method, operation in operations.items():
            if method not in _HTTP_METHODS or not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            for status in error_statuses(openapi_path, method, operation):
                note = ""  # an operation's own description of the error is kept in front
                for key in (status, str(status)):
                    old = responses.pop(key, None)
                    if isinstance(old, dict) and old.get("description") not in DEFAULT_NOTES:
                        note = str(old.get("description") or "")
                responses[str(status)] = error_response(status, note)


# flask-smorest's generic descriptions: dropped in favour of the table's.
DEFAULT_NOTES = frozenset({"bad request", "Bad Request", "Unprocessable Entity"})


def _typed_field(self: Any, field: Any, **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a ``Typed`` field is a reference to its component."""
    if isinstance(field, Typed):
        ret = kwargs.get("ret")
        if isinstance(ret, dict):
            ret.clear()
        return {"$ref": game_schemas.REF + field.component}
    return {}


def install(api: Api) -> None:
    """Register the games' components and document ``Typed`` fields (before blueprints)."""
    spec: APISpec = api.spec
    for name, schema in game_schemas.components().items():
        spec.components.schema(name, component=schema)
    api.ma_plugin.converter.add_attribute_function(_typed_field)


def _null_only(like: dict[str, Any]) -> dict[str, Any]:
    """A property that may be absent or JSON null, nothing else (OpenAPI 3.0: ``enum`` holds
    ``null`` and ``nullable`` lets it through; ``type`` is kept for generators)."""
    return {"type": like.get("type", "string"), "nullable": True, "enum": [None]}


# ``domain.table.duration_ms``'s form (a superset: "P", "PT" and a trailing "T" are excluded
# by the lookaheads, a zero or too short duration is left to the answer's 400).
TURN_TIME = r"^(?!PT?$)(?!.*T$)P(?:\d+W)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d{1,3})?S)?)?$"


def _seats(schemas: dict[str, Any]) -> None:
    props = schemas["PlayerIn"]["properties"]
    name = {k: v for k, v in props["name"].items() if k not in ("nullable", "default")}
    flag = {k: v for k, v in props["open"].items() if k not in ("default", "description")}
    schemas["NamedSeat"] = {
        "type": "object",
        "description": "a seat played by the named person, or by a bot under that name",
        "properties": {
            "name": {**name, "description": "the player's name"},
            "bot": props["bot"],
            "open": {**flag, "enum": [False], "default": False},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    schemas["OpenSeat"] = {
        "type": "object",
        "description": props["open"].get("description", ""),
        "properties": {
            "open": {**flag, "enum": [True]},
            "name": _null_only(props["name"]),
            "bot": _null_only(props["bot"]),
        },
        "required": ["open"],
        "additionalProperties": False,
    }
    schemas["PlayerIn"] = {
        "description": "a named seat, or an open one (a name is required unless it is open)",
        "oneOf": [{"$ref": REF + "NamedSeat"}, {"$ref": REF + "OpenSeat"}],
    }


def _creations(schemas: dict[str, Any]) -> None:
    base = schemas["CreateGame"]
    names: dict[str, str] = {}
    for game in games.GAMES.values():
        name = f"Create{game_schemas.prefix(game)}Game"
        names[game.id] = REF + name
        props = dict(base["properties"])
        props["game"] = {"type": "string", "enum": [game.id]}
        props["players"] = {
            **props["players"],
            "minItems": game.min_players,
            "maxItems": game.max_players,
        }
        props["options"] = {
            "type": "object",
            "description": "the game's options (each absent one takes its first value)",
            "properties": {
                k: {"type": "string", "enum": list(v)} for k, v in option_values(game).items()
            },
            "additionalProperties": False,
        }
        props["turn_time"] = {**props["turn_time"], "pattern": TURN_TIME}
        schemas[name] = {**base, "description": f"a game of {game.name}", "properties": props}
    schemas["CreateGame"] = {
        "description": "a new game: its rules, seats and options (by `game`)",
        "oneOf": [{"$ref": ref} for ref in names.values()],
        "discriminator": {"propertyName": "game", "mapping": names},
    }


def creation_rules(api: Api) -> None:
    """The seat and per-game rules of ``POST /games`` (module doc), once the blueprints are
    registered (marshmallow has documented ``PlayerIn`` and ``CreateGame`` by then)."""
    schemas: dict[str, Any] = api.spec.components.schemas
    _seats(schemas)
    _creations(schemas)
