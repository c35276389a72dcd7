"""Tables (contract: v1 additions): join, leave, start, resign, abandon.

Each takes ``If-Match`` (412 for a head that moved); start, resign and abandon also take an
``Idempotency-Key`` (``service/lobby.py`` says why join and leave do not)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from domain.errors import Forbidden
from projections.views import SEAT
from service import auth, lobby
from service.errors import Unauthorized
from service.http import account_schemas as a
from service.http import schemas as s
from service.http.common import (
    AUTH,
    IDEMPOTENCY_PARAMETER,
    IF_MATCH_PARAMETER,
    blueprint,
    chronicle,
    idempotency_key,
    if_match,
    opened,
)
from service.http.middleware import current_request
from service.http.sessions import session_of

blp = blueprint("tables", "Tables: seats and their players")
PRECONDITION = [IF_MATCH_PARAMETER]
RETRIED = [IDEMPOTENCY_PARAMETER, IF_MATCH_PARAMETER]


def _writes(fn: Any) -> Any:
    """The refusals every table command shares: a moved head, a full store."""
    fn = blp.alt_response(412, schema=s.ApiError, description="precondition_failed (If-Match)")(fn)
    return blp.alt_response(507, schema=s.ApiError, description="storage_full")(fn)


def _idempotent(fn: Any) -> Any:
    return blp.alt_response(
        422, schema=s.ApiError, description="idempotency_key_reused (the answer was undone)"
    )(fn)


@blp.route("/games/<game_id:game_id>/join")
class JoinResource(MethodView):
    @blp.doc(operationId="join", parameters=PRECONDITION)
    @blp.arguments(s.JoinIn, example={"name": "Ann", "invitation": "<code>"})
    @blp.response(201, s.Joined)
    @blp.alt_response(403, schema=s.ApiError, description="no or a wrong invitation")
    @blp.alt_response(409, schema=s.ApiError, description="seat_taken, game_not_waiting")
    @_writes
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take an open seat (with its invitation, or the lowest one of a public table); the
        seat's token is in the answer, once."""
        session = session_of(current_request().environ)
        player = session.player if session is not None else None
        return lobby.join(
            chronicle(), game_id, body["name"], body.get("invitation"), if_match(), player
        )


@blp.route("/games/<game_id:game_id>/claim")
class ClaimResource(MethodView):
    @blp.doc(operationId="claim", security=[{"bearer": []}], parameters=PRECONDITION)
    @blp.arguments(a.ClaimIn, example={"seat_token": "<the seat's token>"})
    @blp.response(200, a.Claimed)
    @blp.alt_response(401, schema=s.ApiError, description="not signed in, or a wrong seat token")
    @blp.alt_response(409, schema=s.ApiError, description="seat_claimed (by another account)")
    @_writes
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Keep a guest seat in your account: send the seat's token in the body and your
        account's credentials as usual.  The seat token keeps working."""
        session = session_of(current_request().environ)
        if session is None:
            raise Unauthorized("sign in first: a seat is claimed with an account's credentials")
        ch = chronicle()
        cur = ch.current(game_id)
        caller = auth.resolve(cur.meta, body["seat_token"], None)
        if caller.role != SEAT or caller.seat is None:
            raise Forbidden("not_a_player", "seat_token must be a seat's token")
        return lobby.claim(ch, game_id, caller.seat, session.player, if_match=if_match())


@blp.route("/games/<game_id:game_id>/leave")
class LeaveResource(MethodView):
    @blp.doc(operationId="leave", security=AUTH, parameters=PRECONDITION)
    @blp.response(200, s.TableChange)
    @blp.alt_response(409, schema=s.ApiError, description="game_not_waiting")
    @_writes
    def post(self, game_id: str) -> dict[str, Any]:
        """Give a seat back while the table waits (its token stops working, its invitation
        works again)."""
        _, caller = opened(game_id)
        return lobby.leave(chronicle(), game_id, caller, if_match())


@blp.route("/games/<game_id:game_id>/start")
class StartResource(MethodView):
    @blp.doc(operationId="start", security=AUTH, parameters=RETRIED)
    @blp.arguments(s.StartIn, example={"fill": "greedy"})
    @blp.response(200, s.TableChange)
    @blp.alt_response(409, schema=s.ApiError, description="game_not_waiting")
    @_writes
    @_idempotent
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The host starts the table now: every open seat is given to the `fill` bot."""
        key = idempotency_key()
        _, caller = opened(game_id)
        return lobby.start(chronicle(), game_id, caller, body.get("fill"), if_match(), key)


@blp.route("/games/<game_id:game_id>/resign")
class ResignResource(MethodView):
    @blp.doc(operationId="resign", security=AUTH, parameters=RETRIED)
    @blp.response(200, s.TableChange)
    @_writes
    @_idempotent
    def post(self, game_id: str) -> dict[str, Any]:
        """Resign: the table's resign bot plays the seat from now on; the result names it."""
        key = idempotency_key()
        _, caller = opened(game_id)
        return lobby.resign(chronicle(), game_id, caller, if_match(), key)


@blp.route("/games/<game_id:game_id>/abandon")
class AbandonResource(MethodView):
    @blp.doc(operationId="abandon", security=AUTH, parameters=RETRIED)
    @blp.response(200, s.TableChange)
    @_writes
    @_idempotent
    def post(self, game_id: str) -> dict[str, Any]:
        """The host ends the game without a result (status `abandoned`; all is revealed)."""
        key = idempotency_key()
        _, caller = opened(game_id)
        return lobby.abandon(chronicle(), game_id, caller, if_match(), key)
