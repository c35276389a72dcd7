"""``/games/{id}/actions``: the caller's legal actions, and acting."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Response
from flask.views import MethodView

from service.chronicle import Chronicle
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
from service.http.middleware import current_flask_app, current_request

blp = blueprint("actions", "Legal actions and acting")


def plain(body: Any) -> dict[str, Any] | None:
    """A body ``ActIn`` accepts as it is (the common case), else None.

    The move's hot path: a per-request schema load costs about as much as the Redis round
    trip of the move.  What is checked is exactly what ``ActIn`` checks (the two fields,
    no others, an object, an integer in range, not a bool); any other body goes through the
    schema, which answers it as before."""
    if body.__class__ is not dict or len(body) != 2:
        return None
    action, version = body.get("action"), body.get("expected_version")
    if action.__class__ is not dict or version.__class__ is not int:
        return None
    return body if 0 <= version <= s.MAX_VERSION else None


def act(
    ch: Chronicle,
    environ: Mapping[str, Any],
    body: dict[str, Any],
    game_id: str,
) -> dict[str, Any]:
    """The move of a ``plain`` body, by the request's headers."""
    key, match = idempotency_key(environ), if_match(environ)
    authorization = environ.get("HTTP_AUTHORIZATION")
    return ch.act_as(
        game_id, authorization, body["action"], body["expected_version"], key, if_match=match
    )


def _act(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    return act(chronicle(), current_request().environ, body, game_id)


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
def _checked_post(view: MethodView, body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Act: the action is checked by the rules and appended if `expected_version` is current."""
    return _act(body, game_id)


@blp.route("/games/<game_id:game_id>/actions")
class ActionsResource(MethodView):
    @blp.doc(operationId="listActions")
    @blp.response(200, s.Actions, headers=ETAG_HEADER)
    @blp.doc(security=AUTH)
    def get(self, game_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """The caller's legal actions now (empty unless the caller is a seat to act)."""
        cur, caller = opened(game_id)
        return tagged(cur, chronicle().actions(cur, caller))

    def post(self, game_id: str) -> Response:
        """Act: the action is checked by the rules and appended if `expected_version` is current."""
        req = current_request()
        body = plain(req.get_json(silent=True) if req.is_json else None)
        if body is None:  # anything else: the schema's parsing, and its errors
            return _checked_post(self, game_id=game_id)
        response = current_flask_app().json.response(_act(body, game_id))
        response.status_code = 201
        return response  # type: ignore[return-value]

    # the contract's documentation of POST (its schemas, its responses): _checked_post's
    post._apidoc = _checked_post._apidoc  # type: ignore[attr-defined]
