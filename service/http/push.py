"""Web Push subscriptions (contract: v2 additions, Notices to people; ``service.push``).

``GET /push/key`` is open to anyone (a browser needs the key before it subscribes; it is a
public key).  The subscriptions are the signed-in account's own (``/me/push``): a browser's
``PushSubscription.toJSON()`` in, an id out; the listing shows each endpoint's host only, since
an endpoint's path is what lets anyone push to that browser.
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response
from flask.views import MethodView
from marshmallow import INCLUDE, Schema, fields, validate

from service import push
from service.errors import NotFound
from service.http import schemas as s
from service.http.accounts import SIGNED_IN, accounts, signed_in
from service.http.common import blueprint

blp = blueprint("push", "Notices to people: Web Push subscriptions")


class PushKey(Schema):
    public_key = fields.Str(
        required=True,
        metadata={"description": "the VAPID public key: an uncompressed P-256 point, base64url"},
    )


class SubscriptionKeys(Schema):
    class Meta:
        unknown = INCLUDE  # a browser may add keys of its own: kept out of what is stored

    p256dh = fields.Str(required=True, validate=validate.Length(min=1, max=200))
    auth = fields.Str(required=True, validate=validate.Length(min=1, max=200))


class Subscription(Schema):
    class Meta:
        unknown = INCLUDE  # toJSON() may grow fields; only endpoint and keys are read

    endpoint = fields.Str(required=True, validate=validate.Length(min=1, max=push.MAX_ENDPOINT))
    expirationTime = fields.Raw(load_default=None, allow_none=True)  # the DOM spells it so
    keys = fields.Nested(SubscriptionKeys, required=True)


class SubscribeIn(Schema):
    subscription = fields.Nested(
        Subscription,
        required=True,
        metadata={"description": "the browser's PushSubscription.toJSON()"},
    )


class Subscribed(Schema):
    id = fields.Str(required=True)


class SubscriptionDoc(Schema):
    id = fields.Str(required=True)
    host = fields.Str(required=True, metadata={"description": "the push service's host"})
    created_at = fields.Int(required=True, metadata={"description": "ms since the epoch"})


class Subscriptions(Schema):
    subscriptions = fields.List(fields.Nested(SubscriptionDoc), required=True)


@blp.route("/push/key")
class PushKeyResource(MethodView):
    @blp.doc(operationId="pushKey", security=[])
    @blp.response(200, PushKey)
    def get(self) -> dict[str, Any]:
        """The key a browser subscribes with (`applicationServerKey`): made at first start
        and kept with the data."""
        return {"public_key": push.public_key(accounts().r)}


@blp.route("/me/push")
class SubscriptionsResource(MethodView):
    @blp.doc(operationId="subscribePush", security=SIGNED_IN)
    @blp.arguments(SubscribeIn)
    @blp.response(201, Subscribed)
    @blp.alt_response(400, schema=s.ApiError, description="not https, or a private address")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Push notices to this browser too (turn `push` on in your notifications for them
        to be sent); the same endpoint again keeps one subscription."""
        return {"id": push.subscribe(accounts().r, signed_in().player, body["subscription"])}

    @blp.doc(operationId="listPush", security=SIGNED_IN)
    @blp.response(200, Subscriptions)
    def get(self) -> dict[str, Any]:
        """The browsers your notices are pushed to (the push service's host only)."""
        return {"subscriptions": push.listed(accounts().r, signed_in().player)}


@blp.route("/me/push/<subscription_id>")
class SubscriptionResource(MethodView):
    @blp.doc(operationId="unsubscribePush", security=SIGNED_IN)
    @blp.response(204)
    def delete(self, subscription_id: str) -> Response:
        """Push nothing more to that browser."""
        if not push.unsubscribe(accounts().r, signed_in().player, subscription_id):
            raise NotFound(f"no push subscription {subscription_id!r}")
        return make_response("", 204)
