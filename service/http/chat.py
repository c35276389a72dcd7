"""Table chat (contract: v1 additions; ``service.chat``)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from domain.errors import Forbidden
from projections.views import HOST, SEAT, Caller, revealed
from service import chat
from service.errors import NotFound
from service.http import schemas as s
from service.http.accounts import blocked_here, player_here
from service.http.common import AUTH, blueprint, chronicle, opened
from service.loading import Current

blp = blueprint("chat", "Table chat")


def _speaker(cur: Current, caller: Caller) -> str | None:
    """The account saying a line: the signed-in one, or the one holding the seat whose
    token says it."""
    player = player_here()
    if player is None and caller.role == SEAT and caller.seat is not None and cur.meta.players:
        player = cur.meta.players[caller.seat]
    return player


@blp.route("/games/<game_id:game_id>/chat")
class ChatResource(MethodView):
    @blp.doc(operationId="say", security=AUTH)
    @blp.arguments(s.ChatIn, example={"text": "good luck!"})
    @blp.response(201, s.ChatPosted)
    @blp.alt_response(429, schema=s.ApiError, description="rate_limited")
    @blp.alt_response(507, schema=s.ApiError, description="storage_full")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """A line in the players' room (seats; their default) or the spectators' room
        (anyone; a spectator gives a `name`).  Never changes the game's version."""
        ch = chronicle()
        cur, caller = opened(game_id)
        ch.check_storage()  # a line is kept for good, like an event (hiding one is not refused)
        names = [d.get("name") for d in cur.match.table.seats()] if cur.match.table else []
        line = chat.post(
            chat.redis_of(ch.store), game_id, caller, names, body["text"], body.get("room"),
            body.get("name"), f"addr:{request.remote_addr}", ch.clock(), _speaker(cur, caller),
        )  # fmt: skip
        ch.hooks.said(cur, line)
        return {"id": line["id"], "at": line["at"]}

    @blp.doc(operationId="readChat", security=AUTH)
    @blp.arguments(s.ChatQuery, location="query")
    @blp.response(200, s.ChatLines)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Lines after `after` in the rooms the caller may read (the players' room: seats
        only until the game is over)."""
        cur, caller = opened(game_id)
        rooms = chat.readable_rooms(caller, revealed(cur.match.status(cur.game)))
        room = query.get("room")
        if room is not None:
            if room not in rooms:
                raise Forbidden("not_a_player", "the players' room is for the seats until the end")
            rooms = (room,)
        r = chat.redis_of(chronicle().store)
        return {"lines": chat.lines(r, game_id, rooms, query["after"], blocked=blocked_here())}


@blp.route("/games/<game_id:game_id>/chat/<int:line_id>/hide")
class HideResource(MethodView):
    @blp.doc(operationId="hideLine", security=AUTH)
    @blp.response(200, s.Hidden)
    def post(self, game_id: str, line_id: int) -> dict[str, Any]:
        """The host hides a line: kept (and exported), shown without its text."""
        ch = chronicle()
        _, caller = opened(game_id)
        if caller.role != HOST:
            raise Forbidden("not_host", "only the host may hide a line")
        if line_id > chat.MAX_LINE or not chat.hide(
            chat.redis_of(ch.store), game_id, line_id, ch.clock()
        ):
            raise NotFound(f"no chat line {line_id}")
        return {"id": line_id, "hidden": True}
