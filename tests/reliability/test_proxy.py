"""The nginx configuration of ``docker/nginx.conf`` in front of a real API (issue 33).

nginx runs the committed file with only its upstream address, its listen port and its file
paths rewritten (``configured``), so what is checked is what an operator deploys.  The API is
gunicorn as `chronicle serve` runs it, on a Redis of its own, told to trust nginx
(``CHRONICLE_TRUSTED_PROXIES=127.0.0.1``).  Clients connect from other loopback addresses
(127.0.0.2 and up, bound as the source address) so that nginx, the service and the limits
per address can tell them apart from nginx itself.

Skipped only when there is no ``nginx`` binary (``scripts/setup.sh`` installs Debian's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from requests.adapters import HTTPAdapter

from service.redis_server import free_port
from tests.conftest import ADMIN_TOKEN, ROOT
from tests.reliability.served import alive, descendants
from tests.reliability.stack import Stack, wait_until
from tests.support.client import Client
from tests.support.server import stop_gracefully

CONF = ROOT / "docker" / "nginx.conf"
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
)
pytestmark = pytest.mark.skipif(
    NGINX is None, reason="no nginx binary (as root, scripts/setup.sh installs it)"
)

CONN_CAP = 64  # limit_conn in docker/nginx.conf
SMALL = 64 * 1024  # client_max_body_size there, and the service's MAX_BODY
_FILE_DIRECTIVE = re.compile(r"^(\s*(?:pid|error_log|access_log|\w+_temp_path)\s+)(/\S+?)(;|\s)")


def configured(text: str, api_port: int, port: int, prefix: Path) -> str:
    """The committed configuration with the upstream on ``api_port``, the listener on
    127.0.0.1:``port`` and every file under ``prefix``: nothing else changes."""
    out, upstreams, listens = [], 0, 0
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if re.match(r"\s*server\s+127\.0\.0\.1:8000;", code):
            line, upstreams = line.replace("127.0.0.1:8000", f"127.0.0.1:{api_port}"), upstreams + 1
        elif re.match(r"\s*listen\s", code):
            line, listens = (
                re.sub(r"listen\s+\S+?;", f"listen 127.0.0.1:{port};", line),
                listens + 1,
            )
        else:
            line = _FILE_DIRECTIVE.sub(lambda m: m[1] + str(prefix / Path(m[2]).name) + m[3], line)
        out.append(line)
    assert (upstreams, listens) == (1, 1), "the file has changed shape: update configured()"
    result = "\n".join(out) + "\n"
    live = [ln.split("#", 1)[0] for ln in result.splitlines()]
    assert not [ln for ln in live if re.search(r"\s/(var|run|etc)/", ln)], "a path left"
    return result


class SourceAdapter(HTTPAdapter):
    """Connections from a given loopback address (the proxy sees a client that is not itself)."""

    def __init__(self, source: str) -> None:
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)


def session_from(source: str, session: requests.Session | None = None) -> requests.Session:
    s = session or requests.Session()
    s.mount("http://", SourceAdapter(source))
    return s


@dataclass
class Proxied:
    stack: Stack
    api_log: Path
    base: str  # nginx
    port: int
    prefix: Path

    def client(self, source: str) -> Client:
        api = Client(self.base)
        session_from(source, api.http)
        return api

    def raw(self, source: str, request: bytes, timeout: float = 5) -> socket.socket:
        """A connection from ``source`` to nginx with ``request`` sent."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout, (source, 0))
        sock.sendall(request)
        return sock

    def service_lines(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.api_log.read_text().splitlines() if x.startswith("{")]


def head_of(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and what came of the body so far, of the answer on ``sock``."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {buf!r}"
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return int(lines[0].split()[1]), headers, rest


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    tmp = tmp_path_factory.mktemp("proxy")
    with ExitStack() as cleanup:
        stack = Stack(tmp)
        cleanup.callback(stack.close)
        api, api_base = stack.api(
            processes=1,
            CHRONICLE_TRUSTED_PROXIES="127.0.0.1",
            CHRONICLE_WAITS_PER_ADDRESS="off",  # nginx's cap on connections is the one tested
        )
        # nginx's own folder outside pytest's (mode 0700 there): run as root, its workers are
        # "nobody" and write the request bodies they buffer to a folder under it.
        prefix = Path(tempfile.mkdtemp(prefix="chronicle-nginx-"))
        cleanup.callback(shutil.rmtree, prefix, True)
        prefix.chmod(0o755)
        port = free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(configured(CONF.read_text(), int(api_base.rsplit(":", 1)[1]), port, prefix))
        out = (prefix / "nginx.out").open("wb")
        cleanup.callback(out.close)
        assert NGINX is not None
        proc = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-e", str(prefix / "startup.log"), "-c", str(conf),
             "-g", "daemon off;"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        cleanup.callback(_stop, proc)
        base = f"http://127.0.0.1:{port}"

        def up() -> bool:
            assert proc.poll() is None, (prefix / "nginx.out").read_text()
            with suppress(requests.RequestException):
                return requests.get(base + "/healthz", timeout=1).status_code == 200
            return False

        wait_until(up, 20, "nginx did not come up")
        yield Proxied(stack, api.log, base, port, prefix)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """nginx's master and its workers, by their pids."""
    workers = descendants(proc.pid)
    stop_gracefully(proc, 10)
    for pid in workers:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def new_game(api: Client) -> tuple[str, list[str], int]:
    game = api.create(
        "artus", [{"name": "a"}, {"name": "b"}], options={"rules": "basic", "undo": "turn"}
    )
    return game["id"], [s["token"] for s in game["seats"]], game["version"]


def events(response: requests.Response) -> Iterator[tuple[str, Any, float]]:
    """Server-Sent Events as they are read: (event, data, time.monotonic() when read)."""
    buf = b""
    for chunk in response.iter_content(chunk_size=None):
        buf += chunk
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            fields = dict(
                line.split(": ", 1) for line in block.decode().split("\n") if ": " in line
            )
            if "event" in fields:
                yield fields["event"], json.loads(fields.get("data", "null")), time.monotonic()


def test_a_game_is_played_and_watched_through_the_proxy(proxied: Proxied) -> None:
    api = proxied.client("127.0.0.2")
    gid, tokens, version = new_game(api)
    assert api.summary(gid)["version"] == version

    # the web client's way: a ticket, then the stream with it in the URL
    r = api.post(f"/api/v1/games/{gid}/stream-ticket", {}, tokens[0])
    assert r.status_code == 200, r.text
    ticket = r.json()["ticket"]
    stream = api.http.get(
        f"{proxied.base}/api/v1/games/{gid}/stream",
        params={"ticket": ticket},
        headers={"Accept-Encoding": "gzip"},
        stream=True,
        timeout=5,
    )
    with stream:
        assert stream.status_code == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert "Content-Encoding" not in stream.headers  # never gzipped: that would buffer
        assert stream.headers["Server"] == "nginx"  # no version
        frames = events(stream)
        kind, data, _ = next(frames)
        assert kind == "status" and data["version"] == version

        seat = next(i for i, t in enumerate(tokens) if api.actions(gid, t)["actions"])
        action = api.actions(gid, tokens[seat])["actions"][0]
        sent = time.monotonic()
        r = api.act(gid, tokens[seat], action, version)
        assert r.status_code == 201, r.text
        moved = r.json()["version"]
        kind, data, at = next(frames)
        assert kind == "events" and data["version"] == moved
        assert at - sent < 1.0, f"the move's frame took {at - sent:.2f} s through nginx"

    # nginx's log has the stream's path, never its ticket
    access = (proxied.prefix / "access.log").read_text()
    assert f"/api/v1/games/{gid}/stream" in access and ticket not in access
    assert '"client":"127.0.0.2"' in access


def test_the_service_sees_the_client_not_the_proxy(proxied: Proxied) -> None:
    api = proxied.client("127.0.0.2")
    gid, _, _ = new_game(api)
    spoofed = {"X-Request-ID": "proxy-xff-1", "X-Forwarded-For": "203.0.113.9"}
    r = api.http.get(f"{proxied.base}/api/v1/games/{gid}", headers=spoofed, timeout=5)
    assert r.status_code == 200 and r.headers["X-Request-ID"] == "proxy-xff-1"
    lines = wait_until(
        lambda: [x for x in proxied.service_lines() if x.get("request_id") == "proxy-xff-1"],
        5,
        "no request log line of the service",
    )
    # nginx's address is trusted, so the client is what nginx wrote; what the client wrote
    # itself was replaced
    assert lines[0]["client"] == "127.0.0.2", lines[0]


def test_bodies_over_the_limits_stop_at_the_proxy(proxied: Proxied) -> None:
    api = proxied.client("127.0.0.2")
    pad = {"game": "artus", "players": [{"name": "a"}, {"name": "b"}]}

    # 100 KB to a plain route: refused by nginx (the service never answers: no request id)
    r = api.post("/api/v1/games", {**pad, "pad": "x" * 100_000})
    assert r.status_code == 413, r.text
    assert r.json()["error"]["code"] == "payload_too_large"
    assert "X-Request-ID" not in r.headers

    # just under 64 KB passes to the service, which answers it (its own JSON refusal)
    r = api.post("/api/v1/games", {**pad, "pad": "x" * (SMALL - 200)})
    assert r.status_code == 400 and "X-Request-ID" in r.headers, r.text

    # an import of 1 MB reaches the service: its answer, not nginx's 413
    # (with the admin token: the service reads the body; an anonymous one is refused before)
    doc = {"format": "chronicle", "pad": "x" * 1_000_000}
    r = api.post("/api/v1/games/import", doc, ADMIN_TOKEN)
    assert r.status_code != 413 and "X-Request-ID" in r.headers, r.text
    assert r.json()["error"]["code"] in ("bad_request", "unauthorized", "illegal_action")

    # an anonymous one is refused by the service before it reads the body, and the refusal
    # reaches the client whole: the service lingers instead of resetting the connection while
    # nginx is still sending (a reset made nginx answer 502/503)
    r = api.post("/api/v1/games/import", {"format": "chronicle", "pad": "x" * 15_000_000})
    assert r.status_code == 401 and "X-Request-ID" in r.headers, r.text
    assert r.json()["error"]["code"] == "unauthorized"

    # over 16 MB even there: refused as soon as the length is known
    with proxied.raw(
        "127.0.0.2",
        b"POST /api/v1/games/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 17000000\r\n\r\n",
    ) as sock:
        status, headers, _ = head_of(sock)
    assert status == 413 and "x-request-id" not in headers


def test_one_address_gets_a_bounded_number_of_connections(proxied: Proxied) -> None:
    gid, _, _ = new_game(proxied.client("127.0.0.2"))
    ask = f"GET /api/v1/games/{gid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    with ExitStack() as held:
        streams = []
        for _ in range(CONN_CAP):
            sock = held.enter_context(proxied.raw("127.0.0.3", ask))
            status, _, _ = head_of(sock)
            assert status == 200
            streams.append(sock)

        # one more from that address is refused by nginx, in the contract's shape ...
        with proxied.raw("127.0.0.3", ask) as sock:
            status, headers, body = head_of(sock)
        assert status == 429 and headers.get("retry-after") == "1", body
        assert "x-request-id" not in headers  # nginx's answer, not the service's
        r = session_from("127.0.0.3").get(proxied.base + "/healthz", timeout=5)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"

        # ... while another address is served
        with proxied.raw("127.0.0.4", ask) as sock:
            assert head_of(sock)[0] == 200

        # and a stream that ends gives its place back
        streams.pop().close()
        wait_until(
            lambda: session_from("127.0.0.3").get(proxied.base + "/healthz", timeout=5).ok,
            5,
            "a closed stream kept counting",
        )


def test_a_flood_from_one_address_is_cut_above_what_a_client_needs(proxied: Proxied) -> None:
    s = session_from("127.0.0.5")
    codes = []
    for _ in range(1000):  # bounded: 100/s with a burst of 200 cuts it well before
        r = s.get(proxied.base + "/healthz", timeout=5)
        codes.append(r.status_code)
        if r.status_code == 429:
            break
    assert codes[-1] == 429, "nginx never limited the request rate"
    assert r.json()["error"]["code"] == "rate_limited" and r.headers["Retry-After"] == "1"
    assert "X-Request-ID" not in r.headers
    # the burst (and more, refilled meanwhile) passed first: far above the service's 50/s
    assert len(codes) > 200 and set(codes[:-1]) == {200}, codes[-5:]


def test_oversized_heads_are_refused_in_the_contracts_shape(proxied: Proxied) -> None:
    s = session_from("127.0.0.2")
    # over nginx's own buffers (16 KB a line): nginx's refusal, as JSON
    r = s.get(proxied.base + "/healthz", headers={"X-Big": "x" * 20_000}, timeout=5)
    assert r.status_code == 431 and "X-Request-ID" not in r.headers, r.text
    assert r.json()["error"]["code"] == "headers_too_large"
    # within them but over the service's 8 KB: the service's own answer
    r = s.get(proxied.base + "/healthz", headers={"X-Big": "x" * 10_000}, timeout=5)
    assert r.status_code == 431 and "at most 8192" in r.json()["error"]["message"], r.text
