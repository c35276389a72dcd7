"""A real SMTP server for tests: aiosmtpd on loopback, each message kept to be read back."""

from __future__ import annotations

import email
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller

from service.redis_server import free_port


@dataclass
class Inbox:
    """What the server received, in order."""

    messages: list[Message] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content)
        message["X-Envelope-To"] = ",".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def wait_for(self, to: str, count: int = 1, timeout: float = 20.0) -> Message:
        """The ``count``-th message to ``to``, once it has arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [m for m in self.messages if m["To"] == to]
            if len(found) >= count:
                return found[count - 1]
            time.sleep(0.05)
        raise AssertionError(f"no message #{count} to {to} within {timeout} s")

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


def body_of(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def code_in(message: Message) -> str:
    """The sign-in code of a sign-in mail's link (``.../signin#code=<code>``)."""
    found = re.search(r"/signin#code=([A-Za-z0-9_.\-]+)", body_of(message))
    assert found, body_of(message)
    return found.group(1)


@contextmanager
def smtp_server() -> Iterator[Inbox]:
    inbox = Inbox(port=free_port())
    controller = Controller(inbox, hostname="127.0.0.1", port=inbox.port)
    controller.start()
    try:
        yield inbox
    finally:
        controller.stop()
