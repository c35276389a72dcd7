"""The move's own path: ``POST /api/v1/games/<id>/actions`` answered without Flask's request
cycle, in front of it, for the bodies and headers a client's move has (issue 16).

A move is what the service serves most, and Flask's cycle around it (a request context, a
``Request`` and a ``Response`` object, URL matching, six before- and two after-request hooks
called through Flask's machinery) cost a large share of a move's CPU in the API process,
the rules, the hash chain, the redaction and the Redis round trip included.  This path does
the same work with the same functions, without the cycle:

- the request id (``middleware.new_request_id``), the metrics and the log line
  (``middleware.record``), the client's address behind trusted proxies
  (``middleware.address_of``);
- the JSON depth check (``limits.surely_shallow``; a deeper body is Flask's), the rate
  limits and quotas (``limits.Limiter``, the same counters, counted once), the text
  check (``text.header_problem``, ``text.first_bad``);
- the body rule of the view (``actions.plain``) and the move itself (``actions.act``);
- the answer: the app's JSON provider, ``compression.gzipped`` for a large one, and where
  CORS is configured the headers flask-cors' hook adds (``flask_cors.core.get_cors_headers``
  with the options ``middleware.install`` resolved for the API's resource).

Anything else goes to Flask as it came (the body, if read, given back as it was): another
method or path (a CORS preflight is an ``OPTIONS``), a query string, a body that is not
``application/json`` by its Content-Length, over the size limit, malformed, too deep or not a
plain move.
A refusal (any exception: a rule, a limit, bad text, Redis) is answered by Flask's own error
handlers and after-request hooks, in a request context of the same request, so its answer is
Flask's to the byte.  ``tests/service/test_move_path.py`` plays the same games both ways and
compares every answer, refusals included.

**The rate limits in the move's own round trip.**  On a single Redis that holds the
counters too, a move's counters go with it to its append (``service.admission``), which
counts them first and appends nothing if one is over: a move is one Redis round trip with
limits on, as with them off.  A move refused before its append (a rule, a token, a conflict,
bad text) or answered without one (an idempotent replay) is counted by the limiter's own
call, and a 429 from it wins over the other answer, so every answer is the one the limits
checked first would give.  A client refused by a limit is counted first again (its scopes,
here, until their windows end): a flood over its limit costs the counters' call, not a
move's rules.  On a Redis Cluster (the counters are not in the game's slot) and with the
memory store, the limits are counted first, as Flask's hook counts them.

Not done on this path: Flask's ``request_started`` / ``request_finished`` signals (nothing
here connects to them).  The hooks it stands in for are named in ``STANDS_IN_FOR``: an app
with any other hook refuses to build this path, so a new hook cannot be skipped silently.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from flask_cors.core import get_cors_headers
from werkzeug.datastructures import EnvironHeaders

from service.admission import Admission, OverLimit
from service.chronicle import Chronicle
from service.errors import RateLimited
from service.http import actions, compression, middleware, text
from service.http.limits import LIMITER, Limiter, surely_shallow

# Game ids as the service makes them (and as a client sends them); any other id (the
# converter takes any segment but ``import``) goes to Flask.
_MOVE = re.compile(r"/api/v1/games/(?!import/)([A-Za-z0-9_.~-]{1,64})/actions")
_JSON = ("application/json", "application/json; charset=utf-8")
STANDS_IN_FOR = {  # the app's hooks (before, after) that this path does itself
    "before": (
        "service.http.middleware._start",
        "service.http.middleware._require_json",
        "service.app.create_app.<locals>.larger_imports",
        "service.http.limits._refuse_deep_json",
        "service.http.limits.install.<locals>.limit",
        "service.http.text._refuse_bad_text",
    ),
    "after": ("service.http.compression.compress", "service.http.middleware._finish"),
}
ENDPOINT = "actions.ActionsResource"  # the route of POST /games/<id>/actions
CORS_HOOK = "flask_cors.extension.make_after_request_function.<locals>.cors_after_request"
HOT_KEPT = 10_000  # refused counters remembered at most (expired ones dropped first)
WSGI = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _names(funcs: Iterable[Callable[..., Any]]) -> tuple[str, ...]:
    return tuple(f"{f.__module__}.{f.__qualname__}" for f in funcs)


EXTENSION = "chronicle.move_path"  # app.extensions: the app's MovePath (tests reach it there)


def of(app: Any) -> MovePath:
    """The move path of an app made by ``create_app`` (under the edge's WSGI layers)."""
    found: MovePath = app.extensions[EXTENSION]
    return found


class MovePath:
    """WSGI: moves answered here, everything else by ``app`` (Flask's ``wsgi_app``)."""

    def __init__(self, app: WSGI, flask: Flask) -> None:
        self.app, self.flask = app, flask
        # CORS on: the headers flask-cors' hook adds to an answer of the API's resource
        self.cors: Any = flask.extensions.get(middleware.CORS_API)
        before = _names(flask.before_request_funcs.get(None, ()))
        after = set(_names(flask.after_request_funcs.get(None, ())))
        expected = set(STANDS_IN_FOR["after"]) | ({CORS_HOOK} if self.cors is not None else set())
        if (
            not set(before) <= set(STANDS_IN_FOR["before"])
            or after != expected
            or flask.teardown_request_funcs
            or flask.url_value_preprocessors
        ):
            raise RuntimeError(
                f"MovePath does not know every request hook of the app: {before}, {after}"
            )
        self.chronicle: Chronicle = flask.extensions["chronicle"]
        self.limiter: Limiter | None = flask.extensions.get(LIMITER)
        store = self.chronicle.store
        # the counters count in the append where the store's Redis is the counters' own
        self.folds = (
            self.limiter is not None
            and store.admits
            and getattr(store, "r", None) is self.limiter.counters.client
        )
        self.hot: dict[str, float] = {}  # counter key -> until when it is counted first
        self.json: Any = flask.json  # service.app.JSONOnce
        self.max_body = int(flask.config["MAX_CONTENT_LENGTH"])
        rule = next(r for r in flask.url_map.iter_rules() if r.endpoint == ENDPOINT)
        self.route = rule.rule
        blueprint = ENDPOINT.rpartition(".")[0]
        if flask.before_request_funcs.get(blueprint) or flask.after_request_funcs.get(blueprint):
            raise RuntimeError(f"MovePath does not know the hooks of the {blueprint} blueprint")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        m = _MOVE.fullmatch(path) if environ["REQUEST_METHOD"] == "POST" else None
        length = environ.get("CONTENT_LENGTH") or ""
        if (
            m is None
            or environ.get("QUERY_STRING")
            or environ.get("CONTENT_TYPE") not in _JSON
            or "HTTP_TRANSFER_ENCODING" in environ
            or not length.isdigit()
            or not 0 < int(length) <= self.max_body
        ):
            return self.app(environ, start_response)
        started = time.perf_counter()
        rid = middleware.new_request_id(environ)
        token = middleware.served_id.set(rid)
        raw, doc, admit = b"", None, None
        client = self._client(environ)
        try:
            try:
                raw = environ["wsgi.input"].read(int(length))
                body = self._plain(raw, int(length))
                if body is not None:
                    if self.limiter is not None:
                        admit = self._admission(environ, path, client)
                    found = text.header_problem(environ)
                    if found is None and text.may_hold_bad_text(raw):
                        found = text.first_bad(body, "")
                    text.refuse(found)
                    doc = actions.act(self.chronicle, environ, body, m.group(1), admit)
                    self._count(admit)  # answered without an append: an idempotent replay
            except Exception as error:  # any: answered as Flask answers it
                environ["wsgi.input"] = io.BytesIO(raw)
                try:
                    self._limits_first(error, admit)
                except Exception as limited:  # the limits' answer comes first, as in Flask
                    return self._refused(limited, environ, start_response, started, rid)
                return self._refused(error, environ, start_response, started, rid)
            if body is None:  # not a plain move: Flask's, with its body as it came
                environ["wsgi.input"] = io.BytesIO(raw)
                return self.app(environ, start_response)
            return self._answer(doc, environ, start_response, path, started, rid, client)
        finally:
            middleware.served_id.reset(token)

    def _admission(
        self, environ: dict[str, Any], path: str, client: Callable[[], str]
    ) -> Admission | None:
        """The move's counters, to count in its append; None once counted here (on a
        cluster, with the memory store, or for a client refused by a limit lately)."""
        limiter = self.limiter
        assert limiter is not None
        scoped = limiter.scoped("POST", path, environ.get("HTTP_AUTHORIZATION"), client)
        if not scoped:
            return None
        admit = limiter.counters.admission(scoped)
        if self.folds and not (self.hot and self._is_hot(admit)):
            return admit
        self._count(admit)
        return None

    def _is_hot(self, admit: Admission) -> bool:
        now = time.monotonic()
        return any(self.hot.get(key, 0.0) > now for key in admit.keys)

    def _count(self, admit: Admission | None) -> None:
        """Count ``admit`` by the limiter's own call, if nothing counted it yet."""
        if admit is None or admit.counted:
            return
        try:
            assert self.limiter is not None
            self.limiter.counters.count(admit)
        except RateLimited:
            self._heat(admit)
            raise

    def _limits_first(self, error: Exception, admit: Admission | None) -> None:
        """Raise what the limits answer ``error``'s request: its counters over a limit in the
        append (``OverLimit``), or, where nothing counted them yet, counted now."""
        if isinstance(error, OverLimit):
            assert admit is not None
            self._heat(admit)
            raise error.refusal
        self._count(admit)

    def _heat(self, admit: Admission) -> None:
        """``admit``'s scopes were refused: counted first until their longest window ends."""
        if len(self.hot) >= HOT_KEPT:
            now = time.monotonic()
            self.hot = {k: t for k, t in self.hot.items() if t > now}
            if len(self.hot) >= HOT_KEPT:
                self.hot.clear()
        until = time.monotonic() + max(admit.expiries)
        for key in admit.keys:
            self.hot[key] = until

    def _plain(self, raw: bytes, length: int) -> dict[str, Any] | None:
        """The body if this path takes it: all of it, shallow, JSON, a plain move."""
        if len(raw) != length or not surely_shallow(raw):
            return None  # a deep one: Flask's depth check decides
        try:
            return actions.plain(self.json.loads(raw))
        except ValueError:
            return None

    def _client(self, environ: dict[str, Any]) -> Callable[[], str]:
        """The request's client address, worked out once when first asked (by the limiter,
        then the log line), as Flask's path keeps it in ``g``."""
        proxies = self.flask.extensions.get("chronicle.trusted_proxies", ())
        known: list[str] = []

        def client() -> str:
            if not known:
                known.append(middleware.address_of(environ, proxies))
            return known[0]

        return client

    def _answer(
        self,
        doc: Any,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        path: str,
        started: float,
        rid: str,
        client: Callable[[], str],
    ) -> list[bytes]:
        data = self.json.answer(doc)
        seconds = time.perf_counter() - started
        route = self.route
        middleware.after_answer(
            environ, lambda: middleware.record("POST", route, path, 201, seconds, rid, client)
        )
        headers = [("Content-Type", "application/json"), ("Content-Length", "")]
        if self.cors is not None:
            cors = get_cors_headers(self.cors, EnvironHeaders(environ), "POST")
            headers += [(k, str(v)) for k, v in cors.items(multi=True)]
        headers.append((middleware.REQUEST_ID, rid))
        gz = compression.gzipped(data, environ.get("HTTP_ACCEPT_ENCODING", ""), path)
        if gz is not None:
            data = gz
            headers.append(("Content-Encoding", "gzip"))
            # as werkzeug's ``response.vary.add``: into a Vary already there (CORS' ``Origin``)
            vary = next((i for i, (k, _) in enumerate(headers) if k == "Vary"), None)
            if vary is None:
                headers.append(("Vary", "Accept-Encoding"))
            else:
                headers[vary] = ("Vary", headers[vary][1] + ", Accept-Encoding")
        headers[1] = ("Content-Length", str(len(data)))
        start_response("201 CREATED", headers)
        return [data]

    def _refused(
        self,
        error: Exception,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        started: float,
        rid: str,
    ) -> Any:
        """Flask's answer to ``error`` raised by this request: its error handlers, then its
        after-request hooks (the id, the metrics and the log line are ``_finish``'s), as in
        ``Flask.full_dispatch_request``.  Called while ``error`` is being handled: Flask
        re-raises an error no handler takes, and answers it 500 (``handle_exception``)."""
        flask = self.flask
        ctx = flask.request_context(environ)
        failed: BaseException | None = None
        try:
            ctx.push()
            g = middleware.current_g()
            g.started, g.request_id = started, rid
            try:
                response = flask.finalize_request(flask.handle_user_exception(error))
            except Exception as e:
                failed = e
                response = flask.handle_exception(e)
            return response(environ, start_response)
        finally:
            ctx.pop(failed)
