"""A move's rate-limit counters counted inside its append (``service.admission``, issue 16):
one Redis script call for a move with limits on; every request still counted exactly once;
a request over a limit answered 429 before anything else, with nothing appended; a client
refused lately counted first again, without the rules deciding its move."""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from bench.scripts import Script, scripts
from domain.games import GAMES
from service.app import create_app
from service.http import actions, edge, limits, move_path
from tests.conftest import settings
from tests.reliability.test_hostile_input import json_of

MOVES = "/api/v1/games/{}/actions"


class Table:
    """A recorded Artus game on an app with the given limits, and its Redis."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, url: str, token: str, address: str):
        monkeypatch.setenv("CHRONICLE_RATE_LIMIT", token)
        monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", address)
        self.app = create_app(settings(url))
        self.c: FlaskClient = self.app.test_client()
        self.script: Script = scripts(GAMES["artus"], 1, "in-append")[0]
        self.gid, self.tokens = self.script.create(self.app.extensions["chronicle"])
        self.r = redis.Redis.from_url(url)
        self.played = 0

    def body(self, i: int | None = None) -> tuple[int, dict[str, Any]]:
        seat, version, action = self.script.moves[self.played if i is None else i]
        return seat, {"action": action, "expected_version": version}

    def post(self, seat: int, body: Any, **headers: str) -> TestResponse:
        headers["Authorization"] = f"Bearer {self.tokens[seat]}"
        return self.c.post(MOVES.format(self.gid), json=body, headers=headers)

    def move(self) -> TestResponse:
        """The next recorded move, which the rules accept."""
        seat, body = self.body()
        r = self.post(seat, body)
        if r.status_code == 201:
            self.played += 1
        return r

    def version(self) -> int:
        return int(self.r.hget(f"{{g:{self.gid}}}:meta", "version") or 0)

    def calls(self) -> tuple[int, int]:
        stats = self.r.info("commandstats")
        return tuple(stats.get(f"cmdstat_{c}", {}).get("calls", 0) for c in ("evalsha", "incr"))

    def counts(self, seat: int) -> list[int]:
        """The seat's token's counters, each window's count."""
        scope = limits.token_scope(self.tokens[seat])
        found = sorted(k.decode() for k in self.r.scan_iter(f"chronicle-rl:{{{scope}}}:*"))
        return [int(self.r.get(k) or 0) for k in found]


def test_a_move_with_limits_on_is_one_script_call_counting_each_window_once(
    monkeypatch: pytest.MonkeyPatch, own_redis_url: str
) -> None:
    t = Table(monkeypatch, own_redis_url, "100/second;1000/minute", "100/second;1000/minute")
    assert t.move().status_code == 201  # the game is in the process's cache from here
    for _ in range(3):
        before = t.calls()
        assert t.move().status_code == 201
        after = t.calls()
        # one EVALSHA: the append, which counted the four counters (two limits, two windows)
        assert (after[0] - before[0], after[1] - before[1]) == (1, 4)
        assert t.version() == t.script.moves[t.played][1]
    assert sum(t.counts(0)) + sum(t.counts(1)) == 2 * 4  # four moves, each window counted once


def test_requests_refused_before_the_append_are_counted_once_each(
    monkeypatch: pytest.MonkeyPatch, own_redis_url: str
) -> None:
    t = Table(monkeypatch, own_redis_url, "50/minute", "off")
    assert t.move().status_code == 201
    seat, body = t.body()
    stale = {**body, "expected_version": body["expected_version"] - 1}
    answers = [
        t.post(seat, stale).status_code,  # a conflict
        t.post(seat, {**body, "action": {"type": "no-such-action"}}).status_code,  # the rules
        t.post(1 - seat, body).status_code,  # not this seat's turn
        t.post(seat, body, **{"Idempotency-Key": "k"}).status_code,  # appended
        t.post(seat, body, **{"Idempotency-Key": "k"}).status_code,  # replayed, no append
    ]
    assert answers[0] == 409 and answers[1] == 400 and answers[3:] == [201, 201]
    assert answers[2] in (403, 409, 422)
    first = t.script.moves[0][0]
    counted = {s: t.counts(s) for s in (0, 1)}
    assert counted[first][0] >= 1
    assert sum(sum(c) for c in counted.values()) == 1 + len(answers)


def test_over_the_limit_the_limit_answers_first_and_nothing_is_appended(
    monkeypatch: pytest.MonkeyPatch, own_redis_url: str
) -> None:
    t = Table(monkeypatch, own_redis_url, "off", "3/minute")  # per address: every seat
    assert [t.move().status_code for _ in range(3)] == [201, 201, 201]
    version = t.version()
    seat, body = t.body()
    # a legal move over the limit: refused by its own append, which counted it first
    r = t.post(seat, body)
    assert r.status_code == 429 and json_of(r)["error"]["details"]["limit"] == "3 per 1 minute"
    assert r.headers["Retry-After"] == "60" and t.version() == version
    assert t.r.xlen(f"{{g:{t.gid}}}:log") == version
    # an illegal one, a stale one: the limit's answer, not the rules'
    assert t.post(seat, {**body, "action": {"type": "no-such-action"}}).status_code == 429
    assert t.post(seat, {**body, "expected_version": 0}).status_code == 429
    assert t.version() == version


def test_a_client_refused_lately_is_counted_first_without_the_rules_deciding(
    monkeypatch: pytest.MonkeyPatch, own_redis_url: str
) -> None:
    t = Table(monkeypatch, own_redis_url, "off", "3/minute")
    moved: list[int] = []
    real_act = actions.act

    def counted(*a: Any, **k: Any) -> Any:
        moved.append(1)
        return real_act(*a, **k)

    monkeypatch.setattr(actions, "act", counted)
    assert [t.move().status_code for _ in range(4)] == [201, 201, 201, 429]  # by the append
    assert len(moved) == 4
    seat, body = t.body()
    assert t.post(seat, body).status_code == 429  # the counters' own call (loads its script)
    before = t.calls()
    for _ in range(3):
        assert t.post(seat, body).status_code == 429
    after = t.calls()
    assert len(moved) == 4  # none of them given to the rules
    assert (after[0] - before[0], after[1] - before[1]) == (3, 3)  # each: its counter's call
    # once the refused window is over (here: made over), moves count in their append again
    assert isinstance(t.app.wsgi_app, edge.EdgeLimits)  # the outermost layer (service/app.py)
    path = move_path.of(t.app)
    path.hot = dict.fromkeys(path.hot, time.monotonic() - 1)
    t.r.delete(*t.r.keys("chronicle-rl:*"))
    before = t.calls()
    assert t.move().status_code == 201
    assert t.calls()[0] - before[0] == 1 and len(moved) == 5
