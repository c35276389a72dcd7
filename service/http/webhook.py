"""A seat's webhook (contract: v1 additions; ``service.webhooks``)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service import webhooks
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle, opened

blp = blueprint("webhooks", "Turn notifications")


@blp.route("/games/<game_id:game_id>/webhook")
class WebhookResource(MethodView):
    @blp.doc(operationId="setWebhook", security=AUTH)
    @blp.arguments(s.WebhookIn, example={"url": "https://example.org/chronicle"})
    @blp.response(200, s.WebhookOut)
    @blp.alt_response(400, schema=s.ApiError, description="not http(s), bad port, private target")
    @blp.alt_response(507, schema=s.ApiError, description="storage_full")
    def put(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Register the seat's webhook; the answer holds the signing secret, once.  Every
        change the seat can see is POSTed to it, signed (`Chronicle-Signature`)."""
        _, caller = opened(game_id)
        chronicle().check_storage()
        return webhooks.register(chronicle(), game_id, caller, body["url"])

    @blp.doc(operationId="deleteWebhook", security=AUTH)
    @blp.response(200, s.WebhookOut)
    def delete(self, game_id: str) -> dict[str, Any]:
        """Remove the seat's webhook."""
        _, caller = opened(game_id)
        return webhooks.remove(chronicle(), game_id, caller)
