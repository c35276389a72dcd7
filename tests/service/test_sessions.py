"""The app keeps no cookie session (``service.app.NoSessions``): no ``Set-Cookie`` on any
answer, and a write to ``flask.session`` fails loudly instead of being kept for someone."""

from __future__ import annotations

import pytest
from flask import session

from service.app import create_app
from tests.conftest import settings


def test_no_session_is_kept_and_none_can_be_written(redis_url: str) -> None:
    app = create_app(settings(redis_url))
    client = app.test_client()
    got = client.get("/healthz")
    assert got.status_code == 200
    assert "Set-Cookie" not in got.headers
    with app.test_request_context("/healthz"):
        assert dict(session) == {}
        with pytest.raises(RuntimeError):
            session["seat"] = 0
