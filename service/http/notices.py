"""One-click unsubscribe (contract: v2 additions, Notices to people; RFC 8058).

``POST /api/v1/unsubscribe?t=<token>`` turns off the kind of notice the token names (``all``:
email altogether) without signing in: the token is the credential (``service.unsubscribe``).
``GET`` of the same URL changes nothing (mail scanners follow links) and says to POST.

A mail program's one-click POST sends a form body (``List-Unsubscribe=One-Click``, RFC 8058)
and may carry the browser's cookie: this path is the one where the API takes a form body
(``middleware.FORM_PATHS``: the body says nothing the URL does not) and ignores the cookie
(``sessions.OPEN``): the token in the URL is the only credential it reads.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service import unsubscribe
from service.http import schemas as s
from service.http.common import blueprint, chronicle

blp = blueprint("notices", "Notices to people: one-click unsubscribe")


class TokenQuery(Schema):
    t = fields.Str(
        required=True,
        validate=validate.Length(min=1, max=256),
        metadata={"description": "the token of the message's List-Unsubscribe link"},
    )


class Unsubscribed(Schema):
    kind = fields.Str(required=True, metadata={"description": "what was turned off"})
    email = fields.Bool(required=True, metadata={"description": "email notices still on"})


class HowTo(Schema):
    kind = fields.Str(required=True)
    method = fields.Str(required=True, metadata={"description": "POST"})
    message = fields.Str(required=True)


@blp.route("/unsubscribe")
class UnsubscribeResource(MethodView):
    @blp.doc(operationId="unsubscribe", security=[])
    @blp.arguments(TokenQuery, location="query")
    @blp.response(200, Unsubscribed)
    @blp.alt_response(400, schema=s.ApiError, description="the token does not verify")
    def post(self, query: dict[str, Any]) -> dict[str, Any]:
        """Turn off the kind of notice a mail's `List-Unsubscribe` link names (RFC 8058's
        one-click POST); no sign-in: the link's token is the credential."""
        return unsubscribe.unsubscribe(chronicle().accounts_of(), query["t"])

    @blp.doc(operationId="unsubscribeInfo", security=[])
    @blp.arguments(TokenQuery, location="query")
    @blp.response(200, HowTo)
    @blp.alt_response(400, schema=s.ApiError, description="the token does not verify")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Say what a POST to this link would turn off; changes nothing (mail scanners and
        previews follow links)."""
        _, kind = unsubscribe.verified(chronicle().accounts_of().r, query["t"])
        what = "all email notices" if kind == unsubscribe.ALL else f"'{kind}' email notices"
        return {
            "kind": kind,
            "method": "POST",
            "message": f"POST to this same URL to turn {what} off.",
        }
