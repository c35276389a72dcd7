"""The pool's check of a connection before a command (``service.connections.QuickCheckParser``)
answers as redis-py's own: nothing to read, a reply left unread, a connection the server
closed; and under gevent it uses the system's poll, not gevent's."""

from __future__ import annotations

import subprocess
import sys
import time

import redis

from service.connections import QuickCheckParser, connect
from tests.conftest import ROOT


def _connection(client: redis.Redis) -> redis.Connection:
    conn = client.connection_pool.get_connection()
    assert isinstance(conn._parser, QuickCheckParser)
    return conn


def test_an_idle_connection_has_nothing_to_read(redis_url: str) -> None:
    client = connect(redis_url)
    assert client.ping()
    conn = _connection(client)
    try:
        assert conn.can_read() is False
    finally:
        client.connection_pool.release(conn)


def test_a_reply_left_unread_is_seen_and_the_next_command_gets_its_own(redis_url: str) -> None:
    client = connect(redis_url)
    client.set("quick-check", "mine")
    conn = _connection(client)
    conn.send_command("ECHO", "left over")  # its reply is never read
    deadline = time.monotonic() + 5  # a loaded machine may take a while to answer
    while not conn.can_read() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert conn.can_read() is True
    client.connection_pool.release(conn)
    # the pool sees the stale reply and reconnects: the GET gets its own answer, not the ECHO's
    assert client.get("quick-check") == b"mine"
    client.delete("quick-check")


def test_a_connection_the_server_closed_is_replaced(redis_url: str) -> None:
    client = connect(redis_url)
    conn = _connection(client)
    name = f"quick-check-{id(conn)}"
    conn.send_command("CLIENT", "SETNAME", name)
    assert conn.read_response() == b"OK"
    client.connection_pool.release(conn)
    killer = redis.Redis.from_url(redis_url)
    ids = [c["id"] for c in killer.client_list() if c.get("name") == name]
    assert ids, "the named connection is listed"
    killer.client_kill_filter(_id=ids[0])
    assert client.ping() is True  # on a new connection, no error reaches the caller


def test_under_gevent_the_check_uses_the_systems_poll() -> None:
    code = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import select\n"
        "from service.connections import QuickCheckParser, _system_poll\n"
        "poll = _system_poll()\n"
        "assert select.poll is not poll, 'gevent patched select.poll'\n"
        "assert poll.__module__ == 'select', poll.__module__\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
