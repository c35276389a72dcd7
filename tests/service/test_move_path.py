"""``service.http.move_path`` answers a move as Flask's request cycle does, to the byte: the
same games played through both, every answer compared (status, headers, body), refusals,
rate limits, log lines and metrics included (issue 16)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from werkzeug.datastructures import Headers
from werkzeug.test import EnvironBuilder, run_wsgi_app

from bench.scripts import scripts
from domain.games import GAMES
from service.app import create_app
from service.http import compression, move_path
from service.http.move_path import MovePath
from tests.conftest import settings

NOW = 1_790_000_000_000  # both games' clock: their events' times are equal
# A request of ``Pair.send``: seat, body, headers, environ and, optionally, the token's change.
Extra = dict[str, str] | None
Env = dict[str, Any] | None
Case = tuple[int, Any, Extra, Env] | tuple[int, Any, Extra, Env, Callable[[str], str]]


def _moves_path(app: Any) -> MovePath:
    return move_path.of(app)  # under EdgeLimits and CookieSessions (service/app.py)


class Pair:
    """Two games of one script, one played through the move path and one through Flask."""

    def __init__(self, app: Any, game: str, index: int) -> None:
        self.moves = _moves_path(app)
        ch = app.extensions["chronicle"]
        ch.commands.clock = lambda: NOW
        self.script = scripts(GAMES[game], index + 1, "move-path")[index]
        self.a, self.tokens_a = self.script.create(ch)
        self.b, self.tokens_b = self.script.create(ch)
        self.sent = 0

    @contextlib.contextmanager
    def handed(self) -> Iterator[list[str]]:
        """The paths of the requests the move path hands to Flask, while in the block."""
        paths: list[str] = []
        flask = self.moves.app

        def handed_over(env: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
            paths.append(env["PATH_INFO"])
            return flask(env, start)

        self.moves.app = handed_over
        try:
            yield paths
        finally:
            self.moves.app = flask

    def send(
        self,
        seat: int,
        body: Any,
        headers: dict[str, str] | None = None,
        environ: dict[str, Any] | None = None,
        token: Callable[[str], str] = lambda t: t,
    ) -> tuple[tuple[str, list[tuple[str, str]], bytes], ...]:
        """The same request to both games; their answers, game ids made equal."""
        self.sent += 1
        out = []
        for gid, tokens, app in (
            (self.a, self.tokens_a, self.moves),
            (self.b, self.tokens_b, self.moves.app),
        ):
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent: dict[str, str] = {
                "Authorization": f"Bearer {token(tokens[seat])}",
                "X-Request-ID": f"pair-{self.sent}",
                **(headers or {}),
            }
            env = EnvironBuilder(
                path=f"/api/v1/games/{gid}/actions",
                method="POST",
                data=raw,
                content_type="application/json",
                headers=Headers(sent),
            ).get_environ()
            env.update(environ or {})
            it, status, got = run_wsgi_app(app, env)
            data = b"".join(it)
            out.append((status, list(got.items()), data.replace(gid.encode(), b"<id>")))
        return tuple(out)


@pytest.fixture
def app(redis_url: str) -> Any:
    return create_app(settings(redis_url))


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The fields of a log line (``extra={"fields": ...}``), which ``LogRecord`` does not type."""
    return dict(vars(record)["fields"])


def _deep(n: int) -> Any:
    return [_deep(n - 1)] if n else []


def _same(answers: tuple[Any, ...]) -> tuple[str, list[tuple[str, str]], bytes]:
    fast, flask = answers
    assert fast == flask
    return fast


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_move_of_a_game_is_answered_as_flask_answers_it(app: Any, game: str) -> None:
    pair = Pair(app, game, 0)
    with pair.handed() as handed:
        for seat, version, action in pair.script.moves:
            status, _, body = _same(
                pair.send(seat, {"action": action, "expected_version": version})
            )
            assert status == "201 CREATED", body
    assert len(handed) == len(pair.script.moves)  # only the Flask half: none handed over


def test_refusals_are_flask_s_answers(app: Any) -> None:
    pair = Pair(app, "artus", 1)
    moves = iter(pair.script.moves)
    seat, version, action = next(moves)
    ok = {"action": action, "expected_version": version}
    other = next(s for s in pair.tokens_a if s != seat and pair.tokens_a[s])
    cases: dict[str, Case] = {
        "not your turn": (other, ok, None, None),
        "a stale version": (seat, {**ok, "expected_version": version + 5}, None, None),
        "an unknown token": (seat, ok, None, None, lambda t: "nope"),
        "an illegal action": (seat, {**ok, "action": {"type": "nonsense"}}, None, None),
        "a lone surrogate": (
            seat,
            b'{"action": {"type": "\\ud800"}, "expected_version": %d}' % version,
            None,
            None,
        ),
        "a NUL in a header": (seat, ok, None, {"HTTP_IDEMPOTENCY_KEY": "a\x00b"}),
        "a too long key": (seat, ok, {"Idempotency-Key": "k" * 129}, None),
        "a moved If-Match": (seat, ok, {"If-Match": '"v1-0000"'}, None),
        "not a plain body (handed to Flask)": (seat, {**ok, "extra": 1}, None, None),
        "malformed JSON (handed to Flask)": (seat, b'{"action": ', None, None),
        "too deep (handed to Flask)": (seat, {**ok, "action": {"a": _deep(40)}}, None, None),
    }
    statuses = {}
    for name, case in cases.items():
        status, _, _ = _same(pair.send(*case))
        statuses[name] = status
    assert all(not s.startswith("2") for s in statuses.values()), statuses
    assert statuses["a lone surrogate"].startswith("400")
    assert statuses["a moved If-Match"].startswith("412")
    # the move itself, then its retry with the same key: the stored answer, both ways
    first = _same(pair.send(seat, ok, {"Idempotency-Key": "k1"}))
    assert first[0] == "201 CREATED"
    again = _same(pair.send(seat, ok, {"Idempotency-Key": "k1"}))
    assert again[2] == first[2]


def test_a_rate_limit_counts_each_move_once_and_refuses_as_flask_does(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    # per address: both games' requests count against one counter, alternately (a path that
    # counted a move twice, or not at all, would be refused earlier or later than the other)
    monkeypatch.setenv("CHRONICLE_RATE_LIMIT_ADDRESS", "4/minute")
    pair = Pair(create_app(settings(redis_url)), "artus", 2)
    got = []
    for seat, version, action in pair.script.moves[:6]:
        status, headers, _ = _same(pair.send(seat, {"action": action, "expected_version": version}))
        got.append(status[:3])
        if status.startswith("429"):
            assert dict(headers)["Retry-After"] == "60"
    assert got == ["201"] * 2 + ["429"] * 4


def test_the_log_line_and_the_metrics_are_the_same(
    app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from service import metrics

    pair = Pair(app, "lancaster", 0)
    seat, version, action = pair.script.moves[0]
    route = "/api/v1/games/<game_id:game_id>/actions"
    counted = metrics.REQUESTS.labels("POST", route, "201")
    before = counted._value.get()
    with caplog.at_level(logging.INFO, logger="chronicle.request"):
        _same(pair.send(seat, {"action": action, "expected_version": version}))
    assert counted._value.get() - before == 2
    fields = [fields_of(r) for r in caplog.records if r.name == "chronicle.request"]
    assert len(fields) == 2
    for f in fields:
        f.pop("duration_ms")
        f["path"] = f["path"].replace(pair.a, "<id>").replace(pair.b, "<id>")
    assert fields[0] == fields[1]
    assert fields[0]["request_id"] == f"pair-{pair.sent}" and fields[0]["route"] == route


def test_an_app_with_a_hook_it_does_not_know_has_no_move_path(app: Any) -> None:
    app.before_request(lambda: None)
    with pytest.raises(RuntimeError, match="does not know every request hook"):
        MovePath(_moves_path(app).app, app)


@pytest.mark.parametrize("origins", ["https://play.example", "*"])
def test_with_cors_on_moves_carry_flask_cors_headers(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, origins: str
) -> None:
    """flask-cors' hook adds its headers to the API's answers (the allowed origin, also to a
    request without an Origin, which a browser never sends cross-origin; none to an origin
    not allowed); the move path adds the same, in the same place; refusals are Flask's."""
    monkeypatch.setenv("CHRONICLE_CORS_ORIGINS", origins)
    pair = Pair(create_app(settings(redis_url)), "artus", 2)
    origin_of = ["https://play.example", "https://elsewhere.example", None]
    with pair.handed() as handed:
        for i, (seat, version, action) in enumerate(pair.script.moves[:12]):
            origin = origin_of[i % 3]
            body = {"action": action, "expected_version": version}
            status, headers, _ = _same(pair.send(seat, body, {"Origin": origin} if origin else {}))
            assert status == "201 CREATED"
            names = {k for k, _ in headers}
            allowed = origins == "*" or origin in (origins, None)
            assert ("Access-Control-Allow-Origin" in names) == allowed, (origin, headers)
            if i == 0:  # a stale version, refused: Flask's answer, with the same headers
                stale = {**body, "expected_version": version + 3}
                refused = _same(pair.send(seat, stale, {"Origin": "https://play.example"}))
                assert refused[0].startswith("409")
                assert "Access-Control-Allow-Origin" in {k for k, _ in refused[1]}
    assert len(handed) == 12 + 1, "only the Flask half and the refusal went to Flask"


def test_with_cors_on_a_large_answer_is_gzipped_and_varies_as_flask_s(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    """Two origins: flask-cors adds ``Vary: Origin``; gzip adds ``Accept-Encoding`` to it."""
    monkeypatch.setenv("CHRONICLE_CORS_ORIGINS", "https://play.example,https://b.example")
    monkeypatch.setattr(compression, "MIN_BYTES", 0)  # every answer is large enough
    pair = Pair(create_app(settings(redis_url)), "artus", 3)
    for seat, version, action in pair.script.moves[:4]:
        body = {"action": action, "expected_version": version}
        headers = {"Origin": "https://b.example", "Accept-Encoding": "gzip"}
        status, got, _ = _same(pair.send(seat, body, headers))
        assert status == "201 CREATED"
        assert ("Vary", "Origin, Accept-Encoding") in got, got
        assert ("Content-Encoding", "gzip") in got


def test_where_the_server_runs_work_after_the_answer_the_log_line_and_metrics_wait_for_it(
    app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``service.http1`` runs a request's bookkeeping once its answer is sent: both paths
    leave it to the server, which then writes the same line and counts as without."""
    from service import metrics
    from service.http.edge import AFTER_ANSWER_KEY

    pair = Pair(app, "lancaster", 0)
    seat, version, action = pair.script.moves[0]
    route = "/api/v1/games/<game_id:game_id>/actions"
    counted = metrics.REQUESTS.labels("POST", route, "201")
    before = counted._value.get()
    after: list[Callable[[], None]] = []

    def take(work: Callable[[], None]) -> bool:
        after.append(work)
        return True

    with caplog.at_level(logging.INFO, logger="chronicle.request"):
        _same(pair.send(seat, {"action": action, "expected_version": version}, environ={
            AFTER_ANSWER_KEY: take, "REMOTE_ADDR": "10.1.2.3"
        }))  # fmt: skip
        logged = [r for r in caplog.records if r.name == "chronicle.request"]
        assert (len(after), len(logged), counted._value.get() - before) == (2, 0, 0)
        for work in after:
            work()
    assert counted._value.get() - before == 2
    fields = [fields_of(r) for r in caplog.records if r.name == "chronicle.request"]
    assert [(f["request_id"], f["status"], f["client"]) for f in fields] == [
        (f"pair-{pair.sent}", 201, "10.1.2.3")
    ] * 2


def test_flask_s_answers_leave_their_bookkeeping_too_but_a_stream_s_is_done_as_it_starts(
    app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A stream may last for hours: its log line and count are written when it starts, as
    before, not when it ends."""
    from service.http.edge import AFTER_ANSWER_KEY

    pair = Pair(app, "lancaster", 0)
    got: dict[str, tuple[int, int]] = {}
    with caplog.at_level(logging.INFO, logger="chronicle.request"):
        for path in ("/healthz", f"/api/v1/games/{pair.a}/stream"):
            after: list[Callable[[], None]] = []
            env = EnvironBuilder(path=path).get_environ()
            env[AFTER_ANSWER_KEY] = lambda work, after=after: after.append(work) or True
            it, status, _ = run_wsgi_app(app, env)
            logged = [r for r in caplog.records if r.name == "chronicle.request"]
            got[path.rpartition("/")[2]] = (int(status[:3]), len(after))
            assert len(logged) == (0 if after else 1)
            for work in after:
                work()
            assert len([r for r in caplog.records if r.name == "chronicle.request"]) == 1
            assert hasattr(it, "close")
            it.close()
            caplog.clear()
    assert got == {"healthz": (200, 1), "stream": (200, 0)}


def test_a_server_that_declines_the_work_gets_it_done_before_the_answer(
    app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``service.http1`` declines while its process is busy with other requests: the line is
    written before the answer, as without such a server."""
    from service.http.edge import AFTER_ANSWER_KEY

    offered: list[Callable[[], None]] = []
    env = EnvironBuilder(path="/healthz").get_environ()

    def decline(work: Callable[[], None]) -> bool:
        offered.append(work)
        return False

    env[AFTER_ANSWER_KEY] = decline
    with caplog.at_level(logging.INFO, logger="chronicle.request"):
        it = run_wsgi_app(app, env)[0]
        assert hasattr(it, "close")
        it.close()
        logged = [r for r in caplog.records if r.name == "chronicle.request"]
    assert len(offered) == 1 and len(logged) == 1
