"""What every resource's blueprint shares: the service object, the caller, the ``game_id``
converter, the security declaration and the OpenAPI links of a new game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import request
from flask_smorest import Blueprint
from werkzeug.routing import BaseConverter

from domain.errors import BadAction
from projections.views import Caller
from service.chronicle import Chronicle
from service.http.middleware import current_flask_app, current_request
from service.http.openapi import Parser
from service.loading import Current
from service.preconditions import etag

PREFIX = "/api/v1"
IF_MATCH = "If-Match"
MAX_IF_MATCH = 256
# The OpenAPI declarations of the exact preconditions (``service/preconditions.py``).
ETAG_HEADER = {
    "ETag": {
        "description": 'the log head: `"v<version>-<head hash prefix>"`; send it back as '
        "`If-Match` to act or undo only on the board you saw",
        "schema": {"type": "string"},
    }
}
IF_MATCH_PARAMETER = {
    "in": "header",
    "name": IF_MATCH,
    "schema": {"type": "string", "maxLength": MAX_IF_MATCH},
    "description": "an ETag of the game (from its summary, view or actions): the write is "
    "refused with 412 precondition_failed if the log head moved since",
}
IDEMPOTENCY_KEY = "Idempotency-Key"
IDEMPOTENCY_PARAMETER = {
    "in": "header",
    "name": IDEMPOTENCY_KEY,
    "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    "description": "a retried POST with the same key returns the first response "
    "while the log still holds it (after an undo: 422 idempotency_key_reused)",
}
AUTH: list[dict[str, list[str]]] = [{"bearer": []}, {}]

# OpenAPI links: what a client (and schemathesis' stateful tests) can do with a new game.
_GAME_ID = {"game_id": "$response.body#/id"}
GAME_LINKS = {
    name: {"operationId": op, "parameters": _GAME_ID}
    for name, op in (
        ("GetGame", "getGame"),
        ("GetView", "getView"),
        ("ListActions", "listActions"),
        ("Act", "act"),
        ("ListEvents", "listEvents"),
        ("Undo", "undo"),
        ("GetAudit", "getAudit"),
        ("ExportGame", "exportGame"),
        ("ReadChat", "readChat"),
    )
}


class GameId(BaseConverter):
    """A game id: any path segment but ``import`` (``/games/import`` is its own resource, so
    ``GET /games/import`` is a 405, not a search for a game called "import")."""

    regex = r"(?!import$)[^/]{1,64}"


class ApiBlueprint(Blueprint):
    """flask-smorest's blueprint whose argument errors are the contract's 400 (``Parser``)."""

    ARGUMENTS_PARSER = Parser()


def blueprint(name: str, description: str, prefix: str = PREFIX) -> Blueprint:
    """A resource's blueprint under ``/api/v1``, with the ``game_id`` converter registered
    before its routes are (blueprint callbacks run in the order recorded)."""
    blp = ApiBlueprint(name, __name__, url_prefix=prefix or None, description=description)
    blp.record_once(lambda state: state.app.url_map.converters.setdefault("game_id", GameId))
    return blp


def chronicle() -> Chronicle:
    """The app's service (``middleware.current_flask_app``: not through the proxy)."""
    ch: Chronicle = current_flask_app().extensions["chronicle"]
    return ch


def tagged(cur: Current, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A response with the ETag of the game's log head."""
    return body, {"ETag": etag(cur.match.version, cur.head)}


def if_match(environ: Mapping[str, Any] | None = None) -> str | None:
    """The ``If-Match`` header (at most ``MAX_IF_MATCH`` characters, as documented) of
    ``environ``, or of the request being served."""
    value = (current_request().environ if environ is None else environ).get("HTTP_IF_MATCH")
    if value is not None and len(value) > MAX_IF_MATCH:
        raise BadAction(f"If-Match is longer than {MAX_IF_MATCH}", {IF_MATCH: ["too long"]})
    return value


def idempotency_key(environ: Mapping[str, Any] | None = None) -> str | None:
    """The ``Idempotency-Key`` header (1 to 128 characters, as documented), as above."""
    key = (current_request().environ if environ is None else environ).get("HTTP_IDEMPOTENCY_KEY")
    if key is not None and not 1 <= len(key) <= 128:
        raise BadAction("Idempotency-Key must be 1-128 characters", {IDEMPOTENCY_KEY: ["length"]})
    return key


def opened(game_id: str) -> tuple[Current, Caller]:
    """The game now and the caller its ``Authorization`` header stands for."""
    return chronicle().opened(game_id, request.headers.get("Authorization"))
