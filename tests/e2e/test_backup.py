"""`chronicle backup` and `chronicle restore` between real Redis servers, through the real
command line: every game comes back with its id, tokens, log, undo trail, chat (a hidden line
stays hidden) and status, and goes on; a tampered line (its log, meta, undo trail or chat) is
refused with its game named and nothing written.  Also `chronicle
replay`'s verdict and the help text of every flag."""

from __future__ import annotations

import argparse
import json
import os
import random
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from chronicle import parser as chronicle_parser
from service.app import create_app
from service.redis_server import RedisServer, free_port
from tests.conftest import ROOT, running_worker, settings
from tests.support.client import Client
from tests.support.play import new_game, play_random
from tests.support.server import serving


def cli(*args: str, redis_url: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_REDIS_URL")}
    environ.update(PYTHONPATH=str(ROOT), **env)
    if redis_url:
        environ["REDIS_URL"] = redis_url
    command = [sys.executable, "-m", "chronicle", *args]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)


@pytest.fixture
def new_redis(tmp_path: Path) -> Iterator[Any]:
    started: list[RedisServer] = []

    def start(name: str, port: bool = True) -> str:
        server = RedisServer(tmp_path / name, port=free_port() if port else None, persistent=False)
        started.append(server)
        return server.start()

    yield start
    for s in started:
        s.stop()


Source = tuple[str, Client, dict[str, Any]]  # Redis URL, its API, {game id: seat tokens}


@pytest.fixture(scope="module")
def source(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Client, dict[str, Any]]]:
    """A Redis with three games: finished (Artus), in play with an undone move and chat lines,
    one hidden by the host (Artus), and Lancaster in play; served over HTTP with a worker for
    the scoring.  The tests only read it."""
    server = RedisServer(tmp_path_factory.mktemp("source"), port=free_port(), persistent=False)
    url = server.start()
    with serving(create_app(settings(url))) as base, running_worker(url):
        api = Client(base)
        rng = random.Random(15)
        done, done_tokens = new_game(api, "artus", {"rules": "basic"}, 2)
        play_random(api, done, done_tokens, rng)
        api.wait_status(done, "finished", timeout=60)
        created = api.create(
            "artus", [{"name": "P0"}, {"name": "P1"}], options={"rules": "basic", "undo": "turn"}
        )
        live, host = created["id"], created["host_token"]
        live_tokens = {s["seat"]: s["token"] for s in created["seats"]}
        for seat, text in ((0, "good luck"), (1, "you too"), (0, "a line to hide")):
            said = api.post(f"/api/v1/games/{live}/chat", {"text": text}, live_tokens[seat])
            assert said.status_code == 201, said.text
        hidden = api.post(f"/api/v1/games/{live}/chat/{said.json()['id']}/hide", {}, host)
        assert hidden.status_code == 200, hidden.text
        for _ in range(12):  # into the play, then one card played and undone
            s = api.summary(live)
            listed = api.actions(live, live_tokens[s["to_act"][0]])
            api.act(live, live_tokens[s["to_act"][0]], listed["actions"][0], listed["version"])
        s = api.summary(live)
        seat = s["to_act"][0]
        played = [a for a in api.actions(live, live_tokens[seat])["actions"] if a["type"] == "play"]
        assert api.act(live, live_tokens[seat], played[0], s["version"]).status_code == 201
        undo = api.post(f"/api/v1/games/{live}/undo", {}, live_tokens[seat])
        assert undo.status_code == 200, undo.text
        lan, lan_tokens = new_game(api, "lancaster", {}, 3)
        for _ in range(5):
            s = api.summary(lan)
            listed = api.actions(lan, lan_tokens[s["to_act"][0]])
            api.act(lan, lan_tokens[s["to_act"][0]], listed["actions"][0], listed["version"])
        games = {done: done_tokens, live: live_tokens, lan: lan_tokens}
        yield url, api, games
    server.stop()


def snapshot(api: Client, gid: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Everything a client can see of a game, as the operator and as each seat."""
    admin = {"Authorization": "Bearer test-admin-token"}
    audit = api.http.get(f"{api.base}/api/v1/games/{gid}/audit", headers=admin, timeout=10).json()
    export = api.http.get(f"{api.base}/api/v1/games/{gid}/export", headers=admin, timeout=10)
    for u in audit["undone"]:
        u.pop("at", None)
    return {
        "summary": api.summary(gid),
        "views": {seat: api.view(gid, token) for seat, token in tokens.items()},
        "audit": audit,
        "export": export.json(),
    }


def test_backup_then_restore_gives_back_every_game(
    source: Source, new_redis: Any, tmp_path: Path
) -> None:
    src_url, src_api, games = source
    before = {gid: snapshot(src_api, gid, tokens) for gid, tokens in games.items()}
    backup = tmp_path / "games.jsonl"
    out = cli("backup", str(backup), redis_url=src_url)
    assert out.returncode == 0, out.stderr
    assert "backed up 3 games" in out.stdout
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600  # seeds and token hashes: owner only
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    assert {line["id"] for line in lines} == set(games)
    with_chat = next(line for line in lines if line["export"]["chat"])
    assert [c["text"] for c in with_chat["export"]["chat"]] == [
        "good luck", "you too", "a line to hide"
    ]  # fmt: skip
    assert with_chat["export"]["chat"][2]["hidden_by"]["by"] == "host"

    dst_url = new_redis("restored")
    out = cli("restore", str(backup), redis_url=dst_url)
    assert out.returncode == 0, out.stderr
    assert "restored 3 games" in out.stdout
    with serving(create_app(settings(dst_url))) as base:
        api = Client(base)
        after = {gid: snapshot(api, gid, tokens) for gid, tokens in games.items()}
        assert after == before
        # the chat came back: the hidden line is still hidden (no text) to the seats
        live = with_chat["id"]
        said = api.get(f"/api/v1/games/{live}/chat", games[live][0]).json()["lines"]
        assert [c.get("text") for c in said] == ["good luck", "you too", None]
        assert said[2]["hidden"] is True
        assert api.get("/api/v1/games", "test-admin-token").json()["total"] == 3
        # unlisted tables: listed to their seats again (the restore indexed their tokens)
        assert [g["id"] for g in api.get("/api/v1/games", games[live][0]).json()["games"]] == [live]
        # once more: every game is already there (same head), nothing is doubled
        again = cli("restore", str(backup), redis_url=dst_url)
        assert again.returncode == 0 and "restored 0 games" in again.stdout, again.stderr
        assert "3 already present" in again.stdout
        # the same tokens act on the restored game, at the version it had
        assert before[live]["export"]["undone"]
        s = api.summary(live)
        seat = s["to_act"][0]
        listed = api.actions(live, games[live][seat])
        r = api.act(live, games[live][seat], listed["actions"][0], listed["version"])
        assert r.status_code == 201, r.text
    # now the restored game differs from its backup: restoring over it is refused
    moved = cli("restore", str(backup), redis_url=dst_url)
    assert moved.returncode == 1 and f"game {live}: a different game" in moved.stderr


def test_a_tampered_line_is_refused_with_its_game_named(
    source: Source, new_redis: Any, tmp_path: Path
) -> None:
    src_url, _, games = source
    backup = tmp_path / "games.jsonl"
    assert cli("backup", str(backup), redis_url=src_url).returncode == 0
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    dst_url = new_redis("target")
    target = redis.Redis.from_url(dst_url)

    def refused(tampered: list[dict[str, Any]], gid: str, why: str) -> None:
        path = tmp_path / "tampered.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in tampered))
        out = cli("restore", str(path), redis_url=dst_url)
        assert out.returncode == 1, out.stdout
        assert f"game {gid}" in out.stderr and why in out.stderr, out.stderr
        assert "nothing was written" in out.stderr
        assert target.dbsize() == 0

    # a card changed in the middle of a log: the chain breaks at that version
    bad = json.loads(json.dumps(lines))
    victim = bad[1]
    event = next(e for e in victim["export"]["events"][5:] if e["data"])
    field = next(iter(event["data"]))
    event["data"][field] = "forged" if isinstance(event["data"][field], str) else 99
    refused(bad, victim["id"], f"version {event['version']}")

    # the meta says finished when the log does not (or the reverse)
    bad = json.loads(json.dumps(lines))
    bad[2]["meta"]["status"] = "finished" if bad[2]["meta"]["status"] != "finished" else "active"
    refused(bad, bad[2]["id"], "status")

    # a seed swapped for another game's: the chain is keyed by the seed
    bad = json.loads(json.dumps(lines))
    bad[0]["export"]["seed"], bad[0]["meta"]["seed"] = "00" * 32, "00" * 32
    refused(bad, bad[0]["id"], "version 1")

    # the undo trail made up (who undid it): its own chain breaks, nothing is written
    bad = json.loads(json.dumps(lines))
    victim = next(line for line in bad if line["export"]["undone"])
    victim["export"]["undone"][0]["by"] = "host"
    refused(bad, victim["id"], "undone.0.hash")
    # an undo record planted (a copy of the real one): refused as the import refuses it
    bad = json.loads(json.dumps(lines))
    victim = next(line for line in bad if line["export"]["undone"])
    victim["export"]["undone"].append(dict(victim["export"]["undone"][0]))
    refused(bad, victim["id"], "undone.1")
    # its hashes stripped (passing for a legacy trail): refused, the meta says it was signed
    bad = json.loads(json.dumps(lines))
    victim = next(line for line in bad if line["export"]["undone"])
    victim["export"]["undone"][0].pop("hash")
    refused(bad, victim["id"], "undone.0.hash")
    # a chat line checked as the import checks it
    bad = json.loads(json.dumps(lines))
    victim = next(line for line in bad if line["export"]["chat"])
    victim["export"]["chat"][0]["room"] = "backstage"
    refused(bad, victim["id"], "chat.0")

    # a line that is not JSON
    path = tmp_path / "broken.jsonl"
    path.write_text(backup.read_text() + "{not json\n")
    out = cli("restore", str(path), redis_url=dst_url)
    assert out.returncode == 1 and "line 4" in out.stderr and target.dbsize() == 0
    assert len(lines) == len(games)


def test_restore_into_the_embedded_redis_of_serve(source: Source, tmp_path: Path) -> None:
    src_url, _, games = source
    backup = tmp_path / "games.jsonl"
    assert cli("backup", str(backup), redis_url=src_url).returncode == 0
    data = tmp_path / "data"
    missing = cli("restore", str(backup), "--data-dir", str(data), redis_url=None)
    assert missing.returncode != 0 and "REDIS_URL is not set" in missing.stderr
    embedded = RedisServer(data / "redis", persistent=False)  # as `chronicle serve` runs it
    url = embedded.start()
    try:
        checked = cli("restore", "--check", str(backup), "--data-dir", str(data), redis_url=None)
        assert checked.returncode == 0 and "3 games checked" in checked.stdout
        assert redis.Redis.from_url(url).dbsize() == 0
        out = cli("restore", str(backup), "--data-dir", str(data), redis_url=None)
        assert out.returncode == 0 and "restored 3 games" in out.stdout, out.stderr
        assert redis.Redis.from_url(url).zcard("games:index") == len(games)
    finally:
        embedded.stop()


def test_replay_prints_a_summary_and_ends_with_a_verdict(source: Source, tmp_path: Path) -> None:
    _, api, games = source
    done = next(g for g in games if api.summary(g)["status"] == "finished")
    export = api.get(f"/api/v1/games/{done}/export").json()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    out = cli("replay", str(path), redis_url=None)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) <= 8, out.stdout
    assert lines[-1] == (
        f"verdict: OK: {len(export['events'])} events replay through the rules of artus, "
        "chain intact, finished"
    )
    verbose = cli("replay", "--verbose", str(path), redis_url=None)
    assert len(verbose.stdout.splitlines()) > 50 and '"state"' in verbose.stdout
    assert verbose.stdout.splitlines()[-1] == lines[-1]

    export["events"][-3]["hash"] = "0" * 64  # the chain breaks there
    path.write_text(json.dumps(export))
    bad = cli("replay", str(path), redis_url=None)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1].startswith("verdict: REFUSED: version ")
    export["events"][-3]["at"] = "2001-01-01T00:00:00Z"  # the import's time checks: refused too
    path.write_text(json.dumps(export))
    bad = cli("replay", str(path), redis_url=None)
    assert bad.returncode == 1 and "dated before the one before it" in bad.stderr
    path.write_text("[1, 2")
    assert cli("replay", str(path), redis_url=None).returncode == 2


def test_every_flag_has_help_text() -> None:
    seen: list[str] = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    assert sub.description or action._choices_actions, sub_name
                    walk(sub, f"{name} {sub_name}")
            elif not isinstance(action, argparse._HelpAction):
                assert action.help, f"`{name}` {action.option_strings or action.dest} has no help"
                seen.append(f"{name} {action.dest}")

    walk(chronicle_parser(), "chronicle")
    expected = {"chronicle serve host", "chronicle replay verbose", "chronicle restore check"}
    assert expected <= set(seen)
