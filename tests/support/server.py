"""Serving the app over real HTTP (threaded werkzeug on a free loopback port) inside a test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask
from werkzeug.serving import make_server

from service.redis_server import free_port


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """The base URL of ``app`` served in a background thread until the block ends."""
    server = make_server("127.0.0.1", free_port(), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
