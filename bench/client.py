"""A lean keep-alive JSON client over ``http.client`` (the client's own cost stays small)."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit


class Http:
    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, float]:
        """(status, decoded body, seconds taken); a connection the server closed while idle
        is reopened and the request sent again, timed from the new attempt."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            start = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
            except (http.client.RemoteDisconnected, ConnectionError):
                self.close()
                if attempt:
                    raise
                continue
            took = time.perf_counter() - start
            return resp.status, json.loads(raw) if raw else None, took
        raise AssertionError("unreachable")

    def act(self, gid: str, token: str, action: Any, version: int) -> tuple[int, Any, float]:
        body = {"action": action, "expected_version": version}
        return self.request("POST", f"/api/v1/games/{gid}/actions", body, token)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
