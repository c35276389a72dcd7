"""Redis clients with bounded timeouts: an unreachable Redis answers in about two seconds
(HTTP 503), never hangs a request and never becomes a 500."""

from __future__ import annotations

import redis

SOCKET_TIMEOUT = 2.0
CONNECT_TIMEOUT = 1.0


def connect(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        socket_timeout=SOCKET_TIMEOUT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        health_check_interval=30,
    )
