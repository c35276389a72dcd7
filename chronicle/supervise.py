"""`chronicle serve`'s supervisor: it starts the embedded Redis, the API (gunicorn) and the
workers, restarts whichever dies, and takes them all down when it ends, however it ends.

- **Restart, never cascade.**  A child that exits without being asked to is logged (its exit
  code or signal) and started again after a backoff (1 s, doubling up to 30 s; back to 1 s once
  it has run for 60 s).  The others keep running: the API answers 503 while Redis is away and
  recovers by itself, and workers reconnect.
- **Children end with the supervisor.**  Each child is started with ``PR_SET_PDEATHSIG``
  (Linux ``prctl``, through ctypes, in the child between fork and exec): when the supervisor
  dies, even by SIGKILL, the kernel sends the child SIGTERM, and each ends cleanly (Redis
  flushes its append-only file, gunicorn stops its workers, which also watch their parent).
  A supervisor that died before the child set it is caught too: the child checks its parent
  right after.  On a normal stop (SIGINT/SIGTERM) the supervisor stops the API and the workers
  first and Redis last.
- **One Redis per data folder.**  The data folder is locked (``fcntl.flock`` on
  ``<data>/chronicle.lock``, which names the holder's pid).  The lock's descriptor is inherited
  by the embedded Redis, so the folder stays locked until the last of them is gone, and a
  second `chronicle serve` on the same folder is refused with a clear message.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1
BACKOFF_FIRST, BACKOFF_MAX, HEALTHY_AFTER = 1.0, 30.0, 60.0


def say(message: str) -> None:
    print(f"chronicle: {message}", file=sys.stderr, flush=True)


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets ``sig`` when its parent dies (Linux; elsewhere the
    supervisor's own stop handling is all there is)."""

    def preexec() -> None:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


def forks_die_with_this_process() -> None:
    """Every process this one forks from now on (RQ's scheduler) gets SIGTERM when this one
    dies, even by SIGKILL: a supervised child must not leave children of its own behind."""
    parent = os.getpid()

    def child() -> None:
        with contextlib.suppress(Exception):
            die_with_parent(parent)()

    os.register_at_fork(after_in_child=child)


class FolderInUse(RuntimeError):
    pass


def lock_folder(folder: Path, patience: float = 3.0) -> int:
    """Lock ``folder`` for this serve (the returned descriptor holds it; pass it to children
    that must hold it too).  Raises ``FolderInUse`` naming the holder, after ``patience``
    seconds (a Redis that is ending after its supervisor died still holds it briefly)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "chronicle.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise
        if time.monotonic() < deadline:
            time.sleep(0.1)
            continue
        os.close(fd)
        holder = path.read_text().strip() or "another process"
        raise FolderInUse(
            f"the data folder {folder} is in use by another chronicle serve ({holder}); "
            "stop it first, or give this one another --data-dir"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()}\n".encode())
    return fd


def raise_fd_limit() -> int:
    """Every connection is a descriptor: take the hard limit (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft


@dataclass
class Child:
    """One supervised process: how to start it, and its current run."""

    name: str
    start: Callable[[], subprocess.Popen[Any]]
    proc: subprocess.Popen[Any] | None = None
    started_at: float = 0.0
    backoff: float = BACKOFF_FIRST
    restart_at: float | None = None
    restarts: int = field(default=0)

    def run(self) -> None:
        self.proc = self.start()
        self.started_at = time.monotonic()
        self.restart_at = None


def describe(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


class Supervisor:
    def __init__(self) -> None:
        self.children: list[Child] = []
        self.stopping = False

    def add(self, name: str, start: Callable[[], subprocess.Popen[Any]]) -> Child:
        child = Child(name, start)
        child.run()
        self.children.append(child)
        return child

    def watch(self, every: float = 0.2) -> None:
        """Until SIGINT/SIGTERM: restart children that exit, with backoff."""

        def stop(signum: int, frame: Any) -> None:
            self.stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while not self.stopping:
            time.sleep(every)
            now = time.monotonic()
            for child in self.children:
                if child.restart_at is not None:
                    if now >= child.restart_at and not self.stopping:
                        say(f"restarting {child.name} (restart {child.restarts})")
                        child.run()
                    continue
                assert child.proc is not None
                code = child.proc.poll()
                if code is None:
                    if now - child.started_at > HEALTHY_AFTER:
                        child.backoff = BACKOFF_FIRST
                    continue
                child.restarts += 1
                say(
                    f"{child.name} (pid {child.proc.pid}) {describe(code)}; "
                    f"restart in {child.backoff:g} s"
                )
                child.restart_at = now + child.backoff
                child.backoff = min(child.backoff * 2, BACKOFF_MAX)

    def stop(self, last: Child | None = None, timeout: float = 10.0) -> None:
        """SIGTERM the children (``last`` after all others), then SIGKILL what lingers."""
        order = [c for c in self.children if c is not last] + ([last] if last else [])
        first = [c for c in order if c is not last]
        for group in (first, [last] if last else []):
            for child in group:
                if child.proc is not None and child.proc.poll() is None:
                    child.proc.send_signal(signal.SIGTERM)
            for child in group:
                if child.proc is None:
                    continue
                try:
                    child.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    child.proc.kill()
                    child.proc.wait()
