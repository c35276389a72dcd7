"""A seat's vacation (contract: Time controls): ``POST`` starts it for ``days``, ``DELETE``
ends it early (``service.vacations``).  The seat's token, or the account holding the seat."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service import vacations
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened

blp = blueprint("vacation", "Vacations: a seat stops its clock")


class VacationIn(Schema):
    days = fields.Int(required=True, strict=True, validate=validate.Range(min=1, max=365))


class VacationOut(Schema):
    version = fields.Int(required=True)
    seat = fields.Int(required=True)
    until = fields.Str(metadata={"description": "ISO 8601 UTC: the clock runs again then"})


@blp.route("/games/<game_id:game_id>/vacation")
class VacationResource(MethodView):
    @blp.doc(operationId="startVacation", security=AUTH)
    @blp.arguments(VacationIn, example={"days": 3})
    @blp.response(200, VacationOut)
    @blp.alt_response(403, schema=s.ApiError, description="vacations_off, not_a_player")
    @blp.alt_response(409, schema=s.ApiError, description="on_vacation")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Go on vacation: the seat's clock stops for `days` (from the seat's allowance)."""
        _, caller = opened(game_id)
        return vacations.start(chronicle(), game_id, caller, body["days"])

    @blp.doc(operationId="endVacation", security=AUTH)
    @blp.response(200, VacationOut)
    @blp.alt_response(409, schema=s.ApiError, description="not_on_vacation")
    def delete(self, game_id: str) -> dict[str, Any]:
        """Back early: the clock runs again now; the unused time is given back."""
        _, caller = opened(game_id)
        return vacations.end(chronicle(), game_id, caller)
