"""``/catalog``: the games offered."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import blueprint, chronicle

blp = blueprint("catalog", "The games offered")


@blp.route("/catalog")
class CatalogResource(MethodView):
    @blp.doc(operationId="listCatalog")
    @blp.response(200, s.Catalog)
    def get(self) -> dict[str, Any]:
        """Games offered: players, options (first value is the default), bots, action shapes."""
        return chronicle().catalog()
