"""A stack for the tests of accounts: its own Redis, a real SMTP server, the served API and a
worker that mails through it (the session's worker, which mails nowhere, never sees these
jobs), with the public address at ``localhost`` so that passkeys (which need a host name,
not an address) work in Chromium too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from service.redis_server import RedisServer, free_port
from tests.conftest import ADMIN_TOKEN, ROOT, running_worker
from tests.support.server import api_env, served_api
from tests.support.smtp import Inbox, smtp_server


@dataclass(frozen=True)
class Stack:
    base: str  # http://127.0.0.1:<port>, for requests
    public: str  # http://localhost:<port>, the address in mail and the passkeys' origin
    inbox: Inbox
    redis_url: str


@contextmanager
def accounts_stack(folder: Path, **extra: str) -> Iterator[Stack]:
    """The stack; ``extra``: more environment for the API and the worker alike."""
    (folder / "redis").mkdir(exist_ok=True)
    server = RedisServer(folder / "redis", port=free_port(), persistent=False)
    url = server.start()
    try:
        with smtp_server() as inbox:
            port = free_port()
            public = f"http://localhost:{port}"
            mailing = {"CHRONICLE_SMTP_URL": inbox.url, "CHRONICLE_PUBLIC_URL": public}
            # the tests sign in far more often than a person, all from one address
            limits = {"CHRONICLE_SIGNIN_LIMITS": "email_client=1000/3600"}
            env = api_env(url, ADMIN_TOKEN, folder, **mailing, **limits, **extra)
            with (
                served_api(env, folder, ROOT, port=port) as base,
                running_worker(url, **{**mailing, **extra}),
            ):
                yield Stack(base, public, inbox, url)
    finally:
        server.stop()
