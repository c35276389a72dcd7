"""Time controls through the served API and a real worker (contract: Time controls): the
creation fields checked with clear 400s, the clocks in the summary and the view, vacations
started and ended (and refused where the host allowed none), and a short bank that runs out:
the worker's check appends ``TurnTimedOut``, and ``chronicle replay`` over the export
re-derives every timeout from the log's own times."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from projections import chain
from projections.records import from_full, full
from tests.conftest import ADMIN_TOKEN, ROOT
from tests.support.client import Client
from tests.support.sse import Stream

API = "/api/v1"
PEOPLE = [{"name": "Ann"}, {"name": "Bob"}]


def parse(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def create(api: Client, **table: Any) -> Any:
    body = {"game": "artus", "players": PEOPLE, "options": {"rules": "basic"}, **table}
    return api.post(f"{API}/games", body)


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"time_control": {"bank": "P5D", "per_turn": "P1D"}}, "time_control"),
        ({"time_control": {}}, "time_control"),
        ({"time_control": {"bank": "P5X"}}, "time_control.bank"),
        ({"time_control": {"bank": "P5D", "max": "P1D"}}, "time_control.max"),
        ({"time_control": {"per_turn": "P1D", "increment": "P1D"}}, "time_control.per_turn"),
        ({"time_control": {"bank": "P5D", "vacation": "PT5H"}}, "time_control.vacation"),
        ({"time_control": {"bank": "P5D", "weekends": "maybe"}}, "time_control"),
        ({"time_control": {"bank": "P5D", "fischer": True}}, "time_control"),
        ({"time_control": {"bank": "P400D"}}, "time_control.bank"),
        ({"time_control": {"bank": "P5D"}, "timezone": "Mars/Olympus"}, "timezone"),
        ({"time_control": {"bank": "P5D"}, "turn_time": "P1D"}, "turn_time"),
        ({"timezone": "Europe/Paris"}, "timezone"),
    ],
)
def test_bad_time_controls_are_400_naming_the_field(
    api: Client, table: dict[str, Any], field: str
) -> None:
    r = create(api, **table)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "bad_request"
    named = json.dumps(error["details"])
    assert field.split(".")[-1] in named, error


def test_a_bank_with_weekends_off_shows_its_clocks_and_takes_vacations(api: Client) -> None:
    control = {"bank": "P5D", "increment": "P1D", "max": "P10D", "weekends": "off"}
    r = create(api, time_control={**control, "vacation": "P3D"}, timezone="Asia/Tokyo")
    assert r.status_code == 201, r.text
    created = r.json()
    gid, host = created["id"], created["host_token"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    summary = api.get(f"{API}/games/{gid}").json()
    assert summary["time_control"]["bank"] == "P5D" and summary["timezone"] == "Asia/Tokyo"
    seat = summary["to_act"][0]
    other = 1 - seat
    clocks = summary["clocks"]
    assert set(clocks) == {"0", "1"}
    assert clocks[str(other)] == {"remaining": "P5D"}, "a waiting seat's bank stands"
    assert clocks[str(seat)]["deadline"] == summary["deadlines"][str(seat)]
    assert parse(clocks[str(seat)]["deadline"]) - time.time() >= 5 * 86_400 - 60
    export = api.get(f"{API}/games/{gid}/export", ADMIN_TOKEN).json()
    section = export["events"][0]["data"]["table"]
    assert section["timezone"] == "Asia/Tokyo" and section["utc_offsets"][0][1] == 9 * 3_600_000

    # a vacation: the seat's clock stops; its deadline moves by the days taken; the stream
    # carries the clocks as the summary does, and says the change
    before = parse(clocks[str(seat)]["deadline"])
    stream = Stream(f"{api.base}{API}/games/{gid}/stream", {"Authorization": f"Bearer {host}"})
    with stream:
        first, _ = stream.until("status")
        assert first.data["clocks"][str(other)] == {"remaining": "P5D"}, first.data
        r = api.post(f"{API}/games/{gid}/vacation", {"days": 2}, tokens[seat])
        assert r.status_code == 200, r.text
        frame, _ = stream.until("status")
        assert frame.data["clocks"][str(seat)]["vacation_until"] == r.json()["until"]
    assert r.json()["seat"] == seat and parse(r.json()["until"]) > time.time() + 2 * 86_400 - 60
    view = api.get(f"{API}/games/{gid}/view", tokens[seat]).json()
    mine = view["clocks"][str(seat)]
    assert mine["vacation_until"] == r.json()["until"]
    assert parse(mine["deadline"]) >= before + 2 * 86_400 - 60
    assert (
        api.post(f"{API}/games/{gid}/vacation", {"days": 1}, tokens[seat]).json()["error"]["code"]
        == "on_vacation"
    )
    r = api.post(f"{API}/games/{gid}/vacation", {"days": 2}, tokens[other])
    assert r.status_code == 200, "the other seat may take one while it waits"
    back = api.seat(tokens[other]).raw("DELETE", f"{API}/games/{gid}/vacation")
    assert back.status_code == 200, back.text
    # 3 days allowed, 2 taken by seat `seat`: 2 more is too many; back early gives time back
    too_many = api.post(f"{API}/games/{gid}/vacation", {"days": 3}, tokens[other])
    assert too_many.status_code == 400 and "days" in too_many.json()["error"]["details"]
    again = api.seat(tokens[other]).raw("DELETE", f"{API}/games/{gid}/vacation")
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_on_vacation"
    r = api.post(f"{API}/games/{gid}/vacation", {"days": 1}, host)
    assert r.status_code == 403, "a seat's own"
    r = api.post(f"{API}/games/{gid}/vacation", {"days": 0}, tokens[other])
    assert r.status_code == 400
    api.post(f"{API}/games/{gid}/abandon", {}, host)

    plain = create(api, time_control={"bank": "P5D"}).json()
    r = api.post(f"{API}/games/{plain['id']}/vacation", {"days": 1}, plain["seats"][0]["token"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "vacations_off"
    api.post(f"{API}/games/{plain['id']}/abandon", {}, plain["host_token"])


def test_a_short_bank_times_out_and_the_export_replays_every_timeout(
    api: Client, worker: Any, tmp_path: Path
) -> None:
    r = create(api, time_control={"bank": "PT2S", "increment": "PT1S"})
    assert r.status_code == 201, r.text
    gid, host = r.json()["id"], r.json()["host_token"]
    assert api.get(f"{API}/games/{gid}").json()["clocks"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        events = api.get(f"{API}/games/{gid}/audit", ADMIN_TOKEN).json()["events"]
        if sum(e["type"] == "TurnTimedOut" for e in events) >= 2:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("no seat timed out")
    api.post(f"{API}/games/{gid}/abandon", {}, host)
    export = api.get(f"{API}/games/{gid}/export", ADMIN_TOKEN).json()
    timeouts = [e for e in export["events"] if e["type"] == "TurnTimedOut"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    command = [sys.executable, "-m", "chronicle", "replay", str(path)]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"clock:   {len(timeouts)} timeouts re-derived" in out.stdout, out.stdout
    assert "verdict: OK" in out.stdout

    # the same export, signed again, with its first timeout a second before its deadline
    first = timeouts[0]
    was = api.get(f"{API}/games/{gid}/view", ADMIN_TOKEN, version=first["version"] - 1).json()
    due = round(parse(was["deadlines"][str(first["seat"])]) * 1000)
    early = json.loads(json.dumps(export))
    records = [from_full(e) for e in early["events"]]
    key, head = chain.chain_key(early["seed"]), ""
    for i, rec in enumerate(records):
        if rec.version == first["version"]:
            rec = replace(rec, at=due - 1)
        head = chain.link(key, head, replace(rec, hash=""))
        records[i] = replace(rec, hash=head)
    early["events"], early["head_hash"] = [full(r) for r in records], head
    path.write_text(json.dumps(early), encoding="utf-8")
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stdout
    assert "has time until" in out.stderr or "before its deadline" in out.stderr, out.stderr
