"""The Flask app factory: ``create_app()`` builds the API over a ``Chronicle`` service.

Nothing connects at import time: gunicorn calls ``create_app()`` in each worker process.
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from flask import Flask, json, request
from flask.json.provider import DefaultJSONProvider
from flask.sessions import NullSession, SessionInterface
from flask_smorest import Api
from rq import Queue
from rq.serializers import JSONSerializer

from domain import jsontext
from service import logs, notices, webhooks
from service.accounts import Accounts
from service.chronicle import Chronicle
from service.clocks import Clocks
from service.config import Settings
from service.connections import connect
from service.hooks import AllHooks
from service.http import (
    accounts,
    actions,
    catalog,
    chat,
    compression,
    docs,
    edge,
    errors,
    events,
    games,
    health,
    history,
    languages,
    limits,
    lobby,
    middleware,
    move_path,
    openapi,
    refusal_words,
    sessions,
    site,
    stream,
    text,
    undo,
    views,
    webhook,
)
from service.http import invitations as seat_invitations
from service.http import notices as account_notices
from service.http import push as push_subscriptions
from service.http import ratings as rating_tables
from service.http import review as reviews
from service.http import vacation as vacations
from service.http.schemas import ApiError, choices_now
from service.jobs import RQJobQueue
from service.mail import Outbox
from service.redis_store import RedisEventStore
from service.web import pages

MAX_BODY = 64 * 1024
MAX_IMPORT_BODY = 16 * 1024 * 1024  # an exported log of a long game is larger than an action


class JSONOnce(DefaultJSONProvider):
    """Flask's JSON provider, its text written by encoders built once (``domain.jsontext``)
    instead of a new ``JSONEncoder`` per document.  Every answer (``response``: compact, keys
    sorted, ASCII, Flask's ``default`` for dates, UUIDs and dataclasses) is orjson's text where
    that is ASCII, else the C encoder's (``jsontext.answer_encoder``); ``dumps`` with no options
    as Flask writes it (ASCII, spaced); a call with other options goes to Flask's."""

    def __init__(self, app: Flask) -> None:
        super().__init__(app)
        keys, ascii_, default = self.sort_keys, self.ensure_ascii, self.default
        self._dumps = jsontext.encoder(sort_keys=keys, ensure_ascii=ascii_, default=default)
        self._answer = jsontext.answer_encoder(default, keys)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            return self._dumps(obj)
        if kwargs.keys() == {"separators"} and tuple(kwargs["separators"]) == jsontext.COMPACT:
            return self._answer(obj).decode()
        return super().dumps(obj, **kwargs)

    def answer(self, obj: Any) -> bytes:
        """The body of ``response(obj)``, by Flask's rule for its options, without the
        ``Response`` object (``service.http.move_path``)."""
        if (self.compact is None and self._app.debug) or self.compact is False:
            return f"{self.dumps(obj, indent=2)}\n".encode()
        return self._answer(obj) + b"\n"


class ChronicleFlask(Flask):
    """Flask, with ``ensure_sync`` deciding once per function, and ``JSONOnce``.

    Flask asks ``inspect.iscoroutinefunction`` of every hook and view on every request (about
    a dozen calls a request here, a visible share of a move's CPU); none of ours is async, and
    whether a function is async does not change, so the answer is kept per function (a bound
    method by its function: views are bound to a new instance per request)."""

    json_provider_class = JSONOnce

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_async: dict[Any, bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        key = getattr(func, "__func__", func)
        is_async = self._is_async.get(key)
        if is_async is None:
            is_async = self._is_async[key] = iscoroutinefunction(func)
        return self.async_to_sync(func) if is_async else func


class NoSessions(SessionInterface):
    """No cookie sessions: callers present bearer tokens, and nothing is kept in a cookie.

    Flask's default interface looks for a signing key on every request and, finding none,
    makes a new ``NullSession``; this answers with one shared null session (it refuses
    every write, so sharing it shares nothing) and never saves."""

    _null = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:
        return self._null

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        return None


class ChronicleApi(Api):
    """flask-smorest's Api with errors in the contract's shape, and its documents (the
    OpenAPI document, the Swagger UI page) built once (``compression.Built``): flask-smorest
    builds the spec's dict and its JSON text again for every request."""

    ERROR_SCHEMA = ApiError

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._built: dict[str, compression.Built] = {}
        super().__init__(*args, **kwargs)

    def handle_http_exception(self, error: Any) -> Any:
        return errors.http_error(error)

    def _openapi_json(self) -> Any:
        built = self._built.get("json")
        if built is None:  # the spec is whole: every blueprint was registered in create_app
            text = json.dumps(self.spec.to_dict(), indent=2, sort_keys=False)
            built = self._built["json"] = compression.Built.of(text.encode(), "application/json")
        return built.answer(request.environ)

    def _openapi_swagger_ui(self) -> Any:
        built = self._built.get("ui")
        if built is None:
            page = super()._openapi_swagger_ui()
            built = self._built["ui"] = compression.Built.of(page.encode(), "text/html")
        return built.answer(request.environ)


def events_client(settings: Settings) -> Any:
    """The client of the events' Redis: a plain Redis or a Redis Cluster."""
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set (use `chronicle serve` for the embedded Redis)")
    return connect(settings.redis_url)


def build_chronicle(settings: Settings, events: Any = None) -> Chronicle:
    """The service over Redis (``events``: a client of the events' Redis already made)."""
    events = events if events is not None else events_client(settings)
    queue = connect(settings.queue_redis_url) if settings.queue_redis_url else events
    jobs = RQJobQueue(queue)
    # one Redis for both (not a cluster): an append writes its deadline checks itself
    store = RedisEventStore(events, deadlines=queue is events)
    hooks = AllHooks(
        [
            Clocks(queue, folded=store.indexes_deadlines),
            webhooks.Webhooks(Queue(webhooks.QUEUE, connection=queue, serializer=JSONSerializer)),
            notices.Notices(Queue(notices.QUEUE, connection=queue, serializer=JSONSerializer)),
        ]
    )
    return Chronicle(
        store,
        jobs,
        settings.admin_token,
        hooks=hooks,
        open_import=settings.open_import,
        chosen_seeds=settings.chosen_seeds,
        accounts=Accounts(events),
        outbox=Outbox(queue),
    )


def create_app(settings: Settings | None = None) -> Flask:
    """The app; without ``settings`` it configures itself from the environment (gunicorn) and
    applies the default rate limits."""
    from_env = settings is None
    if from_env:  # gunicorn, `chronicle serve`, the image: JSON log lines
        logs.configure_logging()
    app = ChronicleFlask("chronicle")
    app.session_interface = NoSessions()
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        API_TITLE="Chronicle",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL=docs.ASSETS_URL,  # served from a package: works offline
        API_SPEC_OPTIONS={"info": {"description": docs.OPENAPI_DESCRIPTION}},
    )
    api = ChronicleApi(app, spec_kwargs={"extra_plugins": [openapi.ErrorResponses()]})
    api.ma_plugin.converter.add_attribute_function(choices_now)  # enums from the registry
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    openapi.install(api)
    resources = (
        catalog, games, views, actions, events, undo, history, lobby, webhook, chat, accounts,
        account_notices, push_subscriptions, rating_tables, reviews, seat_invitations,
        vacations,
    )  # fmt: skip
    for resource in (*resources, health):
        api.register_blueprint(resource.blp)
    openapi.creation_rules(api)
    app.register_blueprint(pages)  # the browser client (service/web)
    app.register_blueprint(docs.blueprint())
    app.register_blueprint(site.blueprint())  # the docs site at /docs/, when built
    compression.install(app)  # the last of the after-request hooks to run
    errors.install(app)
    languages.install(app)  # flask-babel: the request's language (service.i18n)
    middleware.install(app)  # the request id; the content type (headers only)
    chosen = settings or Settings.from_env()
    client = events_client(chosen)
    app.extensions["chronicle"] = build_chronicle(chosen, client)
    # What costs a request nothing is checked before what costs it something (the edge's
    # URL and header limits come first, in ``edge.EdgeLimits``): the rate limits and quotas,
    # who may import and its body limit, then the hooks that read the body.
    limits.install(app, client, defaults=settings is None)

    @app.before_request
    def larger_imports() -> None:
        """An import's caller is checked before its body is read, and only a caller allowed
        to import may send the import's larger body: anyone else gets its 401 at once."""
        req = middleware.current_request()
        if req.endpoint == games.IMPORT_ENDPOINT and req.method == "POST":
            games.ImportResource.admit(req)
            req.max_content_length = MAX_IMPORT_BODY

    limits.install_depth(app)  # the first hook that reads the body
    text.install(app)
    stream.install(app, api, client, defaults=settings is None)
    moves = move_path.MovePath(app.wsgi_app, app)  # the last: it knows every hook
    app.extensions[move_path.EXTENSION] = moves
    people = app.extensions["chronicle"].accounts
    signed = sessions.CookieSessions(moves, people, refusal_words.translated_for)
    # the caller's language and Content-Language, around every answer but the edge's own
    spoken = languages.Languages(signed, people)
    app.wsgi_app = edge.EdgeLimits(spoken)  # type: ignore[method-assign]
    return app
