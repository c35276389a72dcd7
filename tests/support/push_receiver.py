"""A real push service for the tests, on loopback: it takes what Chronicle POSTs to a browser's
endpoint and checks it as a push service and the browser would.

- ``subscription()`` makes a browser's side of a subscription: a P-256 key pair and a 16-byte
  auth secret, and an endpoint here; it answers what ``PushSubscription.toJSON()`` gives.
- A POST to an endpoint must carry ``Authorization: vapid t=<JWT>,k=<key>`` (RFC 8292): the
  JWT's ES256 signature verifies against ``k``, its ``aud`` is this server's origin, its
  ``exp`` is in the future (and at most 24 hours away), and it has a ``sub``.  The body must be
  ``Content-Encoding: aes128gcm`` and decrypt (``http_ece``) with the subscription's private
  key and auth secret (RFC 8291).  A request that passes is kept (``received``) and answered
  201, or what ``answer(sid, status)`` said (410: the browser unsubscribed); one that fails
  is answered 400 and its reason kept (``refused``).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Refused(Exception):
    """What a push service would refuse the request for."""


def verify_vapid(authorization: str, origin: str, now: float) -> dict[str, Any]:
    """The claims of a valid ``vapid t=...,k=...`` header for ``origin``; ``Refused`` if not."""
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise Refused(f"not a vapid authorization: {scheme!r}")
    parts = dict(item.strip().split("=", 1) for item in rest.split(",") if "=" in item)
    if "t" not in parts or "k" not in parts:
        raise Refused("t= and k= are required")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
    head, claims_text, signature = parts["t"].split(".")
    header = json.loads(unb64(head))
    if header.get("alg") != "ES256":
        raise Refused(f"alg {header.get('alg')!r}")
    raw = unb64(signature)
    if len(raw) != 64:
        raise Refused("an ES256 signature is 64 bytes (r || s)")
    der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
    try:
        key.verify(der, f"{head}.{claims_text}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Refused("the JWT's signature does not verify with k") from None
    claims: dict[str, Any] = json.loads(unb64(claims_text))
    if claims.get("aud") != origin:
        raise Refused(f"aud {claims.get('aud')!r} is not {origin!r}")
    exp = int(claims.get("exp", 0))
    if not now < exp <= now + 24 * 3600:
        raise Refused("exp is not in the next 24 hours")
    if not claims.get("sub"):
        raise Refused("no sub")
    claims["k"] = parts["k"]
    return claims


@dataclass
class Browser:
    """The browser's side of one subscription."""

    sid: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes

    def public(self) -> str:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64(point)


@dataclass
class Received:
    sid: str
    payload: dict[str, Any]
    claims: dict[str, Any]
    headers: dict[str, str]


@dataclass
class PushService:
    origin: str = ""
    browsers: dict[str, Browser] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def subscription(self) -> dict[str, Any]:
        """A new subscription, as ``PushSubscription.toJSON()`` gives it."""
        with self.lock:
            sid = f"s{len(self.browsers) + 1}"
            browser = Browser(sid, ec.generate_private_key(ec.SECP256R1()), os.urandom(16))
            self.browsers[sid] = browser
        return {
            "endpoint": f"{self.origin}/push/{sid}",
            "expirationTime": None,
            "keys": {"p256dh": browser.public(), "auth": b64(browser.auth)},
        }

    def answer(self, sid_or_endpoint: str, status: int) -> None:
        self.answers[sid_or_endpoint.rsplit("/", 1)[-1]] = status

    def to(self, endpoint: str) -> list[Received]:
        sid = endpoint.rsplit("/", 1)[-1]
        with self.lock:
            return [r for r in self.received if r.sid == sid]

    def wait_for(self, endpoint: str, count: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(endpoint)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(
            f"{len(self.to(endpoint))} push messages, not {count}; refused: {self.refused}"
        )

    def take(self, sid: str, headers: dict[str, str], body: bytes) -> int:
        """Check and decrypt one push request; the status to answer."""
        browser = self.browsers.get(sid)
        if browser is None:
            return 404
        try:
            claims = verify_vapid(headers.get("authorization", ""), self.origin, time.time())
            if headers.get("content-encoding") != "aes128gcm":
                raise Refused(f"content-encoding {headers.get('content-encoding')!r}")
            if not headers.get("ttl", "").isdigit():
                raise Refused("no TTL")
            clear = http_ece.decrypt(
                body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
            )
            payload = json.loads(clear)
        except (Refused, http_ece.ECEException, ValueError, KeyError, TypeError) as exc:
            with self.lock:
                self.refused.append(f"{sid}: {type(exc).__name__}: {exc}")
            return 400
        status = self.answers.get(sid, 201)
        if status < 300:
            with self.lock:
                self.received.append(Received(sid, payload, claims, headers))
        return status


@contextmanager
def push_service() -> Iterator[PushService]:
    service = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            sid = self.path.rsplit("/", 1)[-1] if self.path.startswith("/push/") else ""
            status = service.take(sid, headers, body)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.origin = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
