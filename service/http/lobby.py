"""Tables (contract: v1 additions): join, leave, start, resign, abandon."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service import lobby
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened

blp = blueprint("tables", "Tables: seats and their players")


@blp.route("/games/<game_id:game_id>/join")
class JoinResource(MethodView):
    @blp.doc(operationId="join")
    @blp.arguments(s.JoinIn, example={"name": "Ann", "invitation": "<code>"})
    @blp.response(201, s.Joined)
    @blp.alt_response(403, schema=s.ApiError, description="no or a wrong invitation")
    @blp.alt_response(409, schema=s.ApiError, description="seat_taken, game_not_waiting")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take an open seat (with its invitation, or the lowest one of a public table); the
        seat's token is in the answer, once."""
        return lobby.join(chronicle(), game_id, body["name"], body.get("invitation"))


@blp.route("/games/<game_id:game_id>/leave")
class LeaveResource(MethodView):
    @blp.doc(operationId="leave", security=AUTH)
    @blp.response(200, s.TableChange)
    @blp.alt_response(409, schema=s.ApiError, description="game_not_waiting")
    def post(self, game_id: str) -> dict[str, Any]:
        """Give a seat back while the table waits (its token stops working, its invitation
        works again)."""
        _, caller = opened(game_id)
        return lobby.leave(chronicle(), game_id, caller)


@blp.route("/games/<game_id:game_id>/start")
class StartResource(MethodView):
    @blp.doc(operationId="start", security=AUTH)
    @blp.arguments(s.StartIn, example={"fill": "greedy"})
    @blp.response(200, s.TableChange)
    @blp.alt_response(409, schema=s.ApiError, description="game_not_waiting")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The host starts the table now: every open seat is given to the `fill` bot."""
        _, caller = opened(game_id)
        return lobby.start(chronicle(), game_id, caller, body.get("fill"))


@blp.route("/games/<game_id:game_id>/resign")
class ResignResource(MethodView):
    @blp.doc(operationId="resign", security=AUTH)
    @blp.response(200, s.TableChange)
    def post(self, game_id: str) -> dict[str, Any]:
        """Resign: the table's resign bot plays the seat from now on; the result names it."""
        _, caller = opened(game_id)
        return lobby.resign(chronicle(), game_id, caller)


@blp.route("/games/<game_id:game_id>/abandon")
class AbandonResource(MethodView):
    @blp.doc(operationId="abandon", security=AUTH)
    @blp.response(200, s.TableChange)
    def post(self, game_id: str) -> dict[str, Any]:
        """The host ends the game without a result (status `abandoned`; all is revealed)."""
        _, caller = opened(game_id)
        return lobby.abandon(chronicle(), game_id, caller)
