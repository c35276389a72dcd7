"""Request limits: JSON nesting depth, and rate limits per token and per address.

**What is checked first.**  A check that costs a request nothing comes before one that costs
it something, so that a refused request costs the service as little as possible: the edge's
limits on URL and headers (``edge.py``), the JSON content type, then the rate limits and
quotas (one Redis call), then who the caller is where the route needs it (imports:
``service/app.py``), then the body's size (Flask's ``MAX_CONTENT_LENGTH``, set in
``service/app.py``, raised for imports only for a caller allowed to import: 413
``payload_too_large``), and only then the body is read, scanned and parsed.

**JSON depth.**  A JSON body may nest at most ``MAX_JSON_DEPTH`` arrays/objects deep (the
deepest legitimate body, an exported log, nests seven).  Deeper bodies are refused
with 400 ``bad_request`` before any parser recurses into them.  The scan (``json_depth``)
neither backtracks nor allocates in proportion to the body: a window at a time, strings
matched possessively.

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
request's counters cost one Redis round trip (one script call; no ``X-RateLimit-*`` headers),
counted by a Flask hook before the handler, for a move as for every request: the event store
knows nothing of them.
Only liveness and readiness are not limited (they must answer while everything else is busy,
and they cost nothing); everything else counts, the API's documents and ``/metrics``
included: no path lets one address make a process work without limit.  Workers do not go
through HTTP and are never limited.

The counters live in the same Redis as the events, through the same client (so ``redis://``,
``rediss://``, ``unix://`` and cluster URLs all work, with the same timeouts).  If
Redis is unreachable the limit cannot be checked and the request is answered ``503
unavailable``, as it would be by the handler.

**Quotas on new games** (the storage they cost is the scarce thing, not requests): creating
(``POST /api/v1/games``) and importing (``POST /api/v1/games/import``) count, per address and
per token, against their own windows, apart from the rate limits above.  Over a quota: the same
429 ``rate_limited``; nothing is stored.  The storage budget itself (507 ``storage_full``) is
``service/budget.py``'s.

Configuration, read when the app is built (the ``limits`` package's syntax, e.g. ``600/minute`` or
``20/second;600/minute``; ``off`` disables that limit):

- ``CHRONICLE_RATE_LIMIT``: per token, default ``DEFAULT_TOKEN_LIMIT``;
- ``CHRONICLE_RATE_LIMIT_ADDRESS``: per address, default ``DEFAULT_ADDRESS_LIMIT``;
- ``CHRONICLE_CREATE_QUOTA``: games created per address and per token, default
  ``DEFAULT_CREATE_QUOTA``;
- ``CHRONICLE_IMPORT_QUOTA``: imports per address and per token, default ``DEFAULT_IMPORT_QUOTA``.

The defaults apply to an app that configures itself from the environment (``create_app()``:
gunicorn, ``chronicle serve``, the Docker image).  An app built from an explicit ``Settings``
object (embedding, the test suite's in-process server, which drives whole games from one
address far faster than any person) is limited only by the variables that are set.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from flask import Flask
from limits import parse_many

from domain.errors import BadAction
from service import auth
from service.http.middleware import client_address, current_request
from service.http.ratelimit import Counters, Limit

# Sized from the browser client's measured pattern (tests/browser/test_table_live.py prints
# it): a seat's page asks at most ~13 requests in its busiest second (loading: the view, the
# legal moves, the log, a stream ticket; playing against a bot's bursts: fewer, its reads are
# coalesced), so 20 a second per token leaves room for a second tab.  Two seats and a
# spectator on one address (a household) loading their tables together send ~42 in a second,
# files included, every file counts; 100 a second holds that and their play, the same burst as
# docker/nginx.conf allows, while the minute's cap keeps a flood at 50 a second.
DEFAULT_TOKEN_LIMIT = "20/second;600/minute"
DEFAULT_ADDRESS_LIMIT = "100/second;3000/minute"
# A person starts a few games an hour; a flood of creations is storage, kept for good.
DEFAULT_CREATE_QUOTA = "20/minute;200/hour;1000/day"
DEFAULT_IMPORT_QUOTA = "10/minute;50/hour;200/day"
QUOTA_PATHS = {"create": "/api/v1/games", "import": "/api/v1/games/import"}
OFF = frozenset({"off", "none", "0", "false", "no"})
UNLIMITED_PATHS = frozenset({"/healthz", "/readyz"})  # exactly these paths
KEY_PREFIX = "chronicle-rl"


def _setting(env: Mapping[str, str], name: str, default: str, defaults: bool) -> str | None:
    """One limit's value, None where disabled; an invalid value raises."""
    value = (env.get(name) or (default if defaults else "off")).strip()
    if value.lower() in OFF:
        return None
    try:
        parse_many(value)
    except ValueError as exc:
        raise RuntimeError(f"{name}={value!r} is not a rate limit: {exc}") from None
    return value


def configured(
    env: Mapping[str, str] = os.environ, defaults: bool = True
) -> tuple[str | None, str | None]:
    """The (per token, per address) limits, None where disabled; invalid values raise."""
    return (
        _setting(env, "CHRONICLE_RATE_LIMIT", DEFAULT_TOKEN_LIMIT, defaults),
        _setting(env, "CHRONICLE_RATE_LIMIT_ADDRESS", DEFAULT_ADDRESS_LIMIT, defaults),
    )


def quotas(env: Mapping[str, str] = os.environ, defaults: bool = True) -> dict[str, str]:
    """The quotas on new games that are on: {"create" | "import": limit}."""
    out = {
        "create": _setting(env, "CHRONICLE_CREATE_QUOTA", DEFAULT_CREATE_QUOTA, defaults),
        "import": _setting(env, "CHRONICLE_IMPORT_QUOTA", DEFAULT_IMPORT_QUOTA, defaults),
    }
    return {k: v for k, v in out.items() if v}


@functools.lru_cache(maxsize=4096)
def token_scope(token: str | None) -> str:
    """The per-token counters' scope of ``token``: a hash, so no token is in a Redis key
    (kept for the tokens seen lately: a player's requests hash the same token again and
    again)."""
    digest = hashlib.sha256(b"chronicle-rate-limit:" + (token or "").encode()).hexdigest()
    return f"token:{digest[:40]}"


def address_key(address: str | None = None) -> str:
    return f"addr:{client_address() if address is None else address}"


def unlimited(method: str, path: str) -> bool:
    return path in UNLIMITED_PATHS or method == "OPTIONS"


MAX_JSON_DEPTH = 32
_WINDOW = 1 << 14  # bytes scanned at a time: the scan's own memory is a few of these
# A JSON string, possessively: no backtracking, and nothing kept per character or per escape.
_STRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_STRINGS = re.compile(_STRING, re.DOTALL)
# The longest start of a text made of whole strings and what lies between them.
_WHOLE = re.compile(rb'[^"]*+(?:' + _STRING + rb'[^"]*+)*+', re.DOTALL)
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"')))


def json_depth(body: bytes, limit: int | None = None) -> int:
    """How deep the arrays and objects of a JSON text nest (strings skipped), without parsing
    it; past ``limit`` it stops and returns a depth over ``limit`` (not necessarily the
    deepest).

    The body may be hostile (16 MB of ``[``, or of ``"``), so the scan keeps a window's worth
    of memory whatever the body, and neither backtracks nor recurses.  A window ends where a
    string does not (``_WHOLE``; a string longer than a window is skipped whole, by a regular
    expression that keeps nothing per character).  In a window, escaped backslashes and then
    escaped quotes are dropped, then everything but brackets and quotes; what lies between
    a quote and the next is a string's, dropped too; the brackets left become +1/-1 steps
    whose running sum is the depth (not summed where the window's openers cannot go deeper
    than the deepest seen).  A string never closed ends the scan: nothing after it is
    structure, and the parser refuses the body."""
    depth = deepest = 0
    pos, end = 0, len(body)
    while pos < end:
        whole = _WHOLE.match(body, pos, min(pos + _WINDOW, end))
        stop = whole.end() if whole is not None else pos  # it always matches (maybe nothing)
        if stop == pos:  # a string longer than what is left of the window starts here
            string = _STRINGS.match(body, pos)
            if string is None:
                break
            pos = string.end()
            continue
        window = body[pos:stop]
        if b"\\" in window:  # a run of backslashes in a string starts with an escape
            window = window.replace(b"\\\\", b"").replace(b'\\"', b"")
        window = window.translate(None, _NOT_STRUCTURE)
        if b'"' in window:  # whole strings only: every other piece is outside them
            window = b"".join(window.split(b'"')[::2])
        opens = window.count(b"[") + window.count(b"{")
        if depth + opens > deepest:
            steps = memoryview(window.translate(_STEPS)).cast("b")
            deepest = max(deepest, max(accumulate(steps, initial=depth)))
        depth += 2 * opens - len(window)
        if limit is not None and deepest > limit:
            break
        pos = stop
    return deepest


def surely_shallow(body: bytes) -> bool:
    """A JSON text with no more ``[`` and ``{`` than the limit (strings' included) cannot nest
    deeper than it: no scan is needed (a move's body)."""
    return body.count(b"[") + body.count(b"{") <= MAX_JSON_DEPTH


def _refuse_deep_json() -> None:
    req = current_request()
    if req.content_length and req.is_json:
        body = req.get_data(cache=True)  # the size limit is checked first (werkzeug's stream)
        if surely_shallow(body):
            return
        if json_depth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
            raise BadAction(
                f"the JSON body is nested too deeply (more than {MAX_JSON_DEPTH} levels)",
                {"body": [f"nested deeper than {MAX_JSON_DEPTH} levels"]},
            )


def install_depth(app: Flask) -> None:
    """Refuse too deep JSON bodies: the first hook that reads the body, so registered after
    the checks that cost no reading (the limits, who is calling, the size)."""
    app.before_request(_refuse_deep_json)


def install(
    app: Flask, client: Any, env: Mapping[str, str] = os.environ, defaults: bool = True
) -> Counters | None:
    """Limit ``app``'s requests per token and per address, and the quotas (returns the
    counters, or None if every limit is off); before any hook that reads the body."""
    per_token, per_address = configured(env, defaults)
    quota = {kind: Limit.parse(q) for kind, q in quotas(env, defaults).items()}
    if not (per_token or per_address or quota):
        return None
    limiter = Limiter(
        Counters(client, KEY_PREFIX),
        Limit.parse(per_address) if per_address else None,
        Limit.parse(per_token) if per_token else None,
        quota,
    )

    def limit() -> None:
        req = current_request()
        limiter.check(req.method, req.path, req.environ.get("HTTP_AUTHORIZATION"), client_address)

    app.before_request(limit)
    app.extensions[LIMITER] = limiter
    return limiter.counters


LIMITER = "chronicle.limiter"  # the app's Limiter, where rate limits are on


@dataclass(frozen=True)
class Limiter:
    """The rate limits and quotas that are on, and the one way a request is counted against
    them (the app's ``before_request`` hook)."""

    counters: Counters
    address: Limit | None
    token: Limit | None
    quota: Mapping[str, Limit]

    def check(
        self, method: str, path: str, authorization: str | None, client: Callable[[], str]
    ) -> None:
        """Count the request; raise ``RateLimited`` if it is over a limit (a RedisError
        becomes 503 unavailable)."""
        scoped = self.scoped(method, path, authorization, client)
        if scoped:
            self.counters.hit(scoped)

    def scoped(
        self, method: str, path: str, authorization: str | None, client: Callable[[], str]
    ) -> list[tuple[str, Limit]]:
        """What the request counts against: (scope key, limit) pairs, none for a request
        nothing counts (``unlimited``, or a move while only the quotas are on)."""
        if unlimited(method, path):
            return []
        token = auth.presented(authorization)  # parsed and hashed once a request
        quotas = [
            (kind, q)
            for kind, q in self.quota.items()
            if method == "POST" and path == QUOTA_PATHS[kind]
        ]
        per_token = self.token if token is not None else None
        if not self.address and not per_token and not quotas:
            return []
        tokens = token_scope(token) if token is not None else ""
        address = address_key(client()) if self.address or quotas else ""
        scoped = [(address, self.address)] if self.address else []
        if per_token:
            scoped.append((tokens, per_token))
        for kind, q in quotas:  # a quota: per address and per token
            scoped.append((f"{kind}:{address}", q))
            if token is not None:
                scoped.append((f"{kind}:{tokens}", q))
        return scoped
