"""Seeds at tables with people (issue #33): whoever chooses a game's seed can know every hidden
card, so the summary says so (``seed_chosen``) to everyone, and an operator may refuse chosen
seeds where another seat is a person or open (``CHRONICLE_CHOSEN_SEEDS=solo``).  Imports keep
their seed (their document holds it): never refused, always ``seed_chosen``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.app import create_app
from service.config import Settings
from service.redis_server import RedisServer
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import auth, refused

OPEN: dict[str, Any] = {"open": True}
BOT: dict[str, Any] = {"name": "Rob", "bot": "random"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("seeds"), persistent=False)
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def solo(url: str) -> FlaskClient:
    """An app whose operator set CHRONICLE_CHOSEN_SEEDS=solo."""
    return create_app(dataclasses.replace(settings(url), chosen_seeds="solo")).test_client()


@pytest.fixture(scope="module")
def default(url: str) -> FlaskClient:
    return create_app(settings(url)).test_client()


def json_of(r: TestResponse) -> Any:
    """The answer's JSON body: every answer these tests read has one."""
    assert r.json is not None
    return r.json


def create(c: FlaskClient, players: list[dict[str, Any]], **extra: Any) -> Any:
    return c.post("/api/v1/games", json={"game": "artus", "players": players, **extra})


def stored(r: redis.Redis) -> int:
    return len(list(r.scan_iter(match="{g:*}:meta")))


def summary(c: FlaskClient, gid: str) -> dict[str, Any]:
    got = c.get(f"/api/v1/games/{gid}")
    assert got.status_code == 200
    return dict(json_of(got))


def test_the_summary_and_the_list_say_whether_the_seed_was_chosen(default: FlaskClient) -> None:
    chosen = create(default, [{"name": "Ann"}, {"name": "Bob"}], seed="my deal", public=True)
    drawn = create(default, [{"name": "Ann"}, {"name": "Bob"}], public=True)
    assert chosen.status_code == drawn.status_code == 201
    assert summary(default, chosen.json["id"])["seed_chosen"] is True
    assert summary(default, drawn.json["id"])["seed_chosen"] is False
    games = json_of(default.get("/api/v1/games", query_string={"per_page": 100}))["games"]
    flags = {g["id"]: g["seed_chosen"] for g in games}
    assert flags[chosen.json["id"]] is True and flags[drawn.json["id"]] is False


def test_solo_refuses_a_chosen_seed_with_another_person_or_an_open_seat(
    solo: FlaskClient, url: str
) -> None:
    r = redis.Redis.from_url(url)
    before = stored(r)
    for players in ([{"name": "Ann"}, {"name": "Bob"}], [{"name": "Ann"}, OPEN], [OPEN, BOT]):
        err = refused(create(solo, players, seed="my deal"), 400, "bad_request", "seed")
        assert "hidden card" in err["message"]
    assert stored(r) == before  # nothing stored
    alone = create(solo, [{"name": "Ann"}, BOT], seed="my deal")
    assert alone.status_code == 201, alone.json
    assert summary(solo, alone.json["id"])["seed_chosen"] is True
    people = create(solo, [{"name": "Ann"}, {"name": "Bob"}])  # no seed: as ever
    assert people.status_code == 201 and summary(solo, people.json["id"])["seed_chosen"] is False


def test_an_import_with_its_seed_is_not_refused_and_says_its_seed_is_known(
    solo: FlaskClient, default: FlaskClient
) -> None:
    """A log of two people dealt from a chosen seed (made where chosen seeds are allowed)
    imports where they are not: an import brings its seed, it does not choose one."""
    created = create(default, [{"name": "Ann"}, {"name": "Bob"}], seed="to export")
    assert created.status_code == 201
    doc = solo.get(f"/api/v1/games/{created.json['id']}/export", headers=auth(ADMIN_TOKEN)).json
    headers = {"Content-Type": "application/json", **auth(ADMIN_TOKEN)}
    r = solo.post("/api/v1/games/import", data=json.dumps(doc), headers=headers)
    assert r.status_code == 201, r.json
    assert summary(solo, json_of(r)["id"])["seed_chosen"] is True


def test_the_setting_is_read_and_checked() -> None:
    assert Settings.from_env({"CHRONICLE_CHOSEN_SEEDS": "solo"}).chosen_seeds == "solo"
    assert Settings.from_env({}).chosen_seeds == "any"
    with pytest.raises(ValueError, match="CHRONICLE_CHOSEN_SEEDS"):
        Settings.from_env({"CHRONICLE_CHOSEN_SEEDS": "never"})
