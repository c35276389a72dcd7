"""Plain-data descriptions of the JSON a game shows: its view state and its events' data.

Each game declares, next to its ``view`` module (``domain/games/<game>/shapes.py``), the shape
of what ``view``/``full_view`` return and of every event's data as ``redact`` shows it (fields
a redaction drops are ``optional``, values it hides are ``nullable``).  The declarations are
plain dicts built by the functions below (no schema library: the domain stays pure); the
service turns them into OpenAPI components (``service/http/game_schemas.py``), and a test
validates every view and event of random play against the published document, so a
description cannot drift from what the rules produce.

A shape is a dict with a ``kind``:

- ``int``, ``str`` (``choices``: the allowed values, or None), ``bool``;
- ``list`` (``items``), ``map`` (an object of any string keys, ``values``: the values' shape;
  ``keys`` says what the keys are);
- ``record`` (``fields``: name -> shape; every field is required unless wrapped in
  ``optional``; no other field is allowed);
- ``nullable`` (``of``: the shape, or JSON null), ``any_of`` (``of``: alternatives), ``any``.

Every shape may carry ``doc`` (for people reading the API document).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Shape = dict[str, Any]


def _doc(shape: Shape, doc: str) -> Shape:
    if doc:
        shape["doc"] = doc
    return shape


def integer(doc: str = "", minimum: int | None = None) -> Shape:
    shape: Shape = {"kind": "int"}
    if minimum is not None:
        shape["minimum"] = minimum
    return _doc(shape, doc)


def string(doc: str = "", choices: Iterable[str] | None = None) -> Shape:
    shape: Shape = {"kind": "str"}
    if choices is not None:
        shape["choices"] = list(choices)
    return _doc(shape, doc)


def boolean(doc: str = "") -> Shape:
    return _doc({"kind": "bool"}, doc)


def list_of(items: Shape, doc: str = "") -> Shape:
    return _doc({"kind": "list", "items": items}, doc)


def map_of(values: Shape, keys: str = "", doc: str = "") -> Shape:
    """An object whose keys are data (colours, seats as strings, territory names)."""
    return _doc({"kind": "map", "values": values, "keys": keys}, doc)


def record(fields: Mapping[str, Shape], doc: str = "") -> Shape:
    """An object with exactly these fields (those wrapped in ``optional`` may be absent)."""
    return _doc({"kind": "record", "fields": dict(fields)}, doc)


def optional(shape: Shape) -> Shape:
    """A record field that may be absent (e.g. dropped by the redaction)."""
    return {**shape, "optional": True}


def nullable(shape: Shape, doc: str = "") -> Shape:
    return _doc({"kind": "nullable", "of": shape}, doc)


def anything(doc: str = "") -> Shape:
    """Any JSON value (a game's own scoring details)."""
    return _doc({"kind": "any"}, doc)


def any_of(*shapes: Shape, doc: str = "") -> Shape:
    return _doc({"kind": "any_of", "of": list(shapes)}, doc)


INT = integer()
STR = string()
BOOL = boolean()
STRS = list_of(STR)
INTS = list_of(INT)
SEAT_MAP = "seat numbers as strings"
