"""The ratings are a projection after hundreds of games (issue 41): a few hundred rated Artus
games, played on the real service over a Redis of the test's own and each finished by the
worker's own scoring job (``workers.jobs.score``: the result's append, then the count), are
exported; ``chronicle ratings`` (the command, in its own process) folds the exports, and its
numbers are those of ``GET /api/v1/ratings/artus`` to the last digit.

The games are cheap ones (the random and greedy bots; Artus's basic rules), and two accounts
play a third of them against a bot (their moves random, their seats bound the way a signed-in
creation binds them), so the table holds people as well as bots."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain import bots
from domain import table as tables
from projections.views import ADMIN, SEAT, Caller
from service import lobby
from service.app import build_chronicle, create_app
from service.chronicle import Chronicle
from service.redis_server import RedisServer, free_port
from tests.conftest import ROOT, settings
from workers import jobs

pytestmark = pytest.mark.slow  # about half a minute on two shared cores

GAMES = 300


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "redis").mkdir()
    server = RedisServer(tmp_path / "redis", port=free_port(), persistent=False)
    yield server.start()
    server.stop()


def account(ch: Chronicle, email: str, name: str) -> str:
    """An account made the way a mailed code makes one: its public id."""
    pending = ch.accounts_of().ask_code(email, "test")
    assert pending is not None
    return ch.accounts_of().verify_code(pending.code, "test", name).id


def seats_for(i: int, people: list[str]) -> tuple[list[dict[str, Any]], str | None]:
    """Game ``i``'s players, and the account that holds seat 0 (None: bots alone)."""
    if i % 3 == 2:
        person = people[i % 2]
        return [{"name": "Player"}, {"name": "g", "bot": ("greedy", "random")[i % 2]}], person
    lineup = ["random", "greedy"] if i % 2 else ["greedy", "random"]
    return [{"name": f"{b} bot", "bot": b} for b in lineup], None


def play_rated(ch: Chronicle, i: int, people: list[str]) -> str:
    """One rated game to its end, finished by the worker's scoring job; its id."""
    players, person = seats_for(i, people)
    table = tables.Rules(rated=True).data()
    options = {"rules": "basic", "undo": "none"}
    gid = ch.create(None, "artus", players, options, None, table=table)["id"]
    if person is not None:  # as a signed-in creation binds the creator's seat
        lobby.claim(ch, gid, 0, person, host=True)
    while True:
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            break
        seat, version = to_act[0], cur.match.version
        # a person's seat plays the random bot's moves (``decide``: a seat with no bot)
        action = bots.decide(cur.game, cur.match, seat, bots.bot_rng(cur.seed, version + 1, seat))
        ch.act(gid, Caller(SEAT, seat), action, version, by_bot=person is None or seat != 0)
    assert jobs.score(gid, ch.current(gid).match.version) == "scored"
    return gid


def test_chronicle_ratings_over_hundreds_of_exports_prints_the_services_numbers(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ch = build_chronicle(settings(url))
    monkeypatch.setattr(jobs, "_chronicle", ch)  # the worker's service, on this Redis
    people = [account(ch, "ann@example.com", "Ann"), account(ch, "bo@example.com", "Bo")]
    gids = [play_rated(ch, i, people) for i in range(GAMES)]
    exports = tmp_path / "exports"
    exports.mkdir()
    for gid in gids:
        (exports / f"{gid}.json").write_text(json.dumps(ch.export(gid, Caller(ADMIN))))

    client = create_app(settings(url)).test_client()
    served = client.get("/api/v1/ratings/artus?limit=500")
    assert served.status_code == 200, served.text
    rows = served.get_json()["ratings"]
    by_player = {row["player"]: row for row in rows}
    assert set(by_player) == {"bot:random", "bot:greedy", *people}
    assert sum(row["games"] for row in rows) == 2 * GAMES  # two raters a game, every game
    assert by_player[people[0]]["name"] == "Ann" and not by_player[people[0]]["provisional"]

    files = sorted(exports.glob("*.json"), reverse=True)  # not the order they finished in
    command = [sys.executable, "-m", "chronicle", "ratings", "--json", *map(str, files)]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    folded = json.loads(out.stdout)
    assert list(folded) == ["artus"]
    assert folded["artus"] == [{k: v for k, v in row.items() if k != "name"} for row in rows]
