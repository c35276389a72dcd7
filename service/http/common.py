"""What every resource's blueprint shares: the service object, the caller, the ``game_id``
converter, the security declaration and the OpenAPI links of a new game."""

from __future__ import annotations

from flask import current_app, request
from flask_smorest import Blueprint
from werkzeug.routing import BaseConverter

from projections.views import Caller
from service.chronicle import Chronicle
from service.http.openapi import Parser
from service.loading import Current

PREFIX = "/api/v1"
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
    ch: Chronicle = current_app.extensions["chronicle"]
    return ch


def opened(game_id: str) -> tuple[Current, Caller]:
    """The game now and the caller its ``Authorization`` header stands for."""
    return chronicle().opened(game_id, request.headers.get("Authorization"))
