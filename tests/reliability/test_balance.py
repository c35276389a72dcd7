"""New connections spread over the API processes (``service/balance.py``, issue 16): a
kept-alive connection stays with the process that took it, so the split at connect time is the
split of the work for as long as the clients stay."""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path

from service import balance
from service.balance import Balance, Slots
from tests.reliability.served import children, served


def _sockets_by_process(port: int, pids: list[int]) -> dict[int, int]:
    """How many established connections to ``port`` each process holds (``/proc``)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] == "01":  # ESTABLISHED
                inodes.add(f[9])
    out = {}
    for pid in pids:
        held = 0
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in inodes:
                held += 1
        out[pid] = held
    return out


def _connect(port: int) -> socket.socket:
    """A kept-alive connection that has had one answer (so a process has accepted it)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(4096)
    return s


def test_forty_connections_at_once_split_evenly_over_two_api_processes(tmp_path: Path) -> None:
    """With ``CHRONICLE_UNBALANCED=1`` (gunicorn's own accepting) this split was 40 / 0."""
    with served(tmp_path, api_processes=2) as s:
        (master,) = s.pids("gunicorn")
        workers = children(master)
        assert len(workers) == 2
        socks = [socket.create_connection(("127.0.0.1", s.port), timeout=10) for _ in range(40)]
        try:
            for c in socks:  # all connected before any is answered: a burst, as clients start
                c.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            for c in socks:
                got = b""
                while b"\r\n\r\n" not in got:
                    got += c.recv(4096)
                assert got.startswith(b"HTTP/1.1 200")
            held = _sockets_by_process(s.port, workers)
            assert sum(held.values()) == 40, held
            assert all(18 <= n <= 22 for n in held.values()), held
            more = [_connect(s.port) for _ in range(4)]  # and later ones go to the fewer
            socks += more
            held = _sockets_by_process(s.port, workers)
            assert all(21 <= n <= 23 for n in held.values()), held
        finally:
            for c in socks:
                c.close()


def _sibling(slots: Slots, slot: int, held: int, beat: float | None = None) -> None:
    """Write a sibling's slot as its process would (a live pid: this test's parent)."""
    at = time.monotonic() if beat is None else beat
    struct.pack_into("qqd", slots.map, slot * struct.calcsize("qqd"), os.getppid(), held, at)


def test_a_process_above_its_siblings_defers_then_takes_what_nobody_took() -> None:
    slots = Slots(4)
    me = Balance(slots, 0)
    _sibling(slots, 1, 5)
    me.held = 6
    assert me.may_accept(), "within the slack"
    me.held = 7
    assert not me.may_accept(), "two above the least-loaded sibling: leave it"
    started = time.monotonic()
    while not me.may_accept():  # each look is what the server's RECHECK timer does
        assert time.monotonic() < started + 1
        time.sleep(balance.RECHECK)
        _sibling(slots, 1, 5)  # the sibling is alive but does not take the connection
    assert time.monotonic() - started >= balance.MAX_DEFER * 0.9, "it deferred for a while"
    time.sleep(0.05)  # the next connection, later: deferred again
    assert not me.may_accept()


def test_dead_or_silent_siblings_do_not_count() -> None:
    slots = Slots(4)
    me = Balance(slots, 0)
    me.held = 10
    _sibling(slots, 1, 0, beat=time.monotonic() - balance.FRESH - 1)
    assert me.may_accept(), "a sibling whose heartbeat stopped"
    struct.pack_into("qqd", slots.map, struct.calcsize("qqd"), 2**22 + 12345, 0, time.monotonic())
    assert me.may_accept(), "a sibling whose process is gone"
    _sibling(slots, 2, 0)
    assert not me.may_accept()
    assert Balance(slots, None).may_accept(), "a process without a slot is not balanced"


def test_the_master_gives_a_dead_workers_slot_to_its_successor() -> None:
    class W:
        pid: object = "[booting]"

    slots = Slots(2)
    a, b, c = W(), W(), W()
    assert slots.assign(a) == 0
    a.pid = os.getpid()
    assert slots.assign(b) == 1
    b.pid = 2**22 + 12345  # exited
    assert slots.assign(c) == 1
    assert slots.assign(W()) is None, "every slot held by a live process"
