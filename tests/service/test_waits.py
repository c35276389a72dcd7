"""The caps on concurrent waits (``service.http.waits``) on a real Redis, as two API processes
see them: two ``Waits`` share one cap per address and per token; the lease of a holder that was
killed expires; a long wait's lease is kept alive past its lease; a Redis that cannot be asked
leaves the per-process caps only (never a refusal, never an error); a cap that is off costs no
Redis call.  Each test uses addresses of its own (the session's Redis is shared)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import redis
from werkzeug.exceptions import TooManyRequests

from service.connections import connect
from service.http.waits import KEY_PREFIX, Waits
from service.redis_server import free_port
from tests.conftest import ROOT


def _waits(url: str, **env: str) -> Waits:
    return Waits({"CHRONICLE_WAITS_PER_ADDRESS": "2", **env}, defaults=False, client=connect(url))


def _address() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


def _refused(waits: Waits, address: str, identity: str | None = None) -> str:
    with pytest.raises(TooManyRequests) as got, waits.slot(address, identity):
        pass
    assert got.value.retry_after, "a refusal says when to retry"
    return str(got.value.description)


def test_two_processes_share_the_caps_per_address_and_per_token(redis_url: str) -> None:
    one, two = (_waits(redis_url, CHRONICLE_WAITS_PER_TOKEN="1") for _ in range(2))
    address = _address()
    with ExitStack() as held:
        held.enter_context(one.slot(address, None))
        held.enter_context(two.slot(address, None))
        assert one.total == two.total == 1, "each process holds one wait of its own"
        assert "this address already holds 2" in _refused(one, address)
        assert "this address already holds 2" in _refused(two, address)
    with two.slot(address, None):  # given back: the places are free again
        pass
    token, other = f"Bearer {uuid.uuid4()}", _address()
    with one.slot(_address(), token):
        assert "this token already holds 1" in _refused(two, other, token)
        with two.slot(other, None):  # the address is not at its cap
            pass
    assert not redis.Redis.from_url(redis_url).keys(f"{KEY_PREFIX}:a:{address}")


HOLDER = """
import sys, time
from service.connections import connect
from service.http.waits import Waits
waits = Waits({"CHRONICLE_WAITS_PER_ADDRESS": "1", "CHRONICLE_WAITS_LEASE": "1"}, False,
              connect(sys.argv[1]))
with waits.slot(sys.argv[2], None):
    print("held", flush=True)
    time.sleep(60)
"""


@contextmanager
def _holder(url: str, address: str) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-c", HOLDER, url, address]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_the_lease_of_a_killed_holder_expires_and_a_live_one_is_kept(redis_url: str) -> None:
    waits = _waits(redis_url, CHRONICLE_WAITS_PER_ADDRESS="1", CHRONICLE_WAITS_LEASE="1")
    address = _address()
    with _holder(redis_url, address) as proc:
        time.sleep(2.5)  # over two leases: the holder's refresher keeps its lease
        _refused(waits, address)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        _refused(waits, address)  # its lease outlives it, for one lease at most
        started = time.monotonic()
        while True:
            try:
                with waits.slot(address, None):
                    break
            except TooManyRequests:
                assert time.monotonic() - started < 3, "a dead holder's lease did not expire"
                time.sleep(0.1)


def test_a_long_wait_stays_counted_past_its_lease(redis_url: str) -> None:
    one, two = (_waits(redis_url, CHRONICLE_WAITS_LEASE="0.6") for _ in range(2))
    address = _address()
    with one.slot(address, None), one.slot(address, None):
        for _ in range(8):  # 2.4 s: four leases
            time.sleep(0.3)
            _refused(two, address)
    with two.slot(address, None), two.slot(address, None):
        pass


def test_without_redis_each_process_caps_its_own(caplog: pytest.LogCaptureFixture) -> None:
    waits = _waits(f"redis://127.0.0.1:{free_port()}")  # nothing listens there
    address = _address()
    with (
        caplog.at_level(logging.WARNING, "service.http.waits"),
        waits.slot(address, None),
        waits.slot(address, None),
    ):
        assert "this address already holds 2" in _refused(waits, address)
    warnings = [r for r in caplog.records if r.name == "service.http.waits"]
    assert len(warnings) == 1 and "Redis unavailable" in warnings[0].getMessage(), warnings


def test_a_cap_that_is_off_asks_no_redis(caplog: pytest.LogCaptureFixture) -> None:
    down = connect(f"redis://127.0.0.1:{free_port()}")
    off = Waits({"CHRONICLE_WAITS_PER_ADDRESS": "off"}, defaults=False, client=down)
    assert off.leases is None
    with caplog.at_level(logging.WARNING, "service.http.waits"):
        started = time.monotonic()
        with off.slot(_address(), "Bearer x"):
            pass
        assert time.monotonic() - started < 0.1
    assert not caplog.records


def test_only_the_capped_scopes_take_leases(redis_url: str) -> None:
    waits = Waits({"CHRONICLE_WAITS_PER_TOKEN": "1"}, defaults=False, client=connect(redis_url))
    plain, address = redis.Redis.from_url(redis_url), _address()
    with waits.slot(address, "Bearer y"):
        assert not plain.keys(f"{KEY_PREFIX}:a:{address}")
        tokens = [k for k in plain.keys(f"{KEY_PREFIX}:t:*") if plain.zcard(k)]
        assert tokens, "the token's lease is in Redis"
