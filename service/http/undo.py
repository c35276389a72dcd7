"""``/games/{id}/undo``: truncating the log."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import AUTH, IF_MATCH_PARAMETER, blueprint, chronicle, if_match, opened

blp = blueprint("undo", "Undo")


@blp.route("/games/<game_id:game_id>/undo")
class UndoResource(MethodView):
    @blp.doc(operationId="undo")
    @blp.arguments(s.UndoIn)
    @blp.response(200, s.Undone)
    @blp.alt_response(409, schema=s.ApiError, description="undo_refused (with the reason)")
    @blp.alt_response(412, schema=s.ApiError, description="precondition_failed (If-Match)")
    @blp.doc(security=AUTH, parameters=[IF_MATCH_PARAMETER])
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Undo by truncating the log (policy: the game's `undo` option)."""
        _, caller = opened(game_id)
        return chronicle().undo(game_id, caller, body.get("to_version"), if_match())
