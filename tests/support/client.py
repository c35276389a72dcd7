"""The tests' client: ``chronicle_client.Client`` (its session, base URL, token header, JSON
handling and error types) under the signatures the tests were written with, plus what only tests
need.

- ``create``, ``summary``, ``view``, ``actions`` are chronicle_client's typed calls: a refusal
  raises its ``ApiError`` (429/503 are retried as the library does).
- ``get``, ``post`` and ``act`` are the low-level escape hatch (``chronicle_client.Client.raw``):
  one attempt, the ``requests.Response`` as it came, for the tests that assert status codes,
  headers and error bodies.  ``http`` (the library's session) remains for bodies that are not
  JSON and for methods the library has no call for.
- ``seat(token)`` is the library's client acting with a token, for the calls it has beyond these.
"""

from __future__ import annotations

import time
from typing import Any

import requests

import chronicle_client
from chronicle_client.types import Actions, Created, Summary, View


class Client:
    def __init__(self, base: str) -> None:
        self.client = chronicle_client.Client(base)

    @property
    def base(self) -> str:
        return self.client.base_url

    @property
    def http(self) -> requests.Session:
        return self.client.http

    def seat(self, token: str | None) -> chronicle_client.Client:
        return self.client.as_token(token)

    # ---- raw responses (the escape hatch: status-code assertions) ---------------------------
    def get(self, path: str, token: str | None = None, **params: Any) -> requests.Response:
        return self.seat(token).raw("GET", path, params=params)

    def post(
        self, path: str, body: Any, token: str | None = None, headers: dict[str, str] | None = None
    ) -> requests.Response:
        return self.seat(token).raw("POST", path, json=body, headers=headers)

    def act(
        self, gid: str, token: str, action: dict[str, Any], version: int, key: str | None = None
    ) -> requests.Response:
        """One POST of the action (no conflict reload: the tests look at the 409 themselves)."""
        headers = {"Idempotency-Key": key} if key else None
        body = {"action": action, "expected_version": version}
        return self.post(f"/api/v1/games/{gid}/actions", body, token, headers)

    # ---- chronicle_client's typed calls -----------------------------------------------------
    def create(self, game: str, players: list[dict[str, Any]], **extra: Any) -> Created:
        return self.client.create(game, players, **extra)

    def summary(self, gid: str) -> Summary:
        return self.client.summary(gid)

    def view(self, gid: str, token: str | None = None, version: int | None = None) -> View:
        return self.seat(token).view(gid, version)

    def actions(self, gid: str, token: str) -> Actions:
        return self.seat(token).actions(gid)

    # ---- test helpers -----------------------------------------------------------------------
    def wait_status(self, gid: str, status: str, timeout: float = 60) -> Summary:
        deadline = time.monotonic() + timeout
        while True:
            s = self.summary(gid)
            if s["status"] == status:
                return s
            assert time.monotonic() < deadline, f"{gid} still {s['status']} at {s['version']}"
            time.sleep(0.05)
