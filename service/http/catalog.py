"""``/catalog``: the games offered.

The catalog comes from the games' registry, which does not change while the process lives:
its answer is built once (``compression.Built``) and served from memory with an ``ETag``."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.http import schemas as s
from service.http.common import blueprint, chronicle
from service.http.compression import Built
from service.http.languages import language
from service.http.middleware import current_flask_app, current_request

blp = blueprint("catalog", "The games offered")
BUILT = "chronicle.catalog"  # app.extensions: the catalog's answer, once built
DOCUMENT_ETAG = {
    "ETag": {
        "description": "the catalog's version: send it back as `If-None-Match` to get a 304 "
        "while it has not changed",
        "schema": {"type": "string"},
    }
}


@blp.route("/catalog")
class CatalogResource(MethodView):
    @blp.doc(operationId="listCatalog")
    @blp.response(200, s.Catalog, headers=DOCUMENT_ETAG)
    def get(self) -> Any:
        """Games offered: players, options (first value is the default), bots, action shapes."""
        app = current_flask_app()
        lang = language()  # the words in the caller's language (one answer built per language)
        built: Built | None = app.extensions.get(f"{BUILT}:{lang}")
        if built is None:  # what flask-smorest would answer: the schema's dump, as JSON
            answer: Any = app.json.response(s.Catalog().dump(chronicle().catalog(lang)))
            built = Built.of(answer.get_data(), "application/json")
            app.extensions[f"{BUILT}:{lang}"] = built
        return built.answer(current_request().environ)
