"""Imports validated whole before anything is stored (issue 10): timestamps in range and in
order, ids, every field of the undo trail; the undo trail's own tamper evidence, reported by
``/audit`` beside ``chain_ok``; a legacy undo trail (no record signed) imports with every other
check and an audit that says it is unsigned, a half-signed one is refused; imports need the
admin token unless the operator opens them.

Each hostile document is re-chained with the revealed seed (as an attacker holding an export
can), so the log's chain alone cannot catch it.  The app runs in process on a Redis of this
module's own."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from chronicle import backup
from projections import chain
from projections.records import from_full
from service.app import create_app
from service.chronicle import now_ms
from service.redis_server import RedisServer
from service.redis_store import keys
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.test_hostile_input import Env, auth, json_of, redis_bytes, refused
from tests.reliability.test_preconditions import act, legal, placing_game

IMPORT = "/api/v1/games/import"
FAR = "9999-12-31T23:59:59.999-14:00"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RedisServer(tmp_path_factory.mktemp("imports"), persistent=False)
    url = server.start()
    yield create_app(settings(url)).test_client(), redis.Redis.from_url(url)
    server.stop()


def played_with_an_undo(c: FlaskClient, twice: bool = False) -> str:
    """A game with moves and one undo by a seat (the trail has one record; two if ``twice``)."""
    gid, tokens = placing_game(c)
    b = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    start = legal(c, gid, tokens[b])
    assert act(c, gid, tokens[b], start["actions"][0], start["version"]).status_code == 201
    assert c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[b])).status_code == 200
    assert act(c, gid, tokens[b], start["actions"][1], start["version"]).status_code == 201
    a = 1 - b
    mine = legal(c, gid, tokens[a])
    assert act(c, gid, tokens[a], mine["actions"][0], mine["version"]).status_code == 201
    if twice:
        undo = c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[a]))
        assert undo.status_code == 200, undo.json
        assert act(c, gid, tokens[a], mine["actions"][1], mine["version"]).status_code == 201
    return gid


def exported(c: FlaskClient, gid: str) -> dict[str, Any]:
    r = c.get(f"/api/v1/games/{gid}/export", headers=auth(ADMIN_TOKEN))
    assert r.status_code == 200
    return json_of(r)


def rechained(doc: dict[str, Any]) -> dict[str, Any]:
    """The log's hash chain re-made with the revealed seed (what an attacker can do)."""
    key, head, events = chain.chain_key(doc["seed"]), chain.GENESIS, []
    for e in doc["events"]:
        rec = from_full({**e, "hash": ""})
        head = chain.link(key, head, rec)
        events.append({**e, "hash": head})
    return {**doc, "events": events, "head_hash": head}


def post_import(c: FlaskClient, doc: Any, token: str | None = ADMIN_TOKEN) -> Any:
    return c.post(IMPORT, data=json.dumps(doc), headers={"Content-Type": "application/json",
                                                         **auth(token)})  # fmt: skip


def stored_games(r: redis.Redis) -> int:
    return len(list(r.scan_iter(match="{g:*}:meta")))


def test_far_future_times_with_odd_offsets_are_refused_and_listing_never_500s(env: Env) -> None:
    c, r = env
    doc = exported(c, played_with_an_undo(c))
    before = stored_games(r)
    far = rechained({**doc, "undone": [], "created_at": FAR,
                     "events": [{**e, "at": FAR} for e in doc["events"]]})  # fmt: skip
    refused(post_import(c, far), 422, "illegal_action", "field")
    only_events = rechained(
        {**doc, "undone": [], "events": [{**e, "at": FAR} for e in doc["events"]]}
    )
    refused(post_import(c, only_events), 422, "illegal_action", "field")
    for bad in ("x", "2026-13-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-01-01T00:00:00"):
        refused(post_import(c, rechained({**doc, "undone": [], "created_at": bad})), 422,
                "illegal_action")  # fmt: skip
    # times out of order (a later version dated before an earlier one)
    events = copy.deepcopy(doc["events"])
    events[-1]["at"] = "2001-01-01T00:00:00.000Z"
    refused(post_import(c, rechained({**doc, "undone": [], "events": events})), 422,
            "illegal_action")  # fmt: skip
    assert stored_games(r) == before
    for path in ("/api/v1/games", "/api/v1/games?status=active", "/api/v1/games?game=artus",
                 "/api/v1/games?status=finished"):  # fmt: skip
        assert c.get(path).status_code == 200, path


def test_ids_are_checked(env: Env) -> None:
    c, r = env
    doc = exported(c, played_with_an_undo(c))
    before = stored_games(r)
    for bad_id in ("", "a/b", "x" * 65, "spaces here", "é"):
        refused(post_import(c, {**doc, "id": bad_id}), 422, "illegal_action", "field")
    events = copy.deepcopy(doc["events"])
    events[-1]["actor"] = 7  # not a seat of a two-player game
    refused(post_import(c, rechained({**doc, "events": events})), 422, "illegal_action")
    assert stored_games(r) == before


def test_every_field_of_the_undo_trail_is_checked(env: Env) -> None:
    c, r = env
    doc = exported(c, played_with_an_undo(c))
    [record] = doc["undone"]
    before = stored_games(r)
    issue = {"by": "seat:0", "at": "x", "from_version": 5, "to_version": 4, "events": [{}]}
    refused(post_import(c, {**doc, "undone": [issue]}), 422, "illegal_action", "field")
    variants: list[dict[str, Any]] = [
        {**record, "by": "host"},  # made up: the undo trail's chain breaks
        {**record, "by": "seat:9"},
        {**record, "by": "root"},
        {**record, "at": FAR},
        {**record, "at": "2001-01-01T00:00:00.000Z"},  # before the events it undid
        {**record, "from_version": record["to_version"]},
        {**record, "to_version": 0},
        {**record, "events": [*record["events"][:-1], {}]},
        {**record, "events": [{**record["events"][0], "data": {"forged": True}}]},
        {**record, "hash": "0" * 64},
        {**record, "hash": None},
        {**record, "extra": 1},
    ]
    for i, bad in enumerate(variants):
        got = post_import(c, {**doc, "undone": [bad]})
        assert got.status_code in (400, 422), (i, got.status_code, got.json)
    made_up = {"by": "host", "at": record["at"], "from_version": record["from_version"],
               "to_version": record["to_version"], "events": record["events"],
               "hash": record["hash"]}  # fmt: skip
    refused(post_import(c, {**doc, "undone": [record, made_up]}), 422, "illegal_action")
    assert stored_games(r) == before
    ok = post_import(c, doc)
    assert ok.status_code == 201, ok.json
    audit = json_of(c.get(f"/api/v1/games/{json_of(ok)['id']}/audit", headers=auth(ADMIN_TOKEN)))
    assert audit["chain_ok"] is True and audit["undo_chain_ok"] is True
    assert audit["undo_chain_unsigned"] is None
    assert audit["imported"]["from"] == doc["id"]
    assert {"rules_replay", "hash_chain", "timestamps", "undo_trail"} <= set(
        audit["imported"]["verified"]
    )
    assert audit["undone"][0]["by"] == record["by"]


def test_the_undo_history_has_tamper_evidence_of_its_own(env: Env) -> None:
    c, r = env
    gid = played_with_an_undo(c)
    audit = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert audit["chain_ok"] is True and audit["undo_chain_ok"] is True
    assert audit["first_bad_undo"] is None and audit["imported"] is None
    [record] = audit["undone"]
    made_up = {**record, "by": "host"}
    r.rpush(keys(gid)["undone"], json.dumps(made_up))
    tampered = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert tampered["chain_ok"] is True
    assert tampered["undo_chain_ok"] is False and tampered["first_bad_undo"] == 1
    r.lset(keys(gid)["undone"], 0, json.dumps({**record, "by": "host"}))
    r.rpop(keys(gid)["undone"])
    edited = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert edited["undo_chain_ok"] is False and edited["first_bad_undo"] == 0


def unsigned(record: dict[str, Any]) -> dict[str, Any]:
    """An undo record as an export from before the undo trail's chain has it."""
    return {k: v for k, v in record.items() if k != "hash"}


def test_a_legacy_undo_trail_imports_unsigned_and_a_half_signed_one_is_refused(env: Env) -> None:
    c, r = env
    doc = exported(c, played_with_an_undo(c, twice=True))
    first, second = doc["undone"]
    before = stored_games(r)
    # all or none: one record signed and the other not is refused, either way round
    for trail, where in (([first, unsigned(second)], "undone.1.hash"),
                         ([unsigned(first), second], "undone.1.hash")):  # fmt: skip
        err = refused(post_import(c, {**doc, "undone": trail}), 422, "illegal_action", "field")
        assert err["details"]["field"] == where, err
    # every other check of a record still holds without its hash
    legacy = [unsigned(first), unsigned(second)]
    for bad in ({**legacy[0], "by": "seat:9"}, {**legacy[0], "at": FAR},
                {**legacy[0], "events": [{**first["events"][0], "data": {"forged": True}}]},
                {**legacy[0], "to_version": 0}):  # fmt: skip
        refused(post_import(c, {**doc, "undone": [bad, legacy[1]]}), 422, "illegal_action")
    assert stored_games(r) == before

    ok = post_import(c, {**doc, "undone": legacy})
    assert ok.status_code == 201, ok.json
    gid = json_of(ok)["id"]
    audit = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert audit["chain_ok"] is True
    assert audit["undo_chain_ok"] is None and audit["first_bad_undo"] is None
    assert "first 2 undo records" in audit["undo_chain_unsigned"]
    assert [u["by"] for u in audit["undone"]] == [first["by"], second["by"]]
    assert all("hash" not in u for u in audit["undone"])
    verified = audit["imported"]["verified"]
    assert "undo_trail" not in verified and {"rules_replay", "hash_chain"} <= set(verified)

    # a later undo on it is signed, chained from the genesis: the verdict stays "unsigned"
    # for the legacy records and the new one is checked (a change to it shows)
    tokens = {s["seat"]: s["token"] for s in json_of(ok)["seats"]}
    seat = json_of(c.get(f"/api/v1/games/{gid}"))["to_act"][0]
    mine = legal(c, gid, tokens[seat])
    assert act(c, gid, tokens[seat], mine["actions"][0], mine["version"]).status_code == 201
    undo = c.post(f"/api/v1/games/{gid}/undo", json={}, headers=auth(tokens[seat]))
    assert undo.status_code == 200, undo.json
    audit = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert audit["undo_chain_ok"] is None and audit["first_bad_undo"] is None
    assert "first 2 undo records" in audit["undo_chain_unsigned"]
    assert "hash" in audit["undone"][2]
    # its backup line restores with the unsigned records its meta counts, and no other way
    meta = {
        redis_bytes(k).decode(): redis_bytes(v).decode()
        for k, v in r.hgetall(keys(gid)["meta"]).items()
    }
    line = {"format": backup.FORMAT, "id": gid, "meta": meta, "export": exported(c, gid)}
    assert backup.check(line, now_ms())[4] == line["export"]["undone"]
    for bad_meta in ({k: v for k, v in meta.items() if k != "unsigned_undos"},
                     {**meta, "unsigned_undos": "3"},
                     {**meta, "verified": json.dumps(["undo_trail"])}):  # fmt: skip
        with pytest.raises(backup.RestoreRefused, match="undo"):
            backup.check({**line, "meta": bad_meta}, now_ms())
    record = json.loads(redis_bytes(r.lindex(keys(gid)["undone"], 2)))
    r.lset(keys(gid)["undone"], 2, json.dumps({**record, "by": "host"}))
    tampered = json_of(c.get(f"/api/v1/games/{gid}/audit", headers=auth(ADMIN_TOKEN)))
    assert tampered["undo_chain_ok"] is False and tampered["first_bad_undo"] == 2

    # a game of this service whose hashes are stripped is not "unsigned": it is broken
    native = played_with_an_undo(c)
    [record] = [json.loads(u) for u in r.lrange(keys(native)["undone"], 0, -1)]
    r.lset(keys(native)["undone"], 0, json.dumps(unsigned(record)))
    stripped = json_of(c.get(f"/api/v1/games/{native}/audit", headers=auth(ADMIN_TOKEN)))
    assert stripped["undo_chain_ok"] is False and stripped["first_bad_undo"] == 0
    assert stripped["undo_chain_unsigned"] is None


def test_imports_need_the_admin_token_unless_opened(env: Env, tmp_path: Path) -> None:
    c, r = env
    gid = played_with_an_undo(c)
    doc = exported(c, gid)
    seat_token = placing_game(c)[1][0]
    before = stored_games(r)
    refused(post_import(c, doc, None), 401, "unauthorized")
    refused(post_import(c, doc, seat_token), 401, "unauthorized")
    refused(post_import(c, doc, "made-up"), 401, "unauthorized")
    assert stored_games(r) == before
    opened = create_app(replace(settings(_url(r)), open_import=True)).test_client()
    assert post_import(opened, doc, None).status_code == 201
    assert stored_games(r) == before + 1


def _url(r: redis.Redis) -> str:
    kw = r.connection_pool.connection_kwargs
    if "path" in kw:
        return f"unix://{kw['path']}"
    return f"redis://{kw['host']}:{kw['port']}/0"
