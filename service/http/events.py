"""``/games/{id}/events``: the log as the caller may see it, with a long-poll."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened
from service.http.stream import long_poll

blp = blueprint("events", "The events feed")


@blp.route("/games/<game_id:game_id>/events")
class EventsResource(MethodView):
    @blp.doc(operationId="listEvents")
    @blp.arguments(s.EventsQuery, location="query")
    @blp.response(200, s.Events)
    @blp.doc(security=AUTH)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The log as the caller may see it; `wait` long-polls for events after `after`."""
        cur, caller = opened(game_id)
        after, limit, wait = query["after"], query["limit"], query["wait"]
        return chronicle().events(cur, caller, after, limit, wait, long_poll)
