"""Every string the API takes is valid Unicode without NUL, or the request is refused with 400.

JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); Python decodes it to a ``str`` that
cannot be encoded as UTF-8, so it would fail later, deep in a handler or in Redis (a 500), or be
stored and break every reader.  NUL is refused too (C libraries, logs and terminals truncate at
it).  The check is one place for every resource: a ``before_request`` hook that walks the JSON
body (parsed once and cached for the handler; nesting is already bounded by
``limits.MAX_JSON_DEPTH``), the query string, the path and the headers the service reads.

The walk is needed only when the body could hold one: a NUL reaches a JSON string only as
``\\u0000`` (a raw one is a control character, which the parser refuses), and a surrogate as
``\\u....`` or as its raw UTF-8 form (``json.loads`` decodes bytes with ``surrogatepass``),
which starts with byte 0xED.  A body with neither ``\\u`` nor 0xED is not walked at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import Flask

from domain.errors import BadAction
from service.http.middleware import current_request

_SURROGATE = re.compile("[\ud800-\udfff]")
READ_HEADERS = (  # (name, its WSGI key)
    ("Authorization", "HTTP_AUTHORIZATION"),
    ("Idempotency-Key", "HTTP_IDEMPOTENCY_KEY"),
    ("If-Match", "HTTP_IF_MATCH"),
)


def problem(value: str) -> str | None:
    """Why ``value`` is not acceptable text, or None.  Nothing is copied: an ASCII string
    (known without reading it) holds no surrogate, and another is searched, not encoded."""
    if "\x00" in value:
        return "contains a NUL character"
    if not value.isascii() and _SURROGATE.search(value):
        return "is not valid Unicode (a lone surrogate)"
    return None


def first_bad(value: Any, where: str) -> tuple[str, str] | None:
    """The first (field, reason) of a parsed JSON value that holds bad text, else None."""
    if isinstance(value, str):
        why = problem(value)
        return (where or "body", why) if why else None
    if isinstance(value, dict):
        for k, v in value.items():
            name = f"{where}.{k}" if where else str(k)
            why = problem(k) if isinstance(k, str) else None
            if why:
                return (where or "body", f"a key {why}")
            found = first_bad(v, name)
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = first_bad(v, f"{where}.{i}" if where else str(i))
            if found:
                return found
    return None


def header_problem(environ: Mapping[str, Any]) -> tuple[str, str] | None:
    """The last (header, reason) of the headers the service reads that holds bad text."""
    found: tuple[str, str] | None = None
    for name, key in READ_HEADERS:
        header = environ.get(key)
        if header is not None and (why := problem(header)):
            found = (name, why)
    return found


def may_hold_bad_text(raw: bytes) -> bool:
    """Whether a JSON text could hold a NUL or a lone surrogate (see above): else its parsed
    value need not be walked."""
    return b"\\u" in raw or b"\xed" in raw


def refuse(found: tuple[str, str] | None) -> None:
    if found is not None:
        field, why = found
        raise BadAction(f"invalid text in {field}: it {why}", {field: [f"text that {why}"]})


def _refuse_bad_text() -> None:
    req = current_request()
    environ = req.environ
    found = header_problem(environ)
    if environ.get("QUERY_STRING"):
        for name, value in req.args.items(multi=True):
            why = problem(name) or problem(value)
            if why:
                found = found or (name, why)
    why = problem(req.path)
    if why:
        found = found or ("path", why)
    body = req.get_data(cache=True) if found is None and req.content_length and req.is_json else b""
    if may_hold_bad_text(body):
        found = first_bad(req.get_json(silent=True, cache=True), "")
    refuse(found)


def install(app: Flask) -> None:
    """Refuse bad text before any handler runs (after the JSON depth check)."""
    app.before_request(_refuse_bad_text)
