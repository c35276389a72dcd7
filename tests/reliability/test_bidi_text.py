"""Issue 33: bidirectional overrides and other invisible characters (``service.invisible``)
in player names and chat lines are refused with a 400 naming the code point, nothing stored
or appended, wherever a name or a line enters: creation, join, a spectator's chat name, a chat
line, and an import (422, as every import refusal).  Chinese, Japanese and Korean names, and
emoji sequences in chat (joiners, variation selectors, a subdivision flag), still pass.

The app runs in process on a Redis of this module's own, with no worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.errors import BadAction
from projections.views import SEAT, Caller
from service import chat
from service.app import create_app
from service.redis_server import RedisServer
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import Env, Unchanged, auth, json_of, refused
from tests.reliability.test_imports import rechained

RLO = "\u202e"
# What makes a name read as another: one of each kind refused (service.invisible)
INVISIBLE = {
    "\u202a": "U+202A",  # left-to-right embedding
    "\u202e": "U+202E",  # right-to-left override
    "\u2066": "U+2066",  # left-to-right isolate
    "\u2069": "U+2069",  # pop directional isolate
    "\u200b": "U+200B",  # zero width space
    "\u200d": "U+200D",  # zero width joiner: fine in chat, not in a name
    "\u200f": "U+200F",  # right-to-left mark
    "\u061c": "U+061C",  # Arabic letter mark
    "\u180e": "U+180E",  # Mongolian vowel separator
    "\u2028": "U+2028",  # line separator
    "\ufeff": "U+FEFF",  # zero width no-break space
    "\u3164": "U+3164",  # Hangul filler: a letter that shows nothing
    "\U000e0041": "U+E0041",  # tag latin capital letter A: hidden text
}
NAMES = (
    "山田太郎",  # Japanese
    "さくら",
    "王小明",  # Chinese
    "김민준",  # Korean
    "葛\U000e0100城",  # a kanji with its ideographic variation selector
    "Ann ❤️",  # an emoji with its presentation selector
    "مریم",  # Persian, right to left without any control
)
LINES = (
    "👨‍👩‍👧 gg",  # a family: joined by U+200D
    "🏳️‍🌈",  # a rainbow flag: U+FE0F and U+200D
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland's flag (tags)
    "می‌خواهم",  # Persian: U+200C, the zero width non-joiner, in a word
    "良い試合でした。",
)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("bidi"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def games(r: redis.Redis) -> int:
    return len(list(r.scan_iter(match="{g:*}:meta")))


def create(c: FlaskClient, players: list[dict[str, Any]], **fields: Any) -> TestResponse:
    return c.post("/api/v1/games", json={"game": "artus", "players": players, **fields})


def names_code_point(err: dict[str, Any], code_point: str, field: str) -> None:
    assert code_point in err["message"], err
    assert any(code_point in m for m in err["details"][field]), err


def test_names_with_invisible_characters_are_refused_at_creation(env: Env) -> None:
    c, r = env
    before = games(r)
    for char, code_point in INVISIBLE.items():
        for name in (f"Ann{char}", f"Ann{char}nB", f"{char}Bob"):
            err = refused(create(c, [{"name": "Zed"}, {"name": name}]), 400, "bad_request")
            names_code_point(err, code_point, "players.1.name")
    assert games(r) == before, "nothing stored"
    for name in NAMES:
        made = create(c, [{"name": name}, {"name": "Zed"}])
        assert made.status_code == 201, (name, made.json)
        assert json_of(c.get(f"/api/v1/games/{json_of(made)['id']}"))["seats"][0]["name"] == name


def test_a_name_with_an_override_is_refused_at_join(env: Env) -> None:
    c, r = env
    created = create(c, [{"name": "Ann"}, {"open": True}], public=True)
    assert created.status_code == 201, created.json
    gid = json_of(created)["id"]
    with Unchanged(r, gid):
        for char, code_point in INVISIBLE.items():
            answer = c.post(f"/api/v1/games/{gid}/join", json={"name": f"Bob{char}"})
            names_code_point(refused(answer, 400, "bad_request"), code_point, "name")
    assert json_of(c.get(f"/api/v1/games/{gid}"))["seats"][1] == {"seat": 1, "open": True}
    joined = c.post(f"/api/v1/games/{gid}/join", json={"name": "さくら"})
    assert joined.status_code == 201, joined.json
    assert json_of(c.get(f"/api/v1/games/{gid}"))["seats"][1]["name"] == "さくら"


def test_chat_lines_and_spectator_names_with_an_override_are_refused(env: Env) -> None:
    c, r = env
    created = json_of(create(c, [{"name": "Ann"}, {"name": "Bob"}]))
    gid, ann = created["id"], created["seats"][0]["token"]
    say = f"/api/v1/games/{gid}/chat"
    for char, code_point in INVISIBLE.items():
        if char == "\u200d":
            continue  # a joiner is part of emoji: allowed in a line (below)
        err = refused(
            c.post(say, json={"text": f"gg{char}"}, headers=auth(ann)), 400, "bad_request"
        )
        names_code_point(err, code_point, "text")
        err = refused(c.post(say, json={"text": "hi", "name": f"Fan{char}"}), 400, "bad_request")
        names_code_point(err, code_point, "name")
    # a tag sequence that is no flag is hidden text
    err = refused(
        c.post(say, json={"text": "ok\U000e0068\U000e0069\U000e007f"}, headers=auth(ann)),
        400,
        "bad_request",
    )
    names_code_point(err, "U+E0068", "text")
    assert r.xlen(chat.keys(gid)["chat"]) == 0, "nothing appended"
    for text in LINES:
        posted = c.post(say, json={"text": text}, headers=auth(ann))
        assert posted.status_code == 201, (text, posted.json)
    lines = json_of(c.get(say, headers=auth(ann)))["lines"]
    assert [x["text"] for x in lines] == list(LINES)


def test_the_chat_service_refuses_them_without_the_http_schema(env: Env) -> None:
    _, r = env
    seat, spectator = Caller(SEAT, 0), Caller("spectator", None)
    for caller, text, name, field in (
        (seat, f"gg{RLO}", None, "text"),
        (spectator, "hi", f"Fan{RLO}", "name"),
        (spectator, "hi", "Fan\u200d", "name"),
    ):
        with pytest.raises(BadAction, match=r"U\+") as refusal:
            chat.post(r, "bidi-direct", caller, ["Ann"], text, None, name, "addr:x", 0)
        assert field in refusal.value.details
    assert r.xlen(chat.keys("bidi-direct")["chat"]) == 0


def _finished_export(c: FlaskClient) -> dict[str, Any]:
    created = json_of(create(c, [{"name": "Ann"}, {"open": True}], public=True))
    gid, host = created["id"], created["host_token"]
    bob = json_of(c.post(f"/api/v1/games/{gid}/join", json={"name": "Bob"}))["token"]
    for body, token in (({"text": "gl"}, bob), ({"text": "go", "name": "Fan"}, None)):
        posted = c.post(f"/api/v1/games/{gid}/chat", json=body, headers=auth(token))
        assert posted.status_code == 201, posted.json
    assert c.post(f"/api/v1/games/{gid}/abandon", json={}, headers=auth(host)).status_code == 200
    return json_of(c.get(f"/api/v1/games/{gid}/export", headers=auth(ADMIN_TOKEN)))


def test_an_import_with_an_override_in_a_name_or_a_line_is_refused_whole(env: Env) -> None:
    c, r = env
    export = _finished_export(c)
    assert c.post("/api/v1/games/import", json=export, headers=auth(ADMIN_TOKEN)).status_code == 201
    before = games(r)

    def spoiled(*paths: tuple[Any, ...]) -> dict[str, Any]:
        """The export with RLO added to each string at ``paths``, the log re-chained with
        the revealed seed (what whoever holds a finished game's export can do)."""
        doc = json.loads(json.dumps(export))
        for path in paths:
            node = doc
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = f"{node[path[-1]]}{RLO}x"
        return rechained(doc)

    created = next(i for i, e in enumerate(export["events"]) if e["type"] == "GameCreated")
    joined = next(i for i, e in enumerate(export["events"]) if e["type"] == "SeatJoined")
    for doc in (
        spoiled(("chat", 0, "text")),
        spoiled(("chat", 1, "name")),
        spoiled(("events", created, "data", "players", 0, "name")),
        spoiled(("events", joined, "data", "name"), ("events", joined, "command", "name")),
    ):
        answer = c.post("/api/v1/games/import", json=doc, headers=auth(ADMIN_TOKEN))
        err = refused(answer, 422, "illegal_action")
        assert "U+202E" in err["message"], err
    assert games(r) == before, "nothing stored"
