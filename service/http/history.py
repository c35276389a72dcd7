"""``/games/{id}/audit`` and ``/games/{id}/export``: the documents of a game's history."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened

blp = blueprint("history", "Audit and export")


@blp.route("/games/<game_id:game_id>/audit")
class AuditResource(MethodView):
    @blp.doc(operationId="getAudit")
    @blp.response(200, s.Audit)
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """Who did what and when, the hash chain check and every undo (redacted before the end)."""
        _, caller = opened(game_id)
        return chronicle().audit(game_id, caller)


@blp.route("/games/<game_id:game_id>/export")
class ExportResource(MethodView):
    @blp.doc(operationId="exportGame")
    @blp.response(200, s.Export)
    @blp.alt_response(403, schema=s.ApiError, description="not finished")
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> dict[str, Any]:
        """The whole log with the revealed seed (finished games, or the operator)."""
        _, caller = opened(game_id)
        return chronicle().export(game_id, caller)
