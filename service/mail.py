"""Mail to people: queued by the API, sent by the worker (the same path as every job).

``CHRONICLE_SMTP_URL`` names the server: ``smtp://host:port`` (plain, or ``?starttls=1``),
``smtps://host:port`` (TLS from the start), with ``user:password@`` when it wants a login.
The sender is ``CHRONICLE_MAIL_FROM`` (default ``Chronicle <chronicle@localhost>``).  With no
server set (a developer's `chronicle serve`), the worker prints each message to its console
instead, the address masked, so that signing in by email works with no set-up.

Notices to people (``service.notices``) send from their own job with ``send_message``: a
text and an HTML part and extra headers (``List-Unsubscribe``).

The address is a job argument (RQ keeps it in Redis until the job is done, ``result_ttl=0``),
never in a log line: the job's description is just ``mail``, and a failure is re-raised
without the server's text (which names the recipient).
"""

from __future__ import annotations

import os
import smtplib
import ssl
from collections.abc import Mapping
from email import policy
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from rq import Queue
from rq.serializers import JSONSerializer

QUEUE = "mail"
TIMEOUT = 20.0  # seconds to reach and talk to the SMTP server
# RFC 5322's limit: a header such as List-Unsubscribe (one long URI) stays as it is instead of
# being folded into encoded words, which mail programs would not read as a URI
LONG_LINES = policy.default.clone(max_line_length=998)


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
    send_message(to, subject, text)


def send_message(
    to: str,
    subject: str,
    text: str,
    html: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Send one message now: a text part, an HTML alternative if given, and ``headers`` beside
    From, To and Subject (or print the text, the address masked, when no server is set)."""
    url = smtp_url()
    if url is None:
        print(f"[mail to {masked(to)}] {subject}\n{text}\n", flush=True)
        return
    message = EmailMessage(policy=LONG_LINES)
    message["From"] = sender()
    message["To"] = to
    message["Subject"] = subject
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    # after the parts: setting them clears (and moves) Content-* headers (Content-Language)
    for name, value in (headers or {}).items():
        message[name] = value
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
