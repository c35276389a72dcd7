"""The audit: who did what and when, a hash chain that proves the log untampered."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import redis

from service.redis_store import FIELD, decode_entry, encode_record, keys
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import new_game, play_random


def test_chain_verifies_and_one_changed_event_breaks_it(
    api: Client, redis_client: redis.Redis
) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    rng = random.Random(3)
    for _ in range(12):
        seat = api.summary(gid)["to_act"][0]
        listed = api.actions(gid, tokens[seat])
        assert (
            api.act(gid, tokens[seat], rng.choice(listed["actions"]), listed["version"]).status_code
            == 201
        )
    audit = api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
    assert audit["chain_ok"] is True
    assert audit["head_hash"] == audit["events"][-1]["hash"]
    assert [e["version"] for e in audit["events"]] == list(range(1, len(audit["events"]) + 1))
    assert all(e["at"].endswith("Z") for e in audit["events"])
    assert {e["actor"] for e in audit["events"][2:]} == {0, 1}

    # Change one stored event by hand: move a knight to another seat in the stream entry (its
    # stored hash unchanged).
    log = keys(gid)["log"]
    entries = redis_client.xrange(log)
    assert entries is not None
    pipe = redis_client.pipeline()
    pipe.delete(log)
    for eid, fields in entries:
        assert eid is not None and fields is not None
        stored: dict[Any, Any] = dict(fields)
        if eid == b"5-0":
            rec = decode_entry(eid, fields)
            data = {**rec.data, "seat": (rec.data["seat"] + 1) % 29}
            stored = {FIELD: encode_record(replace(rec, data=data))}
        pipe.xadd(log, stored, id=eid)
    pipe.execute()

    broken = api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
    assert broken["chain_ok"] is False
    assert broken["first_bad_version"] == 5


def test_players_get_a_redacted_audit_before_the_end(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    audit = api.get(f"/api/v1/games/{gid}/audit", tokens[0]).json()
    started = audit["events"][1]
    assert started["type"] == "GameStarted"
    assert started["data"]["hands"][0] and started["data"]["hands"][1] is None
    assert "command" not in started
    spectator = api.get(f"/api/v1/games/{gid}/audit").json()
    assert spectator["events"][1]["data"]["hands"] == [None, None]
    assert spectator["chain_ok"] is True


def test_export_needs_a_finished_game_or_the_operator(api: Client, worker) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    assert api.get(f"/api/v1/games/{gid}/export", tokens[0]).status_code == 403
    admin = api.get(f"/api/v1/games/{gid}/export", ADMIN_TOKEN)
    assert admin.status_code == 200 and admin.json()["seed"]
    summary = json.dumps(api.summary(gid))  # only its commitment, and whether it was chosen
    assert admin.json()["seed"] not in summary and '"seed":' not in summary
    play_random(api, gid, tokens, random.Random(1))
    api.wait_status(gid, "finished")
    doc = api.get(f"/api/v1/games/{gid}/export").json()
    import hashlib

    assert hashlib.sha256(doc["seed"].encode()).hexdigest() == doc["seed_commitment"]


def test_import_refuses_tampered_and_illegal_logs(api: Client, worker) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    play_random(api, gid, tokens, random.Random(2))
    api.wait_status(gid, "finished")
    doc = api.get(f"/api/v1/games/{gid}/export").json()

    tampered = json.loads(json.dumps(doc))
    tampered["events"][6]["data"]["seat"] = (
        28 if tampered["events"][6]["data"].get("seat") != 28 else 27
    )
    r = api.post("/api/v1/games/import", tampered, ADMIN_TOKEN)
    assert r.status_code == 422 and r.json()["error"]["details"]["version"] == 7
    assert "hash chain" in r.json()["error"]["message"]

    # An illegal command re-chained with the right key is still refused by the rules.
    from projections import chain
    from projections.records import from_full, full

    recs = [from_full(e) for e in doc["events"]]
    key = chain.chain_key(doc["seed"])
    bad_cmd = dict(recs[2].command, seat=99)
    recs[2] = replace(recs[2], command=bad_cmd)
    head = recs[1].hash
    for i in range(2, len(recs)):
        recs[i] = replace(recs[i], hash=chain.link(key, head, recs[i]))
        head = recs[i].hash
    illegal = {**doc, "events": [full(r) for r in recs], "head_hash": head}
    r = api.post("/api/v1/games/import", illegal, ADMIN_TOKEN)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["details"]["version"] == 3
    assert "AR-" in r.json()["error"]["message"]
