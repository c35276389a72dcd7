"""A lean keep-alive HTTP/1.1 JSON client over a plain socket.

The figures are the server's: the client's own cost should stay small.  ``http.client`` parses
every response's headers with the ``email`` package (about as long as a Redis round trip); this
client sends one buffer per request and reads the status line, ``Content-Length`` and the body,
nothing else.  It is enough for Chronicle's API (gunicorn answers every request with a
Content-Length) and is not a general client.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit


class Http:
    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.sock: socket.socket | None = None
        self.buf = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.buf = sock, b""
        return sock

    def _response(self, sock: socket.socket) -> tuple[int, bytes]:
        buf = self.buf
        while (end := buf.find(b"\r\n\r\n")) < 0:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("the server closed the connection")
            buf += chunk
        head = buf[:end].decode("latin-1")
        status = int(head[9:12])
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        start = end + 4
        while len(buf) < start + length:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("the server closed the connection")
            buf += chunk
        self.buf = buf[start + length :]
        if "connection: close" in head.lower():
            self.close()
        return status, buf[start : start + length]

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, float]:
        """(status, decoded body, seconds taken); a connection the server closed while idle
        is reopened and the request sent again, timed from the new attempt."""
        data = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        if token:
            lines.append(f"Authorization: Bearer {token}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + data
        for attempt in range(2):
            sock = self.sock or self._connect()
            start = time.perf_counter()
            try:
                sock.sendall(message)
                status, raw = self._response(sock)
            except (ConnectionError, BrokenPipeError):
                self.close()
                if attempt:
                    raise
                continue
            took = time.perf_counter() - start
            return status, json.loads(raw) if raw else None, took
        raise AssertionError("unreachable")

    def act(self, gid: str, token: str, action: Any, version: int) -> tuple[int, Any, float]:
        body = {"action": action, "expected_version": version}
        return self.request("POST", f"/api/v1/games/{gid}/actions", body, token)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
            self.buf = b""
