"""Where a move's CPU goes in the API process: the Flask app called as WSGI in process (no
gunicorn, no sockets to the client), on an embedded Redis of its own, under cProfile.

``python -m bench.move_profile [MOVES]`` (or ``python -m bench.moves --profile``): recorded
Artus moves, rate limits off and on, the app built as gunicorn builds it (``create_app()``
from the environment: JSON request logs, multi-process metrics); it prints the API process's
CPU per move and the top entries by own time and by cumulative time.  The request log lines
go to stderr: send it to a file.
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.moves import LIMITS_OFF, LIMITS_ON
from bench.scripts import scripts
from domain.games import GAMES
from service.redis_server import RedisServer


def _environ(method: str, path: str, body: bytes, token: str = "") -> dict[str, Any]:
    env: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "bench",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "bench",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    if body:
        env["CONTENT_TYPE"] = "application/json"
        env["CONTENT_LENGTH"] = str(len(body))
    if token:
        env["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return env


def call(app: Any, env: dict[str, Any]) -> tuple[str, bytes]:
    status: list[str] = []
    out = app(env, lambda s, h, e=None: status.append(s))
    try:
        body = b"".join(out)
    finally:
        getattr(out, "close", lambda: None)()
    return status[0], body


def _plan(app: Any, moves: int) -> list[dict[str, Any]]:
    pool = scripts(GAMES["artus"], 8, "profile")
    envs: list[dict[str, Any]] = []
    k = 0
    while len(envs) < moves:
        s = pool[k % len(pool)]
        k += 1
        body = json.dumps(
            {"game": s.game, "players": s.players, "options": s.options, "seed": s.seed}
        ).encode()
        _, raw = call(app, _environ("POST", "/api/v1/games", body))
        doc = json.loads(raw)
        tokens = {x["seat"]: x["token"] for x in doc["seats"]}
        for seat, version, action in s.moves[: moves - len(envs)]:
            b = json.dumps({"action": action, "expected_version": version}).encode()
            envs.append(_environ("POST", f"/api/v1/games/{doc['id']}/actions", b, tokens[seat]))
    return envs


def profile(moves: int, top: int = 25) -> int:
    from service.app import create_app

    with tempfile.TemporaryDirectory(prefix="chronicle-profile-") as tmp:
        redis = RedisServer(Path(tmp) / "redis")  # persistent, as `chronicle serve`'s
        url = redis.start()
        os.environ["REDIS_URL"] = url
        try:
            for name, limits in (("limits off", LIMITS_OFF), ("limits on", LIMITS_ON)):
                os.environ.update(limits)
                app = create_app()
                envs = _plan(app, 2 * moves)
                t0 = time.process_time()
                for env in envs[moves:]:
                    call(app, env)
                bare = (time.process_time() - t0) / moves * 1000
                envs = envs[:moves]
                prof = cProfile.Profile(time.process_time)  # CPU, not waits on Redis
                t0 = time.process_time()
                prof.enable()
                for env in envs:
                    status, body = call(app, env)
                    if not status.startswith("201"):
                        raise RuntimeError(f"{status} {body[:300]!r}")
                prof.disable()
                took = time.process_time() - t0
                print(f"== {name}: {moves} moves, API process CPU {bare:.3f} ms a move "
                      f"({took / moves * 1000:.3f} ms under the profiler)")  # fmt: skip
                if os.environ.get("CHRONICLE_PROFILE_OUT"):  # for pstats / snakeviz
                    prof.dump_stats(f"{os.environ['CHRONICLE_PROFILE_OUT']}.{name.split()[-1]}")
                for order in ("tottime", "cumulative"):
                    out = io.StringIO()
                    pstats.Stats(prof, stream=out).sort_stats(order).print_stats(top)
                    text = out.getvalue()
                    print(text[text.find("   ncalls") :])
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(profile(int(sys.argv[1]) if len(sys.argv) > 1 else 3000))
