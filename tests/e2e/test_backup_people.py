"""`chronicle backup` carries the people's records (accounts, the Web Push keys, the ratings)
beside the games, and `chronicle restore` brings them back into an empty Redis through the real
command line: the account's API token and session still sign in, its blocks and games are
kept, the push key is the same (subscriptions stay valid), a binary value survives; a second
restore overwrites nothing; a malformed record line is refused with nothing written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service import push
from service.accounts import API, Accounts
from service.app import create_app
from service.redis_server import RedisServer, free_port
from tests.conftest import settings
from tests.e2e.test_backup import cli
from tests.support.client import Client
from tests.support.server import serving

pytestmark = pytest.mark.e2e


@pytest.fixture
def new_redis(tmp_path: Path) -> Iterator[Any]:
    """Starts empty Redis servers of the test's own on free ports; stops them after."""
    started: list[RedisServer] = []

    def start(name: str) -> str:
        server = RedisServer(tmp_path / name, port=free_port(), persistent=False)
        started.append(server)
        return server.start()

    yield start
    for s in started:
        s.stop()


def _account(r: redis.Redis) -> dict[str, Any]:
    accounts = Accounts(r)
    pending = accounts.ask_code("ada@example.org", "127.0.0.1")
    assert pending is not None
    ada = accounts.verify_code(pending.code, "127.0.0.1", name="Ada")
    other = accounts.verify_code(
        accounts.ask_code("bo@example.org", "127.0.0.1").code,  # type: ignore[union-attr]
        "127.0.0.1",
        name="Bo",
    )
    _, api_token = accounts.issue(ada.id, kind=API, name="laptop", scopes=["read"])
    _, session = accounts.issue(ada.id)
    accounts.block(ada.id, other.id)
    accounts.add_game(ada.id, "g-one", 1_700_000_000_000)
    _, public = push.vapid(r)
    r.hset("ratings:{artus}", "bin", b"\xff\x00 not utf-8")  # a value only base64 can carry
    return {"id": ada.id, "other": other.id, "api": api_token, "session": session, "key": public}


def _me(base: str, token: str) -> dict[str, Any]:
    answer = Client(base).get("/api/v1/me", token)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_accounts_push_keys_and_ratings_come_back(new_redis: Any, tmp_path: Path) -> None:
    src_url = new_redis("people")
    src = redis.Redis.from_url(src_url)
    ada = _account(src)
    backup = tmp_path / "all.jsonl"
    out = cli("backup", str(backup), redis_url=src_url)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    keys = {line["key"] for line in lines}
    assert f"acct:{ada['id']}" in keys and "push:vapid" in keys and "ratings:{artus}" in keys
    assert not any(k.startswith("acct:code:") for k in keys)  # codes were used: gone
    session_line = next(line for line in lines if line["key"].startswith("acct:token:") and
                        line.get("ttl_ms"))  # fmt: skip
    assert session_line["ttl_ms"] > 0  # a session keeps what was left of its time
    assert f"backed up 0 games (0 events) and {len(lines)} records" in out.stdout

    dst_url = new_redis("restored")
    out = cli("restore", str(backup), redis_url=dst_url)
    assert out.returncode == 0, out.stderr
    assert f"and {len(lines)} records of accounts and ratings" in out.stdout
    dst = redis.Redis.from_url(dst_url)
    assert dst.hget("ratings:{artus}", "bin") == b"\xff\x00 not utf-8"
    assert push.vapid(dst)[1] == ada["key"]
    assert 0 < int(dst.pttl(session_line["key"])) <= session_line["ttl_ms"]
    with serving(create_app(settings(dst_url))) as base:
        for token in (ada["api"], ada["session"]):
            me = _me(base, token)
            assert (me["id"], me["name"], me["email"]) == (ada["id"], "Ada", "ada@example.org")
        restored = Accounts(dst)
        assert restored.blocks(ada["id"]) == {ada["other"]}
        assert restored.games(ada["id"]) == ["g-one"]

    # again: every record is there; nothing is overwritten, and the output says so
    dst.hset(f"acct:{ada['id']}", "name", "Ada L.")
    again = cli("restore", str(backup), redis_url=dst_url)
    assert again.returncode == 0, again.stderr
    assert f"0 records of accounts and ratings ({len(lines)} already present)" in again.stdout
    assert dst.hget(f"acct:{ada['id']}", "name") == b"Ada L."


@pytest.mark.parametrize(
    "change, why",
    [
        ({"key": "games:x"}, "one of the people's records"),
        ({"type": "stream"}, "type must be one of"),
        ({"ttl_ms": -5}, "ttl_ms must be a positive"),
        ({"value": 3}, "value is malformed"),
    ],
)
def test_a_bad_record_line_is_refused_and_nothing_written(
    new_redis: Any, tmp_path: Path, change: dict[str, Any], why: str
) -> None:
    line = {"format": "chronicle-backup/1", "key": "acct:x", "type": "hash", "value": {"a": "b"}}
    good = {**line, "key": "acct:y"}
    backup = tmp_path / "bad.jsonl"
    backup.write_text(json.dumps(good) + "\n" + json.dumps({**line, **change}) + "\n")
    dst_url = new_redis("refused")
    out = cli("restore", str(backup), redis_url=dst_url)
    assert out.returncode == 1
    assert "line 2" in out.stderr and why in out.stderr, out.stderr
    assert redis.Redis.from_url(dst_url).exists("acct:y") == 0  # the good line was not written
