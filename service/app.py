"""The Flask app factory: ``create_app()`` builds the API over a ``Chronicle`` service.

Nothing connects at import time: gunicorn calls ``create_app()`` in each worker process.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request
from flask_smorest import Api

from service.chronicle import Chronicle
from service.config import Settings
from service.connections import connect
from service.http import (
    actions,
    catalog,
    errors,
    events,
    games,
    health,
    history,
    limits,
    openapi,
    undo,
    views,
)
from service.http.schemas import ApiError
from service.jobs import RQJobQueue
from service.redis_store import RedisEventStore

MAX_BODY = 64 * 1024
MAX_IMPORT_BODY = 16 * 1024 * 1024  # an exported log of a long game is larger than an action


class ChronicleApi(Api):
    """flask-smorest's Api with errors in the contract's shape."""

    ERROR_SCHEMA = ApiError

    def handle_http_exception(self, error: Any) -> Any:
        return errors.http_error(error)


def events_client(settings: Settings) -> Any:
    """The client of the events' Redis: a plain Redis or a Redis Cluster."""
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set (use `chronicle serve` for the embedded Redis)")
    return connect(settings.redis_url)


def build_chronicle(settings: Settings, events: Any = None) -> Chronicle:
    """The service over Redis (``events``: a client of the events' Redis already made)."""
    events = events if events is not None else events_client(settings)
    queue = connect(settings.queue_redis_url) if settings.queue_redis_url else events
    return Chronicle(RedisEventStore(events), RQJobQueue(queue), settings.admin_token)


def create_app(settings: Settings | None = None) -> Flask:
    """The app; without ``settings`` it configures itself from the environment (gunicorn) and
    applies the default rate limits."""
    app = Flask("chronicle")
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        API_TITLE="Chronicle",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        API_SPEC_OPTIONS={
            "info": {
                "description": "Event-sourced game log and replay service. See contract.md.",
            },
        },
    )
    api = ChronicleApi(app, spec_kwargs={"extra_plugins": [openapi.ErrorResponses()]})
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    openapi.install(api)
    for resource in (catalog, games, views, actions, events, undo, history, health):
        api.register_blueprint(resource.blp)
    errors.install(app)

    @app.before_request
    def larger_imports() -> None:
        if request.path == "/api/v1/games/import":
            request.max_content_length = MAX_IMPORT_BODY

    chosen = settings or Settings.from_env()
    client = events_client(chosen)
    app.extensions["chronicle"] = build_chronicle(chosen, client)
    limits.install(app, client, defaults=settings is None)
    return app
