"""The resources of ``/api/v1`` (contract.md), one thin handler each over ``Chronicle``."""

from __future__ import annotations

import time
from typing import Any

from flask import current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from werkzeug.routing import BaseConverter

from domain import engine, games
from domain.errors import BadAction
from projections.views import ADMIN, Caller, events_for, view_doc
from service.games import Chronicle, Current
from service.http import schemas as s

blp = Blueprint("games", __name__, url_prefix="/api/v1", description="Games, play and history")


class GameId(BaseConverter):
    """A game id: any path segment but ``import`` (``/games/import`` is its own resource, so
    ``GET /games/import`` is a 405, not a search for a game called "import")."""

    regex = r"(?!import$)[^/]{1,64}"


# Registered before the routes below are (blueprint callbacks run in the order recorded).
blp.record_once(lambda state: state.app.url_map.converters.setdefault("game_id", GameId))

AUTH = [{"bearer": []}, {}]

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
    )
}


def chronicle() -> Chronicle:
    return current_app.extensions["chronicle"]


def load(game_id: str) -> tuple[Current, Caller]:
    ch = chronicle()
    cur = ch.current(game_id)
    return cur, ch.caller(cur.meta, request.headers.get("Authorization"))


@blp.route("/catalog")
class CatalogResource(MethodView):
    @blp.doc(operationId="listCatalog")
    @blp.response(200, s.Catalog)
    def get(self) -> dict[str, Any]:
        """Games offered: players, options (first value is the default), bots, action shapes."""
        out = []
        for g in games.GAMES.values():
            options = {k: {"values": list(v), "default": v[0]} for k, v in g.options.items()}
            options["undo"] = {"values": ["turn", "host", "none"], "default": "turn"}
            out.append(
                {
                    "id": g.id,
                    "name": g.name,
                    "players": {"min": g.min_players, "max": g.max_players},
                    "options": options,
                    "bots": list(g.bots),
                    "actions": {
                        t: {
                            n: {
                                "kind": f.kind,
                                "required": f.required,
                                "choices": f.choices,
                                "doc": f.doc,
                            }
                            for n, f in fields.items()
                        }
                        for t, fields in g.actions.items()
                    },
                }
            )
        return {"games": out}


@blp.route("/games")
class GamesResource(MethodView):
    @blp.doc(operationId="createGame", responses={201: {"links": GAME_LINKS}})
    @blp.arguments(
        s.CreateGame,
        example={
            "game": "artus",
            "players": [{"name": "Ann"}, {"name": "Bob", "bot": "greedy"}],
            "options": {"rules": "basic"},
        },
    )
    @blp.response(201, s.Created)
    @blp.alt_response(400, schema=s.ApiError, description="bad request")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game; the response holds each human seat's token and the host token, once."""
        return chronicle().create(
            None, body["game"], body["players"], body.get("options"), body.get("seed")
        )

    @blp.doc(operationId="listGames")
    @blp.arguments(s.ListQuery, location="query")
    @blp.response(200, s.GameList)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Games, newest first, filtered by `game` and `status`, paged."""
        return chronicle().list_games(
            query.get("game"), query.get("status"), query["page"], query["per_page"]
        )


@blp.route("/games/import")
class ImportResource(MethodView):
    @blp.doc(operationId="importGame", responses={201: {"links": GAME_LINKS}})
    @blp.arguments(s.Export)
    @blp.response(201, s.Created)
    @blp.alt_response(422, schema=s.ApiError, description="tampered or illegal log")
    def post(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Import an exported log: it is replayed through the rules, refused if it was tampered
        with or holds an illegal action.  The game gets a new id and new tokens."""
        return chronicle().import_log(doc)


@blp.route("/games/<game_id:game_id>")
class GameResource(MethodView):
    @blp.doc(operationId="getGame")
    @blp.response(200, s.Summary)
    @blp.alt_response(404, schema=s.ApiError, description="unknown game")
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """The game's summary."""
        cur, _ = load(game_id)
        return chronicle().summary(cur)


@blp.route("/games/<game_id:game_id>/view")
class ViewResource(MethodView):
    @blp.doc(operationId="getView")
    @blp.arguments(s.ViewQuery, location="query")
    @blp.response(200, s.View)
    @blp.doc(security=AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The caller's view; `version` replays it as it was then."""
        cur, caller = load(game_id)
        finished_now = cur.match.status(cur.game) == engine.FINISHED
        if query["reveal"] and not finished_now and caller.role != ADMIN:
            raise BadAction("reveal is allowed once the game is finished", {"reveal": ["not yet"]})
        if "version" in query and query["version"] != cur.match.version:
            cur, _ = chronicle().at(game_id, query["version"])
        return view_doc(cur.game, game_id, cur.match, caller, reveal=query["reveal"])


@blp.route("/games/<game_id:game_id>/actions")
class ActionsResource(MethodView):
    @blp.doc(operationId="listActions")
    @blp.response(200, s.Actions)
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """The caller's legal actions now (empty unless the caller is a seat to act)."""
        cur, caller = load(game_id)
        actions: list[dict[str, Any]] = []
        if caller.seat is not None and caller.seat in cur.match.to_act(cur.game):
            actions = cur.game.legal_actions(cur.match.state, caller.seat)
        return {"version": cur.match.version, "actions": actions}

    @blp.doc(operationId="act")
    @blp.arguments(s.ActIn)
    @blp.response(201, s.Events)
    @blp.alt_response(409, schema=s.ApiError, description="version_conflict")
    @blp.alt_response(422, schema=s.ApiError, description="illegal_action (names the rule)")
    @blp.doc(
        security=AUTH,
        parameters=[
            {
                "in": "header",
                "name": "Idempotency-Key",
                "schema": {"type": "string", "minLength": 1, "maxLength": 128},
                "description": "a retried POST with the same key returns the first response",
            }
        ],
    )
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Act: the action is checked by the rules and appended if `expected_version` is current."""
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 1 <= len(key) <= 128:
            raise BadAction(
                "Idempotency-Key must be 1-128 characters", {"Idempotency-Key": ["length"]}
            )
        cur, caller = load(game_id)
        return chronicle().act(
            game_id, caller, body["action"], body["expected_version"], key, loaded=cur
        )


@blp.route("/games/<game_id:game_id>/events")
class EventsResource(MethodView):
    @blp.doc(operationId="listEvents")
    @blp.arguments(s.EventsQuery, location="query")
    @blp.response(200, s.Events)
    @blp.doc(security=AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The log as the caller may see it; `wait` long-polls for events after `after`."""
        ch = chronicle()
        cur, caller = load(game_id)
        after, limit, wait = query["after"], query["limit"], query["wait"]
        deadline = time.monotonic() + wait
        records = ch.store.read(game_id, after, limit)
        while not records and wait > 0:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ch.store.wait(game_id, after, min(1000, int(left * 1000)))  # < socket timeout
            records = ch.store.read(game_id, after, limit)
        if records:
            cur = ch.current(game_id)
        reveal = cur.match.status(cur.game) == engine.FINISHED
        return {
            "version": cur.match.version,
            "events": events_for(cur.game, records, caller, reveal=reveal, config=cur.match.config),
        }


@blp.route("/games/<game_id:game_id>/undo")
class UndoResource(MethodView):
    @blp.doc(operationId="undo")
    @blp.arguments(s.UndoIn)
    @blp.response(200, s.Undone)
    @blp.alt_response(409, schema=s.ApiError, description="undo_refused (with the reason)")
    @blp.doc(security=AUTH)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Undo by truncating the log (policy: the game's `undo` option)."""
        _, caller = load(game_id)
        return chronicle().undo(game_id, caller, body.get("to_version"))


@blp.route("/games/<game_id:game_id>/audit")
class AuditResource(MethodView):
    @blp.doc(operationId="getAudit")
    @blp.response(200, s.Audit)
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """Who did what and when, the hash chain check and every undo (redacted before the end)."""
        _, caller = load(game_id)
        return chronicle().audit(game_id, caller)


@blp.route("/games/<game_id:game_id>/export")
class ExportResource(MethodView):
    @blp.doc(operationId="exportGame")
    @blp.response(200, s.Export)
    @blp.alt_response(403, schema=s.ApiError, description="not finished")
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """The whole log with the revealed seed (finished games, or the operator)."""
        _, caller = load(game_id)
        return chronicle().export(game_id, caller)
