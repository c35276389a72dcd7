"""Data integrity, by property: random sequences of appends, stale appends, undos (by a seat and
by the host) and reads, on a real Redis through the one write path, keep

- the log contiguous (versions 1..n, the meta's version and head agree with the stream),
- the hash chain valid,
- the audit complete (every truncated event is in the undo trail, once, in order, with who),
- the export replayable to exactly the current state;

and an import refuses a log with a broken chain or an illegal command, naming the version.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from domain import engine
from domain.errors import UndoRefused
from domain.games import GAMES
from projections import chain
from projections.fold import fold
from projections.records import Recorded, from_full, full
from projections.replay import replay
from projections.views import ADMIN, HOST, SEAT, Caller
from service.app import create_app
from service.chronicle import Chronicle
from service.errors import VersionConflict
from service.jobs import NoJobs
from service.redis_server import RedisServer
from service.redis_store import RedisEventStore
from tests.conftest import ADMIN_TOKEN
from tests.conftest import settings as app_settings
from tests.reliability.test_hostile_input import json_of

STEPS: dict[str, int] = {}
VARIANTS = [
    ("artus", {"rules": "basic"}, 2),
    ("artus", {"rules": "advanced"}, 3),
    ("kings-and-castles", {"length": "short"}, 2),
    ("kings-and-castles", {"length": "full"}, 3),
    ("lancaster", {}, 3),
]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("integrity"), persistent=False)
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def ch(url: str) -> Chronicle:
    return Chronicle(RedisEventStore(redis.Redis.from_url(url)), NoJobs(), ADMIN_TOKEN)


class Log(RuleBasedStateMachine):
    """One game per run; the model is what the test itself appended and truncated."""

    ch: Chronicle

    def __init__(self) -> None:
        super().__init__()
        self.gid = ""
        self.removed: list[tuple[str, list[tuple[int, str]]]] = []  # (by, [(version, hash)])
        self.last_actor: int | None = None

    @initialize(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6))
    def create(self, variant: tuple, seed: int) -> None:
        game, options, n = variant
        players = [{"name": f"p{i}"} for i in range(n)]
        created = self.ch.create(None, game, players, {**options, "undo": "host"}, f"s{seed}")
        self.gid = created["id"]
        self.game = GAMES[game]
        self.setup = self.ch.current(self.gid).match.version

    @property
    def match(self) -> Any:
        return self.ch.current(self.gid).match

    def records(self) -> list[Any]:
        raw = self.ch.store.load(self.gid, None, base=0, snapshot=False)
        assert raw is not None
        return raw.records

    # ---- rules ----------------------------------------------------------------------------
    @precondition(lambda self: self.gid and self.match.status(self.game) != engine.FINISHED)
    @rule(pick=st.randoms(use_true_random=False), steps=st.integers(1, 15))
    def append(self, pick: random.Random, steps: int) -> None:
        for _ in range(steps):
            m = self.match
            if m.status(self.game) == engine.SCORING:
                assert self.ch.finish(self.gid, m.version)
                return
            if m.status(self.game) != engine.ACTIVE:
                return
            seat = pick.choice(m.to_act(self.game))
            action = pick.choice(self.game.legal_actions(m.state, seat))
            out = self.ch.act(self.gid, Caller(SEAT, seat), action, m.version)
            assert out["version"] > m.version
            STEPS["append"] = STEPS.get("append", 0) + 1
            self.last_actor = seat

    @precondition(lambda self: self.gid and self.match.version > self.setup)
    @rule(back=st.integers(1, 3), pick=st.randoms(use_true_random=False))
    def stale_append(self, back: int, pick: random.Random) -> None:
        m = self.match
        if not m.to_act(self.game):
            return
        seat = pick.choice(m.to_act(self.game))
        action = pick.choice(self.game.legal_actions(m.state, seat))
        before = self.records()
        with pytest.raises(VersionConflict):
            self.ch.act(self.gid, Caller(SEAT, seat), action, max(0, m.version - back))
        assert self.records() == before

    @precondition(lambda self: self.gid and self.last_actor is not None)
    @rule()
    def undo_by_seat(self) -> None:
        self._undo(Caller(SEAT, self.last_actor), None, f"seat:{self.last_actor}")

    @precondition(lambda self: self.gid and self.match.version > self.setup)
    @rule(back=st.integers(1, 12))
    def undo_by_host(self, back: int) -> None:
        self._undo(Caller(HOST), max(self.setup, self.match.version - back), "host")

    def _undo(self, caller: Caller, to_version: int | None, by: str) -> None:
        before = self.records()
        try:
            out = self.ch.undo(self.gid, caller, to_version)
        except UndoRefused:
            assert self.records() == before, "a refused undo changed the log"
            STEPS["undo refused"] = STEPS.get("undo refused", 0) + 1
            return
        STEPS["undo"] = STEPS.get("undo", 0) + 1
        target = out["version"]
        assert self.records() == before[:target]
        self.removed.append((by, [(r.version, r.hash) for r in before[target:]]))

    @precondition(lambda self: self.gid)
    @rule(data=st.data())
    def read(self, data: st.DataObject) -> None:
        records = self.records()
        v = data.draw(st.integers(1, len(records)))
        at, upto = self.ch.at(self.gid, v)
        assert upto == records[:v] and at.match == fold(self.game, records[:v])
        after = data.draw(st.integers(0, len(records)))
        assert self.ch.store.read(self.gid, after, 10_000) == records[after:]

    # ---- invariants -----------------------------------------------------------------------
    @invariant()
    def log_is_contiguous_and_chained(self) -> None:
        if not self.gid:
            return
        records = self.records()
        assert [r.version for r in records] == list(range(1, len(records) + 1))
        meta = self.ch.store.meta(self.gid)
        assert meta is not None
        assert meta.version == len(records) and meta.head == records[-1].hash
        assert chain.first_break(chain.chain_key(meta.seed), records) is None
        # a cold load (snapshot + tail, no cache) agrees with the whole fold
        cold = Chronicle(self.ch.store, NoJobs(), ADMIN_TOKEN).current(self.gid).match
        assert cold == fold(self.game, records)

    @invariant()
    def audit_is_complete(self) -> None:
        if not self.gid:
            return
        undone = self.ch.audit(self.gid, Caller(ADMIN))["undone"]
        got = [(u["by"], [(e["version"], e["hash"]) for e in u["events"]]) for u in undone]
        assert got == self.removed
        for u in undone:
            assert u["to_version"] == u["events"][0]["version"] - 1
            assert u["from_version"] == u["events"][-1]["version"]

    @invariant()
    def export_replays_to_the_current_state(self) -> None:
        if not self.gid:
            return
        doc = self.ch.export(self.gid, Caller(ADMIN))
        match = replay(self.game, doc["seed"], [from_full(e) for e in doc["events"]])
        assert match == self.match


def test_random_appends_undos_and_reads_keep_the_log_whole(ch: Chronicle) -> None:
    class Machine(Log):
        pass

    Machine.ch = ch
    run_state_machine_as_test(
        Machine,
        settings=settings(
            max_examples=40,
            stateful_step_count=20,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        ),
    )
    print(f"\nFIGURE stateful log property: {STEPS}")
    assert STEPS.get("undo", 0) > 10 and STEPS.get("append", 0) > 200


def test_the_host_cannot_cut_a_command_in_two(ch: Chronicle) -> None:
    """Truncating between the events of one command would leave a state no command makes (a
    game nobody can act in) and a log that no longer replays: refused, nothing changes."""
    created = ch.create(None, "kings-and-castles", [{"name": "a"}, {"name": "b"}],
                        {"undo": "host"}, "cut")  # fmt: skip
    gid, game, rng = created["id"], GAMES["kings-and-castles"], random.Random(3)
    records: list[Recorded] = []
    while not any(r.command is None and r.version > 2 for r in records):
        m = ch.current(gid).match
        seat = m.to_act(game)[0]
        ch.act(gid, Caller(SEAT, seat), rng.choice(game.legal_actions(m.state, seat)), m.version)
        records = _log(ch, gid)
    inside = next(r.version for r in records if r.command is None and r.version > 2) - 1
    with pytest.raises(UndoRefused) as refused:
        ch.undo(gid, Caller(HOST), inside)
    assert refused.value.reason == "bad_version"
    assert _log(ch, gid) == records


def _log(ch: Chronicle, gid: str) -> list[Recorded]:
    """The game's whole log as stored (no snapshot)."""
    loaded = ch.store.load(gid, None, base=0, snapshot=False)
    assert loaded is not None
    return loaded.records


# ---- import refusals ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exports(ch: Chronicle) -> dict[str, dict]:
    """One finished game of each kind, exported."""
    out = {}
    for game_id, options, n in VARIANTS[::2]:
        game = GAMES[game_id]
        created = ch.create(None, game_id, [{"name": f"p{i}"} for i in range(n)], options, "x")
        gid, rng = created["id"], random.Random(game_id)
        while (m := ch.current(gid).match).status(game) == engine.ACTIVE:
            seat = rng.choice(m.to_act(game))
            ch.act(
                gid, Caller(SEAT, seat), rng.choice(game.legal_actions(m.state, seat)), m.version
            )
        assert ch.finish(gid, ch.current(gid).match.version)
        out[game_id] = ch.export(gid, Caller(ADMIN))
    return out


@pytest.fixture(scope="module")
def client(url: str) -> FlaskClient:
    return create_app(app_settings(url)).test_client()


def _refused_at(client: FlaskClient, doc: dict) -> tuple[int, str]:
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    r = client.post("/api/v1/games/import", json=doc, headers=admin)
    assert r.status_code == 422, r.json
    err = json_of(r)["error"]
    assert (
        err["code"] == "illegal_action" and f"version {err['details']['version']}" in err["message"]
    )
    return err["details"]["version"], err["message"]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)  # fmt: skip
@given(data=st.data())
def test_an_import_with_a_broken_chain_is_refused_naming_the_version(
    client: FlaskClient, exports: dict[str, dict], data: st.DataObject
) -> None:
    doc = json.loads(json.dumps(exports[data.draw(st.sampled_from(sorted(exports)))]))
    what = data.draw(st.sampled_from(["data", "type", "seat", "at", "hash", "actor", "drop"]))
    last = len(doc["events"]) - (2 if what == "drop" else 1)  # dropping the last leaves a prefix
    i = data.draw(st.integers(0, last))
    event = doc["events"][i]
    if what == "data":
        event["data"] = {**event["data"], "tampered": True}
    elif what == "type":
        event["type"] += "X"
    elif what == "seat":
        event["seat"] = 7 if event["seat"] != 7 else 6
    elif what == "at":
        event["at"] = "2001-01-01T00:00:00.000Z"
    elif what == "hash":
        event["hash"] = "0" * 64
    elif what == "actor":
        event["actor"] = 5 if event["actor"] != 5 else 4
    else:
        del doc["events"][i]
    version, message = _refused_at(client, doc)
    # the altered event breaks the chain; a dropped one, the next (a gap in the versions)
    assert version == event["version"] + (what == "drop"), (what, message)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)  # fmt: skip
@given(data=st.data())
def test_an_import_with_an_illegal_command_is_refused_naming_the_version(
    client: FlaskClient, exports: dict[str, dict], data: st.DataObject
) -> None:
    """A command changed and the chain recomputed with the revealed seed (as a forger who
    knows the seed would): the rules refuse it at that command's version."""
    doc = exports[data.draw(st.sampled_from(sorted(exports)))]
    records = [from_full(e) for e in doc["events"]]
    batches = [i for i, r in enumerate(records) if isinstance(r.command, dict)]
    i = data.draw(st.sampled_from(batches))
    forged = data.draw(st.sampled_from(["unknown type", "unknown field", "other seat"]))
    command = dict(records[i].command)
    if forged == "unknown type":
        command["type"] = "cheat"
    elif forged == "unknown field":
        command["extra"] = 1
    records[i] = replace(records[i], command=command)
    if forged == "other seat":
        actor = records[i].actor
        assert actor is not None  # a command's batch: a seat acted
        records[i] = replace(records[i], actor=(actor + 1) % 2)
    key, head = chain.chain_key(doc["seed"]), records[i - 1].hash
    for j in range(i, len(records)):
        records[j] = replace(records[j], hash=chain.link(key, head, records[j]))
        head = records[j].hash
    forged_doc = {**doc, "events": [full(r) for r in records], "head_hash": head}
    version, message = _refused_at(client, forged_doc)
    assert version == records[i].version, message
