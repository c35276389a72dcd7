"""Serving the API over real HTTP inside a test session, two ways.

- ``served_api``: the stack `chronicle serve` runs, gunicorn with ``service.serving.Worker``
  (gevent + ``service.http1``), started from ``service.serving.gunicorn_command`` so that a
  change of the serving stack reaches the end-to-end tests without a change here.  The app
  configures itself from the environment, as in production; the tests reach it only through
  HTTP.
- ``serving``: an app object of the test's own (its settings, monkeypatched modules, custom
  limits) on threaded werkzeug in this process, for the tests that need the app's internals.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import requests
from flask import Flask
from werkzeug.serving import make_server

from chronicle.supervise import die_with_parent
from service.metrics import MULTIPROC_ENV, prepare_multiproc_dir
from service.redis_server import free_port
from service.serving import gunicorn_command

# The app from the environment applies the default rate limits and quotas; the tests create
# games and requests far faster than a person, and the limits' own tests turn them on.
LIMITS_OFF = {
    "CHRONICLE_RATE_LIMIT": "off",
    "CHRONICLE_RATE_LIMIT_ADDRESS": "off",
    "CHRONICLE_CREATE_QUOTA": "off",
    "CHRONICLE_IMPORT_QUOTA": "off",
}
START_SECONDS = 30.0


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


def api_env(redis_url: str, admin_token: str, folder: Path, **extra: str) -> dict[str, str]:
    """This process's environment (the tests' webhook settings among it) for a served API on
    ``redis_url``: no Redis, queue or token of the caller's leaks in, the limits are off, and the
    processes share one folder of metrics, as under `chronicle serve`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "QUEUE_REDIS_URL", "ADMIN_TOKEN", MULTIPROC_ENV)
    }
    metrics = folder / "metrics"
    prepare_multiproc_dir(metrics)
    env.update(
        REDIS_URL=redis_url,
        ADMIN_TOKEN=admin_token,
        CHRONICLE_DATA_DIR=str(folder),
        PYTHONUNBUFFERED="1",
        **{MULTIPROC_ENV: str(metrics.resolve())},
        **LIMITS_OFF,
    )
    env.update(extra)
    return env


@contextmanager
def served_api(
    env: Mapping[str, str], folder: Path, cwd: Path, processes: int = 2, port: int | None = None
) -> Iterator[str]:
    """The base URL of gunicorn serving ``create_app()`` with ``env`` (see ``api_env``) until
    the block ends; its output goes to ``folder/api.log``, quoted if it does not come up.

    Two processes, as `chronicle serve` starts on a two-core machine: a test's requests may
    land on either, as a player's do."""
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    log = folder / "api.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            gunicorn_command(f"127.0.0.1:{port}", processes),
            env=dict(env),
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent(os.getpid()),  # a killed test run leaves no server
        )
    try:
        _wait_ready(proc, base, log)
        yield base
    finally:
        stop_gracefully(proc, 15)


def _wait_ready(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            if requests.get(base + "/readyz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the API at {base} did not come up ({log}):\n{tail}")
        time.sleep(0.05)


def stop_gracefully(
    proc: subprocess.Popen[bytes], timeout: float, sig: signal.Signals = signal.SIGTERM
) -> None:
    """A process's own graceful stop (``sig``: gunicorn and nginx finish their answers, `serve`
    stops its children), then a kill if it takes longer than ``timeout`` seconds."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
