"""Issue 33: webhook targets that reach loopback or private IPv4 through an IPv6 prefix that
carries an IPv4 address (NAT64, 6to4, IPv4-compatible, Teredo), and ports outside 1-65535, are
refused at registration (400, nothing stored) and again at delivery, when the host is resolved
afresh and may now answer one of them.

The app runs in process on a Redis of this module's own; no socket is opened to any target."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service import webhooks
from service.app import create_app
from service.redis_server import RedisServer
from tests.conftest import settings
from tests.reliability.test_hostile_input import auth, json_of, refused

CARRY_PRIVATE = (
    "http://[64:ff9b::7f00:1]/hook",  # NAT64 of 127.0.0.1
    "http://[64:ff9b::a00:1]:8080/hook",  # NAT64 of 10.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/latest",  # NAT64 of 169.254.169.254
    "http://[64:ff9b:1::808:808]/hook",  # the local-use NAT64 prefix: never public
    "http://[2002:7f00:1::1]/hook",  # 6to4 of 127.0.0.1
    "https://[2002:c0a8:101::1]/hook",  # 6to4 of 192.168.1.1
    "http://[::127.0.0.1]/hook",  # IPv4-compatible 127.0.0.1
    "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook",  # Teredo, client 127.0.0.1
)
BAD_PORTS = (
    "http://example.org:0/hook",
    "https://example.org:0/hook",
    "http://example.org:65536/hook",
    "http://example.org:-1/hook",
    "http://example.org:8o/hook",
)
PUBLIC = "8.8.8.8"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, redis.Redis]]:
    s = RedisServer(tmp_path / "redis", persistent=False)
    url = s.start()
    yield url, redis.Redis.from_url(url)
    s.stop()


def resolving(monkeypatch: pytest.MonkeyPatch, answers: dict[str, str]) -> list[str]:
    """``socket.getaddrinfo`` answering ``answers`` for names (no network; literal addresses
    resolve as themselves); the hosts asked, in order."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(host)
        if host in answers:
            ip = answers[host]
            family = socket.AF_INET6 if ":" in ip else socket.AF_INET
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (ip, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def test_carried_private_ipv4_and_bad_ports_are_refused_at_registration(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis]
) -> None:
    url, r = server
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "0")
    resolving(monkeypatch, {"example.org": PUBLIC})
    c = create_app(settings(url)).test_client()
    created = c.post("/api/v1/games", json={"game": "artus", "players": [{"name": "A"}] * 2})
    made = json_of(created)
    gid, token = made["id"], made["seats"][0]["token"]
    put = f"/api/v1/games/{gid}/webhook"
    for target in CARRY_PRIVATE:
        err = refused(c.put(put, json={"url": target}, headers=auth(token)), 400, "bad_request")
        assert "private or reserved" in err["message"], (target, err)
        assert err["details"] == {"url": ["not a public address"]}
    for target in BAD_PORTS:
        err = refused(c.put(put, json={"url": target}, headers=auth(token)), 400, "bad_request")
        assert "port is a number from 1 to 65535" in err["message"], (target, err)
    assert r.hgetall(webhooks.hooks_key(gid)) == {}
    assert r.hget(f"{{g:{gid}}}:meta", "hooks") is None
    # a public target on an explicit port, and public addresses carried the same ways, pass
    for target in (
        "https://example.org:8443/hook",
        "http://[64:ff9b::808:808]/hook",
        "http://[2002:808:808::1]:1/hook",
    ):
        answer = c.put(put, json={"url": target}, headers=auth(token))
        assert answer.status_code == 200, (target, answer.json)


def test_port_zero_is_refused_even_where_private_targets_are_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The escape hatch is for loopback receivers (the tests'); port 0 is no receiver at all,
    and ``0 or 80`` used to send it to port 80."""
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "1")
    with pytest.raises(webhooks.BadAction, match="port"):
        webhooks.resolve("http://127.0.0.1:0/hook", webhooks.allow_private())
    assert webhooks.send("http://127.0.0.1:0/hook", "s", "d-0", "{}") == "refused target"
    assert webhooks.resolve("http://127.0.0.1:1/hook", True).port == 1


@pytest.mark.parametrize("carried", ["64:ff9b::7f00:1", "2002:7f00:1::1"])
def test_a_name_that_now_resolves_to_a_carried_loopback_is_not_delivered_to(
    monkeypatch: pytest.MonkeyPatch, server: tuple[str, redis.Redis], carried: str
) -> None:
    """Registered while its name resolved to a public address; at delivery the name answers an
    address that carries 127.0.0.1: refused before any socket is opened."""
    _, r = server
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "0")
    answers = {"hook.example": PUBLIC}
    asked = resolving(monkeypatch, answers)
    webhooks.resolve("https://hook.example/x", False)  # accepted as registered
    r.hset(webhooks.hooks_key("t1"), "0", '{"url": "https://hook.example/x", "secret": "s"}')
    opened: list[Any] = []

    class Net:
        def socket(self, *args: Any) -> Any:
            opened.append(args)
            raise AssertionError("no socket may be opened to a refused target")

        def __getattr__(self, name: str) -> Any:
            return getattr(socket, name)

    monkeypatch.setattr(webhooks, "socket", Net())
    answers["hook.example"] = carried
    assert webhooks.deliver(r, "t1", 0, "d-1", "{}") == "refused target"
    assert asked == ["hook.example", "hook.example"] and opened == []
