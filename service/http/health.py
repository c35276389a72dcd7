"""``/healthz`` and ``/readyz``: liveness (answers without Redis) and readiness (Redis)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.http.common import blueprint, chronicle

blp = blueprint("health", "Liveness and readiness (not rate-limited)", prefix="")


class Health(Schema):
    status = fields.Str(required=True, validate=validate.OneOf(["ok", "ready"]))


@blp.route("/healthz")
class Liveness(MethodView):
    @blp.doc(operationId="healthz")
    @blp.response(200, Health)
    def get(self) -> dict[str, Any]:
        """Liveness: the process answers (Redis is not asked)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Readiness(MethodView):
    @blp.doc(operationId="readyz")
    @blp.response(200, Health)
    def get(self) -> dict[str, Any]:
        """Readiness: the event store answers (503 `unavailable` if not)."""
        chronicle().store.ping()  # a RedisError becomes 503 unavailable
        return {"status": "ready"}
