"""Mail to people: queued by the API, sent by the worker (the same path as every job).

``CHRONICLE_SMTP_URL`` names the server: ``smtp://host:port`` (plain, or ``?starttls=1``),
``smtps://host:port`` (TLS from the start), with ``user:password@`` when it wants a login.
The sender is ``CHRONICLE_MAIL_FROM`` (default ``Chronicle <chronicle@localhost>``).  With no
server set (a developer's `chronicle serve`), the worker prints each message to its console
instead, the address masked, so that signing in by email works with no set-up.

The address is a job argument (RQ keeps it in Redis until the job is done, ``result_ttl=0``),
never in a log line: the job's description is just ``mail``, and a failure is re-raised
without the server's text (which names the recipient).
"""

from __future__ import annotations

import os
import smtplib
import ssl
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from rq import Queue
from rq.serializers import JSONSerializer

QUEUE = "mail"
TIMEOUT = 20.0  # seconds to reach and talk to the SMTP server


def smtp_url() -> str | None:
    return os.environ.get("CHRONICLE_SMTP_URL") or None


def sender() -> str:
    return os.environ.get("CHRONICLE_MAIL_FROM") or "Chronicle <chronicle@localhost>"


def masked(address: str) -> str:
    """``a***@example.com``: enough for a developer to tell two messages apart."""
    local, _, domain = address.partition("@")
    return f"{local[:1]}***@{domain}"


class Outbox:
    """Where the API leaves mail for the worker: RQ's ``mail`` queue."""

    def __init__(self, connection: redis.Redis) -> None:
        self.queue = Queue(QUEUE, connection=connection, serializer=JSONSerializer)

    def send(self, to: str, subject: str, text: str) -> None:
        self.queue.enqueue(
            "service.mail.deliver",
            to,
            subject,
            text,
            description="mail",
            result_ttl=0,
            failure_ttl=24 * 3600,
        )


class MailFailed(RuntimeError):
    """A message the server did not take (its reason without the recipient)."""


def deliver(to: str, subject: str, text: str) -> None:
    """The job: send one message (or print it, masked, when no server is set)."""
    url = smtp_url()
    if url is None:
        print(f"[mail to {masked(to)}] {subject}\n{text}\n", flush=True)
        return
    message = EmailMessage()
    message["From"] = sender()
    message["To"] = to
    message["Subject"] = subject
    message.set_content(text)
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port
    starttls = parse_qs(parts.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
    try:
        if parts.scheme == "smtps":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                host, port or 465, timeout=TIMEOUT, context=ssl.create_default_context()
            )
        else:
            client = smtplib.SMTP(host, port or 25, timeout=TIMEOUT)
        with client:
            if starttls:
                client.starttls(context=ssl.create_default_context())
            if parts.username:
                client.login(unquote(parts.username), unquote(parts.password or ""))
            client.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:
        why = type(exc).__name__
        raise MailFailed(f"the SMTP server did not take the message ({why})") from None
