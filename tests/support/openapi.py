"""The published OpenAPI document as JSON Schema validators (for jsonschema).

OpenAPI 3.0 schemas are JSON Schema but for ``nullable`` (turned into a ``null`` alternative
here) and a few annotations that validators ignore (``discriminator``, ``x-*``).  References
point into the document itself, so every validator is made over the whole document.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from service.app import create_app
from tests.conftest import settings


def published() -> dict[str, Any]:
    """``/api/v1/openapi.json`` as the service publishes it (served by the app in process;
    the app connects to no Redis for it: rate limits are off for explicit settings)."""
    app = create_app(settings("redis://127.0.0.1:9/0"))
    response = app.test_client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    doc: dict[str, Any] = response.get_json()
    return doc


def as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema (tree) as JSON Schema 2020-12."""
    if isinstance(node, list):
        return [as_json_schema(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: as_json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        if isinstance(out.get("type"), str) and "enum" not in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


class Validators:
    """One validator per component name, over the whole (converted) document."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.root = {"components": {"schemas": as_json_schema(doc["components"]["schemas"])}}
        self._cache: dict[str, jsonschema.Draft202012Validator] = {}

    def __call__(self, component: str) -> jsonschema.Draft202012Validator:
        if component not in self._cache:
            schema = {**self.root, "$ref": f"#/components/schemas/{component}"}
            self._cache[component] = jsonschema.Draft202012Validator(schema)
        return self._cache[component]

    def check(self, component: str, value: Any) -> None:
        """Raise ``jsonschema.ValidationError`` (with the path) if ``value`` does not match."""
        error = jsonschema.exceptions.best_match(self(component).iter_errors(value))
        if error is not None:
            raise AssertionError(
                f"{component} at {'/'.join(map(str, error.absolute_path))}: {error.message}"
            )
