"""Caps on concurrent waits (long-polls and streams), per client address and per token.

A wait costs no thread and no Redis connection (``service.stream``), but it does hold a socket,
a greenlet and some memory for as long as it lasts, and the rate limits count requests, not
how long they stay.  So each API process caps how many waits one address, one token and
everyone together may hold at once; one more is refused at once with 429 ``rate_limited`` and
``Retry-After`` (the total with 503 ``unavailable``).  The counts are per process: with N API
processes one address may hold up to N times its cap, which bounds what one process must
carry, the resource the cap protects.

Configuration (``off`` disables one), read when the app is built:
``CHRONICLE_WAITS_PER_ADDRESS`` (default 64: a household or an office behind one address),
``CHRONICLE_WAITS_PER_TOKEN`` (default 8: a seat's tabs and devices),
``CHRONICLE_WAITS_TOTAL`` (default 20,000 per process).  As with the rate limits, the defaults
apply to an app that configures itself from the environment; an app built from explicit
settings (the tests' in-process servers) is capped only by the variables that are set.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

DEFAULTS = {
    "CHRONICLE_WAITS_PER_ADDRESS": 64,
    "CHRONICLE_WAITS_PER_TOKEN": 8,
    "CHRONICLE_WAITS_TOTAL": 20_000,
}
OFF = frozenset({"off", "none", "0", "false", "no"})
RETRY_AFTER = 5


def _cap(env: Mapping[str, str], name: str, defaults: bool) -> int | None:
    value = (env.get(name) or (str(DEFAULTS[name]) if defaults else "off")).strip().lower()
    if value in OFF:
        return None
    try:
        cap = int(value)
    except ValueError:
        raise RuntimeError(f"{name}={value!r} is not a number of waits (or off)") from None
    if cap < 1:
        raise RuntimeError(f"{name} must be at least 1 (or off)")
    return cap


class Waits:
    def __init__(self, env: Mapping[str, str] = os.environ, defaults: bool = True) -> None:
        self.per_address = _cap(env, "CHRONICLE_WAITS_PER_ADDRESS", defaults)
        self.per_token = _cap(env, "CHRONICLE_WAITS_PER_TOKEN", defaults)
        self.total_cap = _cap(env, "CHRONICLE_WAITS_TOTAL", defaults)
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self.total = 0

    @contextmanager
    def slot(self, address: str | None, identity: str | None) -> Iterator[None]:
        """Hold one wait for ``address`` and ``identity`` (a token or a ticket's seat) while
        the block runs; refuse at once if either is at its cap."""
        keys = [f"a:{address or 'unknown'}"]
        if identity:
            keys.append("t:" + hashlib.sha256(identity.encode()).hexdigest()[:32])
        with self._lock:
            if self.total_cap is not None and self.total >= self.total_cap:
                raise ServiceUnavailable(
                    "this server holds as many waiting requests as it may; retry shortly",
                    retry_after=RETRY_AFTER,
                )
            for key, cap, who in (
                (keys[0], self.per_address, "this address"),
                (keys[-1] if identity else None, self.per_token, "this token"),
            ):
                if key is not None and cap is not None and self._held[key] >= cap:
                    raise TooManyRequests(
                        f"{who} already holds {cap} waiting requests (long-polls, streams)",
                        retry_after=RETRY_AFTER,
                    )
            for key in keys:
                self._held[key] += 1
            self.total += 1
        try:
            yield
        finally:
            with self._lock:
                for key in keys:
                    self._held[key] -= 1
                    if not self._held[key]:
                        del self._held[key]
                self.total -= 1
