"""What every request goes through besides its handler: a request id, one JSON log line,
metrics, CORS, the client's address behind trusted proxies, and ``/metrics``.

**Request id.**  A request's ``X-Request-ID`` is kept if it is sane (1-128 characters of
``A-Za-z0-9._:-``), else (absent, too long, odd characters) a new one is made.  It is returned
in the response's ``X-Request-ID`` and is in every log line written while the request is served.

**Log line.**  One per request, logger ``chronicle.request``: method, route (the URL rule),
path (at most 200 characters), status, duration, client address and the request id.  Never a
header, a query string or a body: those carry tokens and actions.

The log line and the metrics are written once the answer is sent, where the server offers
that (``service.http1``, while the process is not busy with other requests; a stream's at
its start, as before): they are not the client's to wait for.  Their figures (status,
duration) are taken when the answer is ready, as before.

**CORS** (flask-cors) is off unless ``CHRONICLE_CORS_ORIGINS`` lists origins, comma-separated
(``https://play.example.org,http://localhost:5173``; ``*`` allows any).  Allowed then: the
``/api/v1/`` resources with the ``Authorization``, ``Content-Type``, ``Idempotency-Key`` and
``X-Request-ID`` headers; exposed: ``Retry-After`` and ``X-Request-ID``.  No cookies are used,
so no credentials are allowed.

**Trusted proxies.**  ``CHRONICLE_TRUSTED_PROXIES`` lists addresses and networks
(``10.0.0.0/8,127.0.0.1``).  A request from one of them may name its client in
``X-Forwarded-For``: the client is the right-most address of that header that is not itself a
trusted proxy (addresses further left were written by the client and prove nothing).  A request
from any other address is its own client and its ``X-Forwarded-For`` is ignored.  The per-address
rate limit (``service/http/limits.py``) and the log use that address.

**JSON bodies only.**  A POST to ``/api/v1/`` that has a body must say it is JSON
(``Content-Type: application/json``, or ``application/<x>+json``), else it is answered ``415``
(code ``bad_request``) with a message that names the content type to send, instead of the
schema's "missing data" for every field.  Accepting any body as JSON would be friendlier to
a ``curl -d`` without ``-H``, but it would hide client bugs (a form posted by mistake) and let a
page of any site make a visitor's browser create or import games with a "simple" cross-origin
request (``text/plain`` or form content types need no CORS preflight; JSON does), which CORS
by configuration is meant to govern.  A POST without a body is left to its schema.

**``/metrics``** serves the Prometheus text (``service/metrics.py``).  It holds no game
id, token or state.  It is rate limited per address like every path but the health checks
(a scraper asks a few times a minute; building the text costs a request something).
"""

from __future__ import annotations

import contextvars
import ipaddress
import itertools
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask import Flask, Request, Response, current_app, g, has_request_context
from flask.globals import _cv_app as _app_ctx
from flask.globals import _cv_request as _request_ctx
from flask_cors import CORS
from flask_cors.core import get_cors_options
from werkzeug.exceptions import UnsupportedMediaType

from service import logs, metrics
from service.http.edge import AFTER_ANSWER_KEY

REQUEST_ID = "X-Request-ID"
CORS_API = "chronicle.cors_api"  # app.extensions: the CORS options of API_RESOURCE, if on
API_RESOURCE = r"/api/v1/*"
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
log = logging.getLogger("chronicle.request")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def current_request() -> Request:
    """The request being served, read from Flask's context variable: each use of
    ``flask.request`` (or ``g``) is a lookup through werkzeug's ``LocalProxy``, and a move's
    hooks and view made three dozen of them; resolving the proxy once still costs one lookup,
    and the hooks and view each need the request.  The variable is the one the proxy reads
    (``flask.globals._cv_request``, Flask 3); outside a request it raises ``LookupError``."""
    return _request_ctx.get().request


def current_g() -> Any:
    """``flask.g`` of the request being served, from Flask's context variable (as above)."""
    return _app_ctx.get().g


def current_flask_app() -> Flask:
    """``flask.current_app``, from Flask's context variable (as above)."""
    return _app_ctx.get().app


# The request id of a request served outside Flask's request cycle (``service.http.move_path``):
# set for the length of that request, so that its log lines carry it as Flask's requests' do.
served_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("served_id", default=None)


def request_id() -> str | None:
    return g.get("request_id") if has_request_context() else served_id.get()


def trusted_proxies(env: Mapping[str, str] = os.environ) -> tuple[Network, ...]:
    """``CHRONICLE_TRUSTED_PROXIES`` parsed; an entry that is not an address or a network
    stops the app from starting (a typo must not silently trust nobody, or everybody)."""
    out: list[Network] = []
    for item in (env.get("CHRONICLE_TRUSTED_PROXIES") or "").split(","):
        if item.strip():
            try:
                out.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                raise RuntimeError(
                    f"CHRONICLE_TRUSTED_PROXIES: {item.strip()!r} is not an address or a network"
                ) from None
    return tuple(out)


def cors_origins(env: Mapping[str, str] = os.environ) -> list[str]:
    return [o.strip() for o in (env.get("CHRONICLE_CORS_ORIGINS") or "").split(",") if o.strip()]


def _is_trusted(address: str, networks: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_address() -> str:
    """The client's address: ``REMOTE_ADDR``, or behind trusted proxies the nearest address
    in ``X-Forwarded-For`` that is not one of them (computed once per request)."""
    ctx = current_g()
    if "client_address" in ctx:
        return str(ctx.client_address)
    networks = current_flask_app().extensions.get("chronicle.trusted_proxies", ())
    ctx.client_address = address = address_of(current_request().environ, networks)
    return address


def address_of(environ: Mapping[str, Any], networks: Sequence[Network]) -> str:
    """``client_address`` of a WSGI environment.  The server joins repeated
    ``X-Forwarded-For`` lines into one value, comma-separated, as the header's own list."""
    remote = environ.get("REMOTE_ADDR") or "unknown"
    address = remote
    if networks and _is_trusted(remote, networks):
        forwarded = environ.get("HTTP_X_FORWARDED_FOR", "")
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        for hop in reversed(hops):
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                break  # written by the client: the last good hop (a proxy) is what we know
            address = hop
            if not _is_trusted(hop, networks):
                break
    return address


class _Ids:
    """Request ids made here: a random prefix per process and a counter, 32 hex digits like a
    UUID's.  An id must be unique, not secret (it is in the response and the logs), so it
    does not need a UUID object and the system's random source on every request; a forked
    process (gunicorn's API processes) draws its own prefix."""

    def __init__(self) -> None:
        self.reset()
        os.register_at_fork(after_in_child=self.reset)

    def reset(self) -> None:
        self.prefix = secrets.token_hex(10)
        self.count = itertools.count()

    def next(self) -> str:
        return f"{self.prefix}{next(self.count):012x}"


_ids = _Ids()


def new_request_id(environ: Mapping[str, Any]) -> str:
    """The request's id: the client's ``X-Request-ID`` if sane, else a new one."""
    given = environ.get("HTTP_X_REQUEST_ID", "")
    return given if _SANE_ID.fullmatch(given) else _ids.next()


def _start() -> None:
    ctx = current_g()
    ctx.started = time.perf_counter()
    ctx.request_id = new_request_id(current_request().environ)


# The one path whose POST may carry a form: a mail program's one-click unsubscribe (RFC 8058
# sends ``List-Unsubscribe=One-Click``), which the resource never reads (its URL says it all).
FORM_PATHS = frozenset({"/api/v1/unsubscribe"})


def _require_json() -> None:
    req = current_request()
    if req.method not in ("POST", "PUT", "PATCH") or req.path in FORM_PATHS:
        return
    has_body = bool(req.content_length) or "chunked" in req.environ.get(
        "HTTP_TRANSFER_ENCODING", ""
    )
    if has_body and not req.is_json:
        given = req.mimetype or "none"
        raise UnsupportedMediaType(
            f"the body must be JSON, sent with Content-Type: application/json "
            f"(this request's Content-Type: {given})"
        )


# The metrics' children by labels: ``labels()`` checks and looks its labels up every time.
# Bounded (a client chooses the method of an unmatched request): past it, ``labels()`` as before.
_CACHED = 1000
_counted: dict[tuple[str, str, int], Any] = {}
_timed: dict[tuple[str, str], Any] = {}


def _finish(response: Response) -> Response:
    # every request pays for this: the proxies (request, g) are resolved once each
    req, ctx = current_request(), current_g()
    rid = ctx.get("request_id")
    if rid:
        response.headers[REQUEST_ID] = rid
    started = ctx.get("started")
    seconds = time.perf_counter() - started if started is not None else 0.0
    route = req.url_rule.rule if req.url_rule is not None else "unmatched"
    method, path, status = req.method, req.path, response.status_code
    if response.is_streamed:  # a stream may last hours: counted and logged as it starts
        record(method, route, path, status, seconds, rid, client_address)
    else:
        address = client_address()  # Flask's context of the request ends before the work
        after_answer(
            req.environ, lambda: record(method, route, path, status, seconds, rid, lambda: address)
        )
    return response


def after_answer(environ: Mapping[str, Any], work: Callable[[], None]) -> None:
    """``work`` once the request's answer is sent, where the server takes such work
    (``service.http1``, when the process is not busy with other requests), else now (a busy
    process, a test client, another server)."""
    later = environ.get(AFTER_ANSWER_KEY)
    if later is None or not later(work):
        work()


def record(
    method: str,
    route: str,
    path: str,
    status: int,
    seconds: float,
    rid: str | None,
    client: Callable[[], str],
) -> None:
    """A served request's metrics and its log line (``client`` is asked only if it is
    logged)."""
    counted = _counted.get((method, route, status))
    if counted is None:
        counted = metrics.REQUESTS.labels(method, route, str(status))
        if len(_counted) < _CACHED:
            _counted[method, route, status] = counted
    timed = _timed.get((method, route))
    if timed is None:
        timed = metrics.LATENCY.labels(method, route)
        if len(_timed) < _CACHED:
            _timed[method, route] = timed
    counted.inc()
    timed.observe(seconds)
    if log.isEnabledFor(logging.INFO):
        fields = {
            **({"request_id": rid} if rid else {}),
            "method": method,
            "route": route,
            "path": path[:200],
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "client": client(),
        }
        logs.log_info(log, "request", fields)


def metrics_page() -> Response:
    """``GET /metrics``: the Prometheus text of every process."""
    ch: Any = current_app.extensions.get("chronicle")
    queue = getattr(getattr(ch, "jobs", None), "queue", None)
    body = metrics.exposition([queue] if queue is not None else [])
    return Response(body, mimetype=None, content_type=metrics.CONTENT_TYPE)


def install(app: Flask, env: Mapping[str, str] = os.environ) -> None:
    """Request ids, request logs and metrics, CORS (if configured), trusted proxies, /metrics."""
    app.extensions["chronicle.trusted_proxies"] = trusted_proxies(env)
    logs.set_request_id_source(request_id)
    # First of the before-request hooks: a request refused by a later one (a rate limit, a
    # too deep body) still gets its id, its log line and its metrics.
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.before_request(_require_json)
    app.after_request(_finish)
    app.add_url_rule("/metrics", "metrics", metrics_page, methods=["GET"])
    origins = cors_origins(env)
    if origins:
        api = {"origins": "*" if "*" in origins else origins}
        options: dict[str, Any] = {
            "allow_headers": [
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                REQUEST_ID,
                "X-CSRF-Token",
            ],
            "expose_headers": ["Retry-After", REQUEST_ID],
            "methods": ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            "supports_credentials": False,
            "max_age": 600,
        }
        CORS(app, resources={API_RESOURCE: api}, **options)
        # the same options as flask-cors resolves them for the API's resource: the move path
        # answers with the headers flask-cors' hook would add (service.http.move_path)
        app.extensions[CORS_API] = get_cors_options(app, options, api)
