"""Scale-out on one Redis: two API processes (gunicorn) and two worker processes play 20 bot
games at once.  Every game finishes, every log verifies (hash chain, contiguous versions, a
replay of its commands through the rules), and every bot turn was appended exactly once, by
the job made for it (no lost turn, no doubled one)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.serializers import JSONSerializer

from domain.games import GAMES
from service.redis_server import RedisServer, free_port
from tests.conftest import ADMIN_TOKEN, ROOT
from tests.support.client import Client

GAMES_AT_ONCE = 20


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Client], str]]:
    """A Redis of its own (the session's worker must not take these jobs), two gunicorn API
    processes and two workers."""
    base = tmp_path_factory.mktemp("scale")
    server = RedisServer(base / "redis", port=free_port(), persistent=False)
    url = server.start()
    env = {
        **os.environ,
        "REDIS_URL": url,
        "ADMIN_TOKEN": ADMIN_TOKEN,
        "PYTHONPATH": str(ROOT),
        "CHRONICLE_RECONCILE_SECONDS": "1",
        "CHRONICLE_RATE_LIMIT": "off",
        "CHRONICLE_RATE_LIMIT_ADDRESS": "off",
        "CHRONICLE_CREATE_QUOTA": "off",
        "CHRONICLE_IMPORT_QUOTA": "off",
    }
    ports = [free_port(), free_port()]
    procs = []
    for i, port in enumerate(ports):
        args = [
            sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
            "--worker-class", "gthread", "--threads", "4", "--no-control-socket",
            "service.app:create_app()",
        ]  # fmt: skip
        with open(base / f"api{i}.log", "wb") as log:
            procs.append(subprocess.Popen(args, env=env, cwd=ROOT, stdout=log, stderr=log))
    for i in range(2):
        with open(base / f"worker{i}.log", "wb") as log:
            worker = [sys.executable, "-m", "chronicle", "worker"]
            procs.append(subprocess.Popen(worker, env=env, cwd=ROOT, stdout=log, stderr=log))
    apis = [Client(f"http://127.0.0.1:{p}") for p in ports]
    try:
        deadline = time.monotonic() + 30
        for api in apis:
            while True:
                assert all(p.poll() is None for p in procs), f"a process died; see {base}"
                try:
                    if api.get("/readyz").status_code == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "the API processes did not start"
                time.sleep(0.1)
        yield apis, url
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        server.stop()


def line_up() -> list[tuple[str, list[dict[str, Any]]]]:
    """20 games over every game, bot and player count (random bots at the most players)."""
    out = []
    kinds = itertools.cycle(
        (g.id, bot, n)
        for g in GAMES.values()
        for bot in ("greedy", "random")
        for n in ((g.min_players,) if bot == "greedy" else (g.max_players,))
    )
    for i, (game, bot, n) in enumerate(itertools.islice(kinds, GAMES_AT_ONCE)):
        out.append((game, [{"name": f"b{i}-{s}", "bot": bot} for s in range(n)]))
    return out


def test_two_apis_and_two_workers_play_twenty_bot_games_at_once(
    farm: tuple[list[Client], str],
) -> None:
    apis, url = farm
    ids = []
    for i, (game, players) in enumerate(line_up()):
        ids.append(apis[i % 2].create(game, players)["id"])
    deadline = time.monotonic() + 150
    pending = set(ids)
    while pending:
        assert time.monotonic() < deadline, f"{len(pending)} games unfinished: {sorted(pending)}"
        for j, gid in enumerate(sorted(pending)):
            if apis[j % 2].summary(gid)["status"] == "finished":
                pending.discard(gid)
        time.sleep(0.2)

    queue = redis.Redis.from_url(url)
    for i, gid in enumerate(ids):
        # Read through the process that did not create the game: its cache follows the log.
        other = apis[(i + 1) % 2]
        audit = other.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
        assert audit["chain_ok"] is True, gid
        events = audit["events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        assert audit["head_hash"] == events[-1]["hash"]
        assert audit["undone"] == []
        # Every bot turn is the batch of the one job made for that seat at that version.
        turns = [(e["version"] - 1, e["actor"]) for e in events if e["command"] is not None]
        seat_turns = [(v, s) for v, s in turns if s is not None]
        assert len(set(seat_turns)) == len(seat_turns)
        for version, seat in seat_turns:
            try:
                job = Job.fetch(
                    f"bot-{gid}-{version}-{seat}", connection=queue, serializer=JSONSerializer
                )
            except NoSuchJobError:
                pytest.fail(f"{gid}: no job for the turn of seat {seat} at version {version}")
            assert job.return_value() == "played", (gid, version, seat)
        # The log replays through the rules (every command legal, by a seat to act).
        export = apis[i % 2].get(f"/api/v1/games/{gid}/export").json()
        imported = apis[(i + 1) % 2].post("/api/v1/games/import", export, ADMIN_TOKEN)
        assert imported.status_code == 201
