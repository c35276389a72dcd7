"""The API's gunicorn configuration (``gunicorn -c python:service.gunicorn_conf``, as
``chronicle serve`` and the Docker image run it): its limits, time limits and hooks.

**Limits.**  ``service.http.edge`` answers a URL over 4 KB (414) and headers over 8 KB (431)
in the contract's JSON shape; gunicorn's own limits are set above those, so that the app's
answer is what a client meets, and what still reaches them (a request line over 8,190 bytes,
more than 200 fields, one field over 16 KB) is answered in JSON by ``service.serving.Worker``.
gunicorn refuses on its own, strictly (RFC 9112): bare LF or CR in a head, obsolete line
folding, ``_`` in a field name (``header_map = "drop"``), a malformed ``Content-Length``, both
``Content-Length`` and ``Transfer-Encoding``, a coding other than chunked (501), malformed
chunk sizes and extensions.

**Time limits.**  ``keepalive`` is the header timeout: gunicorn's gevent worker gives each
request's line and headers (and the idle wait before them on a kept-alive connection)
``CHRONICLE_HEADER_TIMEOUT`` seconds, then closes the connection.  The body and io timeouts
are the app's (``service.http.edge``).  ``timeout`` is gunicorn's: a worker silent that long
(a blocked loop) is killed and restarted by the master.

**Hooks.**  ``on_starting`` empties ``PROMETHEUS_MULTIPROC_DIR`` before any API process
starts (values of an earlier run would add up with this run's); ``child_exit`` forgets the
live gauges of an API process that exited; ``post_worker_init`` freezes what the loaded app
made (routes, schemas, the games' tables) out of the collector's generations, so that a full
collection does not walk them while a move waits.  This module does not import the metrics'
values: the master process must not create value files itself.
"""

from __future__ import annotations

import gc
import math
import os
from pathlib import Path
from typing import Any

from prometheus_client import multiprocess

from service.serving import WORKER_CONNECTIONS, timeouts

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

worker_class = "service.serving.Worker"
worker_connections = int(os.environ.get("CHRONICLE_WORKER_CONNECTIONS") or WORKER_CONNECTIONS)
keepalive = max(1, math.ceil(timeouts()["header"]))  # gunicorn counts whole seconds
timeout = 30
graceful_timeout = 5
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16384
header_map = "drop"
control_socket_disable = True
accesslog = None  # the app writes one JSON line per request (``chronicle.request``)


def on_starting(server: Any) -> None:
    if value := os.environ.get(MULTIPROC_ENV):
        path = Path(value)
        path.mkdir(parents=True, exist_ok=True)
        for f in path.glob("*.db"):
            f.unlink(missing_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    if value := os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(worker.pid, value)


def post_worker_init(worker: Any) -> None:
    gc.collect()
    gc.freeze()
