"""``/games/{id}/actions``: the caller's legal actions, and acting."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import (
    AUTH,
    ETAG_HEADER,
    IDEMPOTENCY_PARAMETER,
    IF_MATCH_PARAMETER,
    blueprint,
    chronicle,
    idempotency_key,
    if_match,
    opened,
    tagged,
)

blp = blueprint("actions", "Legal actions and acting")


@blp.route("/games/<game_id:game_id>/actions")
class ActionsResource(MethodView):
    @blp.doc(operationId="listActions")
    @blp.response(200, s.Actions, headers=ETAG_HEADER)
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """The caller's legal actions now (empty unless the caller is a seat to act)."""
        cur, caller = opened(game_id)
        return tagged(cur, chronicle().actions(cur, caller))

    @blp.doc(operationId="act")
    @blp.arguments(s.ActIn)
    @blp.response(201, s.Events)
    @blp.alt_response(409, schema=s.ApiError, description="version_conflict")
    @blp.alt_response(412, schema=s.ApiError, description="precondition_failed (If-Match)")
    @blp.alt_response(507, schema=s.ApiError, description="storage_full")
    @blp.alt_response(
        422,
        schema=s.ApiError,
        description="illegal_action (names the rule); idempotency_key_reused",
    )
    @blp.doc(
        security=AUTH,
        parameters=[
            IDEMPOTENCY_PARAMETER,
            IF_MATCH_PARAMETER,
        ],
    )
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Act: the action is checked by the rules and appended if `expected_version` is current."""
        key = idempotency_key()
        cur, caller = opened(game_id)
        return chronicle().act(
            game_id, caller, body["action"], body["expected_version"], key, cur, if_match=if_match()
        )
