"""A delivery connects to exactly the address it checked (DNS rebinding): the resolver is a stub
whose first answer for a name differs from its later ones, as a rebinding server's would, and
the receivers are real servers on loopback."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import redis

from service import webhooks
from tests.tables.test_webhooks import valid

PUBLIC = "93.184.215.14"  # a global address; never really connected to here


class Server:
    """A loopback HTTP(S) server that records each request and answers ``status``."""

    def __init__(self, status: int = 204, tls: ssl.SSLContext | None = None) -> None:
        self.got: list[tuple[str, dict[str, str], bytes]] = []
        self.connections = 0
        got, outer = self.got, self

        class Handler(BaseHTTPRequestHandler):
            def setup(self) -> None:
                outer.connections += 1
                super().setup()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                got.append((self.path, dict(self.headers), body))
                self.send_response(status)
                self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        s.close()


def rebinding(monkeypatch: pytest.MonkeyPatch, name: str, *answers: tuple[str, int]) -> list[str]:
    """Make ``name`` resolve to ``answers[0]`` first and to ``answers[-1]`` ever after (other
    names resolve as usual); returns the log of its resolutions."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return real(host, port, *args, **kwargs)
        ip, to = answers[min(len(asked), len(answers) - 1)]
        asked.append(ip)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (ip, to))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def hook(r: redis.Redis, game_id: str, url: str) -> str:
    secret = "s3cret"
    r.hset(webhooks.hooks_key(game_id), "0", json.dumps({"url": url, "secret": secret}))
    return secret


def test_a_name_rebound_to_loopback_is_never_connected_to_loopback(
    monkeypatch: pytest.MonkeyPatch, redis_client: redis.Redis, servers: list[Server]
) -> None:
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "0")
    loopback = Server()
    servers.append(loopback)
    asked = rebinding(
        monkeypatch, "rebind.example", (PUBLIC, loopback.port), ("127.0.0.1", loopback.port)
    )
    connected: list[Any] = []

    class Recording(socket.socket):
        """Sockets of ``service.webhooks`` only: a public address is refused, not dialled."""

        def connect(self, address: Any) -> None:
            connected.append(address)
            if address[0] != "127.0.0.1":
                raise ConnectionRefusedError(address)
            super().connect(address)

    class Net:
        socket = Recording

        def __getattr__(self, name: str) -> Any:
            return getattr(socket, name)

    monkeypatch.setattr(webhooks, "socket", Net())
    hook(redis_client, "pin1", f"http://rebind.example:{loopback.port}/hook")
    with pytest.raises(webhooks.DeliveryFailed):
        webhooks.deliver(redis_client, "pin1", 0, "d-1", '{"n":1}')
    assert asked == [PUBLIC], "resolved once for the check and the connection"
    assert connected == [(PUBLIC, loopback.port)], "the connection went to the checked address"
    # the retry resolves afresh: now the answer is loopback, refused before any connection
    assert webhooks.deliver(redis_client, "pin1", 0, "d-1", '{"n":1}') == "refused target"
    assert connected == [(PUBLIC, loopback.port)]
    assert loopback.connections == 0 and loopback.got == []


def test_an_allowed_loopback_receiver_gets_the_checked_address_and_the_host(
    monkeypatch: pytest.MonkeyPatch, redis_client: redis.Redis, servers: list[Server]
) -> None:
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "1")
    receiver, trap = Server(), Server()
    servers += [receiver, trap]
    asked = rebinding(
        monkeypatch, "hook.example", ("127.0.0.1", receiver.port), ("127.0.0.1", trap.port)
    )
    secret = hook(redis_client, "pin2", f"http://hook.example:{receiver.port}/hook?seat=0")
    body = '{"delivery":"d-2"}'
    assert webhooks.deliver(redis_client, "pin2", 0, "d-2", body) == "delivered"
    assert len(asked) == 1 and trap.connections == 0
    [(path, headers, got)] = receiver.got
    assert path == "/hook?seat=0" and got == body.encode()
    assert headers["Host"] == f"hook.example:{receiver.port}"
    assert headers["Chronicle-Delivery"] == "d-2" and valid(secret, headers, got)


def test_a_redirect_is_not_followed_and_fails_the_delivery(
    monkeypatch: pytest.MonkeyPatch, redis_client: redis.Redis, servers: list[Server]
) -> None:
    receiver = Server(status=302)
    servers.append(receiver)
    hook(redis_client, "pin3", f"http://127.0.0.1:{receiver.port}/hook")
    with pytest.raises(webhooks.DeliveryFailed, match="HTTP 302"):
        webhooks.deliver(redis_client, "pin3", 0, "d-3", "{}")
    assert len(receiver.got) == 1


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``hook.test`` (it is its own CA)."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a certificate")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=hook.test", "-addext",
         "subjectAltName=DNS:hook.test", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_https_connects_to_the_checked_address_with_the_url_host_for_sni_and_certificate(
    monkeypatch: pytest.MonkeyPatch, servers: list[Server], certificate: tuple[Path, Path]
) -> None:
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "1")
    cert, key = certificate
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    names: list[str | None] = []

    def sni(sock: Any, name: str | None, ctx: Any) -> None:
        names.append(name)

    served.sni_callback = sni
    receiver, trap = Server(tls=served), Server()
    servers += [receiver, trap]
    trusted = ssl.create_default_context(cafile=str(cert))

    def send(name: str, context: ssl.SSLContext | None) -> str:
        rebinding(monkeypatch, name, ("127.0.0.1", receiver.port), ("127.0.0.1", trap.port))
        url = f"https://{name}:{receiver.port}/hook"
        return webhooks.send(url, "k", "d-4", "{}", context=context)

    assert send("hook.test", trusted) == "delivered"
    assert names == ["hook.test"] and trap.connections == 0
    [(_, headers, _)] = receiver.got
    assert headers["Host"] == f"hook.test:{receiver.port}" and valid("k", headers, b"{}")
    # the certificate is checked against the URL's host, not the address connected to
    with pytest.raises(webhooks.DeliveryFailed, match="SSLCertVerificationError"):
        send("other.test", trusted)
    # and without the test's CA, the self-signed certificate is refused
    with pytest.raises(webhooks.DeliveryFailed, match="SSLCertVerificationError"):
        send("hook.test", None)
    assert len(receiver.got) == 1
