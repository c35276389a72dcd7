"""``/games/{id}/view``: the caller's view, now or replayed at a version."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import AUTH, ETAG_HEADER, blueprint, chronicle, opened, tagged

blp = blueprint("views", "What a caller sees of a game")


@blp.route("/games/<game_id:game_id>/view")
class ViewResource(MethodView):
    @blp.doc(operationId="getView")
    @blp.arguments(s.ViewQuery, location="query")
    @blp.response(200, s.View, headers=ETAG_HEADER)
    @blp.doc(security=AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """The caller's view; `version` replays it as it was then (the ETag is the head's)."""
        cur, caller = opened(game_id)
        return tagged(cur, chronicle().view(cur, caller, query.get("version"), query["reveal"]))
