"""A small HTTP client for the tests: the contract's calls, each returning the response."""

from __future__ import annotations

import time
from typing import Any

import requests


class Client:
    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.http = requests.Session()

    def _h(self, token: str | None, extra: dict[str, str] | None = None) -> dict[str, str]:
        h = {"Authorization": f"Bearer {token}"} if token else {}
        return {**h, **(extra or {})}

    def get(self, path: str, token: str | None = None, **params: Any) -> requests.Response:
        return self.http.get(self.base + path, headers=self._h(token), params=params, timeout=30)

    def post(
        self, path: str, body: Any, token: str | None = None, headers: dict[str, str] | None = None
    ) -> requests.Response:
        return self.http.post(
            self.base + path, json=body, headers=self._h(token, headers), timeout=30
        )

    # the contract's calls
    def create(self, game: str, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        r = self.post("/api/v1/games", {"game": game, "players": players, **extra})
        assert r.status_code == 201, r.text
        return r.json()

    def summary(self, gid: str) -> dict[str, Any]:
        r = self.get(f"/api/v1/games/{gid}")
        assert r.status_code == 200, r.text
        return r.json()

    def view(self, gid: str, token: str | None = None, **params: Any) -> dict[str, Any]:
        r = self.get(f"/api/v1/games/{gid}/view", token, **params)
        assert r.status_code == 200, r.text
        return r.json()

    def actions(self, gid: str, token: str) -> dict[str, Any]:
        r = self.get(f"/api/v1/games/{gid}/actions", token)
        assert r.status_code == 200, r.text
        return r.json()

    def act(
        self, gid: str, token: str, action: dict[str, Any], version: int, key: str | None = None
    ) -> requests.Response:
        headers = {"Idempotency-Key": key} if key else None
        return self.post(
            f"/api/v1/games/{gid}/actions",
            {"action": action, "expected_version": version},
            token,
            headers,
        )

    def wait_status(self, gid: str, status: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            s = self.summary(gid)
            if s["status"] == status:
                return s
            assert time.monotonic() < deadline, f"{gid} still {s['status']} at {s['version']}"
            time.sleep(0.05)
