"""Invitations (``service.invitations``; the request is ours, ``docs/contract.md``):
``POST /games/{id}/invitations {seat, player}`` with the host's token -> 202: the account is
sent a notice with the seat's invitation (if its settings want one)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service import invitations
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened

blp = blueprint("invitations", "Invitations: the host invites an account to an open seat")


class InvitationIn(Schema):
    seat = fields.Int(required=True, strict=True, validate=validate.Range(min=0, max=63))
    player = fields.Str(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "the account's public id (`acct_...` is a token: not this)"},
    )


class InvitationOut(Schema):
    seat = fields.Int(required=True)
    player = fields.Str(required=True)
    version = fields.Int(required=True, metadata={"description": "the version of SeatInvited"})


@blp.route("/games/<game_id:game_id>/invitations")
class InvitationsResource(MethodView):
    @blp.doc(operationId="invite", security=AUTH)
    @blp.arguments(InvitationIn, example={"seat": 1, "player": "<an account's id>"})
    @blp.response(202, InvitationOut)
    @blp.alt_response(
        403, schema=s.ApiError, description="forbidden: not_host, host_not_signed_in, blocked"
    )
    @blp.alt_response(404, schema=s.ApiError, description="no such game or player")
    @blp.alt_response(409, schema=s.ApiError, description="game_not_waiting, seat_taken")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Invite an account to an open seat of a waiting table (the host's token; a host
        signed in at creation).  `SeatInvited` is appended and the account is sent the seat's
        invitation link by its own notice settings; nothing says whether it was sent."""
        _, caller = opened(game_id)
        ch = chronicle()
        queue = invitations.queue_of(ch)
        return invitations.invite(ch, queue, game_id, caller, body["seat"], body["player"])
