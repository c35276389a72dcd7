"""Redis clients with bounded timeouts: an unreachable Redis answers in about two seconds
(HTTP 503), never hangs a request and never becomes a 500.

``REDIS_URL`` may name a Redis Cluster: ``redis+cluster://host:port`` (or ``rediss+cluster://``
for TLS), with any number of comma-separated seed nodes (``redis+cluster://h1:7000,h2:7000``);
the rest of the topology is discovered from them.  The event store runs on it unchanged: every
key of a game carries the hash tag ``{g:<id>}``, so a game lives in one slot, and every Lua
script declares its keys.  RQ cannot run on a cluster, so ``QUEUE_REDIS_URL`` must then name a
plain Redis (see ``service.config``).

Only redis-py's public API is used: its blocking pool, its ``Script`` (``EVALSHA``, and the
script loaded again after a ``NOSCRIPT``), its pipeline, its cluster client.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.core import Script
from redis.maint_notifications import MaintNotificationsConfig

from service.pipelining import Pipelined

SOCKET_TIMEOUT = 1.5  # a frozen Redis is answered 503 within 2 s
CONNECT_TIMEOUT = 1.0
# Connections one client (one process) may open: under gevent a burst of requests would
# otherwise open one each and keep them all; beyond it a request waits up to POOL_TIMEOUT for
# a free one (then 503).  Waiting requests (long-polls, streams) hold none.
POOL_SIZE = 16
POOL_TIMEOUT = 2.0
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def script(client: Any, text: str) -> Script | Pipelined:
    """A Lua script on ``client``, called ``(keys=..., args=...)``: on a single Redis through
    the process's auto-pipeline under gevent (``service.pipelining``), else, and on a Redis
    Cluster, redis-py's ``Script`` (the cluster client sends it to its keys' master)."""
    if isinstance(client, redis.Redis):
        return Pipelined(client, text)
    found: Script = client.register_script(text)
    return found


def is_cluster_url(url: str | None) -> bool:
    return url is not None and url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def connect(url: str) -> Any:
    """A client for ``url``: ``redis.Redis`` (redis://, rediss://, unix://) or, for the
    ``redis+cluster://`` schemes, ``RedisCluster``; both with the same timeouts."""
    options: dict[str, Any] = {
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
        # Maintenance notifications (a Redis Enterprise feature) off: while they are on, which
        # redis-py 8 makes the default, its pool stops discarding a connection that holds an
        # unread reply (a command interrupted between sending and reading), and the next
        # command on it would read that reply as its own (tests/store/test_connections.py).
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
    }
    if not is_cluster_url(url):
        size = int(os.environ.get("CHRONICLE_REDIS_CONNECTIONS") or POOL_SIZE)
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=size, timeout=POOL_TIMEOUT, **options
        )
        client = redis.Redis(connection_pool=pool)
        client.auto_close_connection_pool = True
        return client
    return cluster(url, **options)


def cluster(url: str, **options: Any) -> RedisCluster:
    scheme, rest = url.split("://", 1)
    plain = scheme.lower().replace("+cluster", "")
    netloc = urlsplit(f"{plain}://{rest}").netloc
    auth, _, hosts = netloc.rpartition("@")
    nodes = []
    for hostport in hosts.split(","):
        parsed = urlsplit(f"{plain}://{hostport}")
        nodes.append(ClusterNode(parsed.hostname or "127.0.0.1", parsed.port or 6379))
    first = f"{plain}://{auth + '@' if auth else ''}{nodes[0].host}:{nodes[0].port}"
    return RedisCluster.from_url(first, startup_nodes=nodes, **options)
