"""Turn clocks (contract: v1 additions): deadlines from the log's own times, the timeout
appended by a job RQ's scheduler runs in the real worker, the bot's turn, the takeover after
timeouts in a row, late moves refused, undo unable to give the time back, replay agreeing."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
import redis

from domain import seating
from domain import table as tables
from domain.errors import Forbidden, StateConflict
from projections.fold import fold
from projections.replay import replay
from projections.views import SEAT, Caller
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.redis_store import RedisEventStore
from service.timeouts import check_deadline
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client


def parse(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_a_silent_seat_gets_bot_turns_then_is_taken_over(api: Client, worker) -> None:
    created = api.create(
        "artus", [{"name": "Quiet"}, {"name": "Busy"}], turn_time="PT1S",
        timeouts_before_takeover=2, options={"rules": "basic"},
    )  # fmt: skip
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    assert api.summary(gid)["turn_time"] == "PT1S"
    late: tuple[int, dict] | None = None  # a version at which seat 0 was to act, its action
    refused_late = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        s = api.summary(gid)
        if any(x.get("bot") for x in s["seats"][:1]):
            break
        if 0 in s["to_act"]:
            # its clock runs from when its turn began (none while the bot plays its turn)
            assert set(s["deadlines"]) <= {"0"}, s
            if s["deadlines"]:
                began = parse(s["updated_at"])
                assert abs(parse(s["deadlines"]["0"]) - began - 1.0) < 0.01
            if late is None:
                listed = api.actions(gid, tokens[0])
                if listed["actions"] and listed["version"] == s["version"]:
                    late = (listed["version"], listed["actions"][0])
        elif 1 in s["to_act"]:
            listed = api.actions(gid, tokens[1])
            if listed["actions"]:
                api.act(gid, tokens[1], listed["actions"][0], listed["version"])
            continue
        if late is not None and not refused_late and s["version"] > late[0]:
            r = api.act(gid, tokens[0], late[1], late[0])
            assert r.status_code == 409, r.text
            if r.json()["error"]["code"] == "turn_timed_out":
                refused_late = True
                # undo cannot revive the timed-out turn
                r = api.post(f"/api/v1/games/{gid}/undo", {}, tokens[0])
                assert r.status_code == 409 and r.json()["error"]["code"] == "undo_refused"
        time.sleep(0.05)
    else:
        raise AssertionError("seat 0 was not taken over")
    assert refused_late, "a move against a version before the timeout is turn_timed_out"

    s = api.summary(gid)
    assert s["seats"][0]["bot"] == "greedy"
    assert "0" not in s["deadlines"], "a bot's seat has no clock"
    audit = api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()
    events = audit["events"]
    timeouts = [e for e in events if e["type"] == "TurnTimedOut" and e["seat"] == 0]
    assert len(timeouts) == 2
    assert all(e["actor"] is None for e in timeouts)
    first = timeouts[0]["version"]
    after_first = [e for e in events if e["version"] > first]
    assert after_first[0]["actor"] == 0, "the bot played the timed-out turn"
    takeover = next(e for e in events if e["type"] == "SeatTakenOver")
    assert takeover["data"] == {"seat": 0, "bot": "greedy"}
    assert takeover["version"] == timeouts[1]["version"] + 1, "the second one in a row"
    # each timeout came after its deadline, as the log's own times say
    for e in timeouts:
        view = api.view(gid, tokens[1], version=e["version"] - 1)
        assert parse(e["at"]) >= parse(view["deadlines"]["0"])
    # the person may not act for the seat any more
    s = api.summary(gid)
    r = api.act(gid, tokens[0], {"type": "draw", "pile": "knight"}, s["version"])
    assert r.status_code in (403, 409)

    # replay: the export (timeouts included) replays through the rules, deadlines re-checked
    export = api.get(f"/api/v1/games/{gid}/export", ADMIN_TOKEN).json()
    r = api.post("/api/v1/games/import", export, ADMIN_TOKEN)
    assert r.status_code == 201, r.text
    api.post(f"/api/v1/games/{gid}/abandon", {}, created["host_token"])


def test_the_deadline_check_is_idempotent_and_replay_agrees(redis_url: str) -> None:
    now = [1_600_000_000_000]  # in the past: the listing of the shared Redis stays newest first
    ch = Chronicle(RedisEventStore(redis.Redis.from_url(redis_url)), NoJobs(), clock=lambda: now[0])
    created = ch.create(
        None, "artus", [{"name": "a"}, {"name": "b"}], {"rules": "basic"}, "clock-seed",
        table={**tables.Rules(turn_time="PT1M").data()},
    )  # fmt: skip
    gid = created["id"]
    cur = ch.current(gid)
    seat = cur.match.to_act(cur.game)[0]
    assert cur.match.table is not None
    deadline = cur.match.table.deadlines()[seat]
    assert deadline == now[0] + 60_000
    now[0] += 59_999
    assert check_deadline(ch, gid, deadline, seat) == "early"
    assert ch.current(gid).match.version == cur.match.version
    now[0] += 1
    assert check_deadline(ch, gid, deadline, seat) == "timed out"
    after = ch.current(gid)
    assert after.match.version == cur.match.version + 1
    assert after.match.bot(seat) == "greedy", "the bot plays the rest of the turn"
    assert check_deadline(ch, gid, deadline, seat) == "stale", "checked twice, appended once"
    assert ch.current(gid).match.version == after.match.version
    # the person is refused; a bot (by_bot) plays the turn
    legal = after.game.legal_actions(after.match.state, seat)
    caller = Caller(SEAT, seat)
    with pytest.raises(StateConflict) as late:
        ch.act(gid, caller, legal[0], after.match.version)
    assert late.value.code == "turn_timed_out"
    ch.act(gid, caller, legal[0], after.match.version, by_bot=True)
    # replay of the log agrees (the timeout's time is checked against the deadline)
    raw = ch.store.load(gid, None, base=0, snapshot=False)
    assert raw is not None
    assert replay(after.game, "clock-seed", raw.records).version == raw.records[-1].version
    # the rules refuse a timeout before the deadline, so a replay re-checks every timeout
    before = fold(after.game, raw.records[: cur.match.version])
    with pytest.raises(Forbidden) as refused:
        seating.time_out(before, after.game, seat, deadline - 1)
    assert refused.value.reason == "not_due"
    assert seating.time_out(before, after.game, seat, deadline)[0].type == "TurnTimedOut"
