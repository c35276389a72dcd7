"""How the API is served: gunicorn with its gevent worker, adapted (``Worker``).

**Why gevent.**  A long-poll, a stream or a client that sends its headers slowly spends almost
all its life waiting.  Under a thread per request (gunicorn's ``gthread``, 8 threads a
process) each such wait holds a thread: 16 spectators long-polling filled a two-process server
and everyone else waited (issue 10).  Under gevent a waiting connection is a greenlet (a few
KB), the stdlib is patched at the start of each worker process (before the app is imported:
gunicorn's ``GeventWorker.patch``, run first in ``init_process``), so redis-py, the locks and
conditions of ``service.stream`` and the sockets all yield instead of blocking.  The figures
that decided it are on the Benchmarks page (``docs/benchmarks.md``, ``python -m bench.edge``).

What this class changes in gunicorn's worker:

- **Its connections are served by ``service.http1``**: reading each request, refusing what is
  malformed or too large in the contract's JSON error shape, and writing the answer, within
  time limits (``timeouts()``): a request's line and headers must arrive within
  ``CHRONICLE_HEADER_TIMEOUT`` seconds (default 10) of the connection or of the previous
  response, its body within ``CHRONICLE_BODY_TIMEOUT`` (60) of its head, and no read of a body
  or write of an answer may wait over ``CHRONICLE_IO_TIMEOUT`` (30) for the client.
  gunicorn keeps the processes: the master, forking, signals, the worker timeout, graceful
  stops (a kept-alive connection closes after its current answer).
- **Balanced accepts** (``service.balance``): a new connection goes to the API process
  holding fewest.

This module imports gunicorn, gevent and modules of the service that import nothing else of
it (``service.http1``, ``service.balance``): gunicorn's master imports it, and the service
itself must first be imported in the worker, after the patch.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping
from typing import Any

from gunicorn import util
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service import http1
from service.balance import Balance, BalancedServer, Slots

WORKER_CONNECTIONS = 10_000
TIMEOUT_SETTINGS = {  # Timeouts' field -> its environment variable
    "header": "CHRONICLE_HEADER_TIMEOUT",
    "body": "CHRONICLE_BODY_TIMEOUT",
    "io": "CHRONICLE_IO_TIMEOUT",
}


def timeouts(env: Mapping[str, str] = os.environ) -> http1.Timeouts:
    """The connections' time limits from the environment (seconds, > 0), else the defaults.
    Read in each API process at its start: a bad value stops it with the variable named."""
    given = {}
    for field, name in TIMEOUT_SETTINGS.items():
        raw = env.get(name)
        if raw:
            try:
                value = float(raw)
            except ValueError:
                value = float("nan")
            if not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a number of seconds above 0, not {raw!r}")
            given[field] = value
    return http1.Timeouts(**given)


SLOTS = Slots()  # made in gunicorn's master, which imports this module: shared by its children


class Worker(GeventWorker):
    """gunicorn's gevent worker with a header timeout, JSON errors and balanced accepts.

    Once the app is loaded its objects (routes, schemas, the OpenAPI document, the games'
    tables) live as long as the process: ``gc.freeze`` takes them out of the collector's
    generations, so a full collection no longer walks them while a move waits (it is the
    move path's p99).  New connections go to the API process holding fewest
    (``service.balance``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slot = SLOTS.assign(self)  # in the master, before the fork

    def init_process(self) -> None:
        self.timeouts = timeouts()
        self.balance: Balance | None = None
        if self.cfg.workers > 1 and not os.environ.get("CHRONICLE_UNBALANCED"):
            self.balance = Balance(SLOTS, self.slot)
            self.balance.beat()
            BalancedServer.balance = self.balance
            ggevent.StreamServer = BalancedServer  # what gunicorn's ``run`` serves with, here
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        """A connection, served by ``service.http1``: gunicorn's own parser and response
        writer were a large share of the process's CPU under moves; with this, ``/healthz``
        and a move cost less server CPU (the figures: ``docs/benchmarks``)."""
        if self.balance is not None:
            self.balance.opened()
        try:
            name = listener.getsockname()
            server = (str(name[0]), str(name[1])) if isinstance(name, tuple) else (str(name), "")
            conn = http1.Connection(
                self.wsgi, client, addr, server, self._alive, self.timeouts, self.log,
                counted=self._counted,
            )  # fmt: skip
            conn.serve()
        except OSError:
            pass  # the client went away: nothing to answer
        except Exception:
            self.log.exception("Error serving a connection")
        finally:
            util.close(client)
            if self.balance is not None:
                self.balance.closed()

    def _alive(self) -> bool:
        return bool(self.alive)

    def _counted(self) -> None:
        """A request read: gunicorn's ``--max-requests`` restarts the process after that many
        (its connections close after their current answers)."""
        self.nr += 1
        if self.nr >= self.max_requests and self._alive():
            self.log.info("Autorestarting worker after current request.")
            self.alive = False

    def notify(self) -> None:
        super().notify()
        if self.balance is not None:
            self.balance.beat()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        gc.collect()
        gc.freeze()


def gunicorn_command(
    bind: str,
    processes: int,
    worker_class: str = "gevent",
    threads: int = 8,
    extra: list[str] | None = None,
) -> list[str]:
    """The command that serves ``service.app:create_app()``: ``gevent`` (this module's worker,
    the default) or ``gthread`` (a thread per request; kept for comparison in ``bench``)."""
    args = [
        sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(processes),
        "--timeout", "30", "--graceful-timeout", "5", "--no-control-socket",
    ]  # fmt: skip
    if worker_class == "gevent":
        connections = os.environ.get("CHRONICLE_WORKER_CONNECTIONS") or str(WORKER_CONNECTIONS)
        args += ["--worker-class", "service.serving.Worker", "--worker-connections", connections]
    else:
        args += ["--worker-class", "gthread", "--threads", str(threads)]
    return [*args, *(extra or []), "service.app:create_app()"]


def main(argv: list[str] | None = None) -> None:
    """``python -m service.serving [--bind H:P] [--workers N]``: the API alone, served as
    `chronicle serve` serves it (the Docker image's command)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m service.serving", description=main.__doc__)
    parser.add_argument("--bind", default="0.0.0.0:8000")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    command = gunicorn_command(args.bind, args.workers)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
