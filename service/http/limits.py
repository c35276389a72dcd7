"""Request limits: JSON nesting depth, and rate limits per token and per address.

**JSON depth.**  A JSON body may nest at most ``MAX_JSON_DEPTH`` arrays/objects deep (the
deepest legitimate body, an exported log, nests seven).  Deeper bodies are refused
with 400 ``bad_request`` before any parser recurses into them.  (The body size limits are
Flask's ``MAX_CONTENT_LENGTH``, set in ``service/app.py``: 413 ``payload_too_large``.)

**Rate limits** (fixed windows, counters in the service's Redis: ``service/http/ratelimit.py``):

- **Per token**: every request that sends ``Authorization: Bearer <token>`` counts against that
  token.  The counter's key is a SHA-256 of the token (domain-separated from the stored token
  hashes), never the token itself.  A made-up token is a token too: rotating random tokens does
  not escape the per-address limit.
- **Per address**: every request counts against the client's address (``REMOTE_ADDR``; behind a
  reverse proxy listed in ``CHRONICLE_TRUSTED_PROXIES``, the client it names in
  ``X-Forwarded-For``: see ``service/http/middleware.py``).

A request over a limit is answered ``429`` in the contract's error shape, code ``rate_limited``
(``details``: the limit and the seconds to wait), with a ``Retry-After`` header.  All of a
request's counters cost one Redis round trip (one script call; no ``X-RateLimit-*`` headers).
Liveness, readiness and the API's own documentation are not limited (they must answer while
everything else is busy).  Workers do not go through HTTP and are never limited.

The counters live in the same Redis as the events, through the same client (so ``redis://``,
``rediss://``, ``unix://`` and cluster URLs all work, with the same timeouts).  If
Redis is unreachable the limit cannot be checked and the request is answered ``503
unavailable``, as it would be by the handler.

Configuration, read when the app is built (``flask-limiter`` syntax, e.g. ``600/minute`` or
``20/second;600/minute``; ``off`` disables that limit):

- ``CHRONICLE_RATE_LIMIT``: per token, default ``DEFAULT_TOKEN_LIMIT``;
- ``CHRONICLE_RATE_LIMIT_ADDRESS``: per address, default ``DEFAULT_ADDRESS_LIMIT``.

The defaults apply to an app that configures itself from the environment (``create_app()``:
gunicorn, ``chronicle serve``, the Docker image).  An app built from an explicit ``Settings``
object (embedding, the test suite's in-process server, which drives whole games from one
address far faster than any person) is limited only by the variables that are set.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask, request
from limits import parse_many

from domain.errors import BadAction
from service import auth
from service.http.middleware import client_address
from service.http.ratelimit import Counters, Limit

# Generous: a person, a browser tab long-polling and a script driving a game all stay under.
DEFAULT_TOKEN_LIMIT = "20/second;600/minute"
DEFAULT_ADDRESS_LIMIT = "50/second;3000/minute"
OFF = frozenset({"off", "none", "0", "false", "no"})
UNLIMITED_PATHS = ("/healthz", "/readyz", "/metrics", "/api/v1/openapi.json", "/api/v1/docs")
KEY_PREFIX = "chronicle-rl"


def configured(
    env: Mapping[str, str] = os.environ, defaults: bool = True
) -> tuple[str | None, str | None]:
    """The (per token, per address) limits, None where disabled; invalid values raise."""
    out: list[str | None] = []
    for name, default in (
        ("CHRONICLE_RATE_LIMIT", DEFAULT_TOKEN_LIMIT),
        ("CHRONICLE_RATE_LIMIT_ADDRESS", DEFAULT_ADDRESS_LIMIT),
    ):
        value = (env.get(name) or (default if defaults else "off")).strip()
        if value.lower() in OFF:
            out.append(None)
            continue
        try:
            parse_many(value)
        except ValueError as exc:
            raise RuntimeError(f"{name}={value!r} is not a rate limit: {exc}") from None
        out.append(value)
    return out[0], out[1]


def token_key() -> str:
    token = _bearer()
    digest = hashlib.sha256(b"chronicle-rate-limit:" + (token or "").encode()).hexdigest()
    return f"token:{digest[:40]}"


def address_key() -> str:
    return f"addr:{client_address()}"


def _bearer() -> str | None:
    return auth.presented(request.headers.get("Authorization"))


def _unlimited() -> bool:
    return request.path.startswith(UNLIMITED_PATHS) or request.method == "OPTIONS"


MAX_JSON_DEPTH = 32
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (strings skipped), without
    parsing it: a linear scan that cannot recurse."""
    brackets = _BRACKETS.findall(_STRING.sub(b"", body))
    steps = (1 if b in (b"[", b"{") else -1 for b in brackets)
    return max(itertools.accumulate(steps, initial=0))


def _refuse_deep_json() -> None:
    if request.is_json and request.content_length:
        depth = json_depth(request.get_data(cache=True))
        if depth > MAX_JSON_DEPTH:
            raise BadAction(
                f"the JSON body is nested too deeply ({depth} levels; at most {MAX_JSON_DEPTH})",
                {"body": [f"nested deeper than {MAX_JSON_DEPTH} levels"]},
            )


def install(
    app: Flask, client: Any, env: Mapping[str, str] = os.environ, defaults: bool = True
) -> Counters | None:
    """Refuse too deep JSON bodies; limit ``app``'s requests per token and per address
    (returns the counters, or None if both rate limits are off)."""
    app.before_request(_refuse_deep_json)
    per_token, per_address = configured(env, defaults)
    if not (per_token or per_address):
        return None
    counters = Counters(client, KEY_PREFIX)
    address = Limit.parse(per_address) if per_address else None
    token = Limit.parse(per_token) if per_token else None

    def limit() -> None:
        if _unlimited():
            return
        scoped = [(address_key(), address)] if address else []
        if token and _bearer() is not None:
            scoped.append((token_key(), token))
        if scoped:
            counters.hit(scoped)  # a RedisError becomes 503 unavailable

    app.before_request(limit)
    return counters
