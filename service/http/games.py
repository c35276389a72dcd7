"""``/games``, ``/games/import``, ``/games/{id}``: create, list, import, summary."""

from __future__ import annotations

from typing import Any

from flask import Request, request
from flask.views import MethodView

from service import auth, lobby
from service.http import schemas as s
from service.http.common import (
    AUTH,
    ETAG_HEADER,
    GAME_LINKS,
    blueprint,
    chronicle,
    opened,
    tagged,
)
from service.http.middleware import current_request
from service.http.sessions import session_of

blp = blueprint("games", "Games: create, list, import, summary")


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
    @blp.alt_response(429, schema=s.ApiError, description="rate_limited (the creation quota)")
    @blp.alt_response(507, schema=s.ApiError, description="storage_full")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game; the response holds each human seat's token and the host token, once,
        and an invitation for each open seat (`{"open": true}`).  `rated: true` needs the
        creator signed in, the other seats bots or open, and undo `none` or `turn`."""
        session = session_of(current_request().environ)
        lobby.check_rated(body, signed_in=session is not None)
        created = chronicle().create(
            None,
            body["game"],
            body["players"],
            body.get("options"),
            body.get("seed"),
            table=lobby.table_section(body),
        )
        if session is not None:  # signed in: the creator's seat is the account's
            people = [
                seat
                for seat, p in enumerate(body["players"])
                if not p.get("bot") and not p.get("open")
            ]
            if people:
                claimed = lobby.claim(chronicle(), created["id"], people[0], session.player, True)
                created["version"] = claimed["version"]
        return created

    @blp.doc(operationId="listGames", security=AUTH)
    @blp.arguments(s.ListQuery, location="query")
    @blp.response(200, s.GameList)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Games, newest first, filtered by `game` and `status`, paged: the public tables,
        and a table created without `public` only to a caller holding one of its seat tokens
        or its host token (and to the admin).  Anyone with its link may still watch it."""
        return chronicle().list_games(
            query.get("game"),
            query.get("status"),
            query["page"],
            query["per_page"],
            request.headers.get("Authorization"),
        )


IMPORT_ENDPOINT = "games.ImportResource"


@blp.route("/games/import")
class ImportResource(MethodView):
    """An import's body may be 16 MB (``service.app.MAX_IMPORT_BODY``), so who may import is
    checked before it is read (``admit``, by the app's ``larger_imports`` hook, after the
    rate limits and the import quota): anyone else is refused without it being read."""

    @staticmethod
    def admit(req: Request) -> None:
        """Refuse (401) a caller who may not import: the admin token is needed, unless the
        operator opened imports (``Chronicle.import_log`` checks the same again)."""
        ch = chronicle()
        if not ch.open_import:
            auth.require_admin(req.headers.get("Authorization"), ch.admin_token)

    @blp.doc(operationId="importGame", responses={201: {"links": GAME_LINKS}})
    @blp.arguments(s.Export)
    @blp.response(201, s.Created)
    @blp.alt_response(401, schema=s.ApiError, description="the admin token is needed")
    @blp.alt_response(429, schema=s.ApiError, description="rate_limited (the import quota)")
    @blp.alt_response(507, schema=s.ApiError, description="storage_full")
    @blp.alt_response(422, schema=s.ApiError, description="tampered, illegal or out-of-range")
    @blp.doc(security=[{"bearer": []}])
    def post(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Import an exported log (admin token, unless the operator opened imports): the whole
        document is checked (ids, times, the undo trail and its chain) and replayed through
        the rules before anything is stored.  The game gets a new id and new tokens."""
        return chronicle().import_log(doc, request.headers.get("Authorization"))


@blp.route("/games/<game_id:game_id>")
class GameResource(MethodView):
    @blp.doc(operationId="getGame")
    @blp.response(200, s.Summary, headers=ETAG_HEADER)
    @blp.alt_response(404, schema=s.ApiError, description="unknown game")
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """The game's summary."""
        cur, _ = opened(game_id)
        return tagged(cur, chronicle().summary(cur))
