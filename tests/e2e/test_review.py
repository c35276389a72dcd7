"""Reviews through the served API and a real worker (contract: v2 additions, Review): who may
ask, a finished game only, one job however often it is asked, the worker's numbers equal to
a recomputation from the game's export (the review is a projection of the log), and a review
made for another log head is recomputed."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis
import requests
from rq import Queue

from domain.games import GAMES
from projections.records import from_full
from service import review
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.redis_store import RedisEventStore
from tests.conftest import ADMIN_TOKEN
from tests.e2e.test_accounts import sign_in
from tests.support.accounts import Stack, accounts_stack

API = "/api/v1"
ITERATIONS = 30  # per decision, the operator's setting for this stack: a quick review


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"CHRONICLE_REVIEW_ITERATIONS": str(ITERATIONS), "CHRONICLE_REVIEW_SLICE_SECONDS": "0.2"}
    with accounts_stack(tmp_path_factory.mktemp("review"), **env) as found:
        yield found


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(stack: Stack, token: str | None, name: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "game": "artus",
        "options": {"rules": "basic"},
        "players": [{"name": name}, {"name": "g", "bot": "greedy"}],
    }
    r = requests.post(stack.base + API + "/games", json=body, headers=bearer(token), timeout=10)
    assert r.status_code == 201, r.text
    return dict(r.json())


def play_to_the_end(stack: Stack, gid: str, token: str, seed: int) -> None:
    """Random legal moves for seat 0; the worker plays the bot's."""
    rng = random.Random(seed)
    game = stack.base + f"{API}/games/{gid}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        summary = requests.get(game, timeout=10).json()
        if summary["status"] == "finished":
            return
        if 0 not in summary.get("to_act", []):
            time.sleep(0.05)
            continue
        listed = requests.get(game + "/actions", headers=bearer(token), timeout=10).json()
        if not listed["actions"]:
            continue
        body = {"action": rng.choice(listed["actions"]), "expected_version": listed["version"]}
        r = requests.post(game + "/actions", json=body, headers=bearer(token), timeout=10)
        assert r.status_code in (201, 409), r.text
    raise AssertionError("the game did not end")


def ask(stack: Stack, gid: str, token: str | None, seat: int) -> requests.Response:
    url = stack.base + f"{API}/games/{gid}/review"
    return requests.post(url, json={"seat": seat}, headers=bearer(token), timeout=10)


def read(stack: Stack, gid: str, token: str | None, seat: int) -> requests.Response:
    url = stack.base + f"{API}/games/{gid}/review"
    return requests.get(url, params={"seat": seat}, headers=bearer(token), timeout=10)


def done(stack: Stack, gid: str, token: str | None, seat: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = read(stack, gid, token, seat)
        assert r.status_code == 200, r.text
        if r.json()["status"] == review.DONE:
            return dict(r.json())
        time.sleep(0.2)
    raise AssertionError("the review did not finish")


def recomputed(stack: Stack, gid: str, seat: int) -> list[dict[str, Any]]:
    """The review made again from the export alone (the log and the revealed seed)."""
    url = stack.base + f"{API}/games/{gid}/export"
    doc = requests.get(url, headers=bearer(ADMIN_TOKEN), timeout=10).json()
    game = GAMES[doc["game"]]
    records = [from_full(e) for e in doc["events"]]
    return [
        review.judged(game, doc["seed"], seat, d, ITERATIONS)
        for d in review.decisions(game, records, seat)
    ]


def test_a_seat_holder_reviews_a_finished_game_once_and_gets_the_logs_own_numbers(
    stack: Stack,
) -> None:
    ann = sign_in(stack, "ann@example.com", "Ann")["token"]
    bob = sign_in(stack, "bob@example.com", "Bob")["token"]
    gid = create(stack, ann, "Ann")["id"]
    early = ask(stack, gid, ann, 0)
    assert early.status_code == 409, early.text
    assert early.json()["error"]["code"] == "game_not_finished"
    play_to_the_end(stack, gid, ann, seed=4)

    assert read(stack, gid, ann, 0).status_code == 404  # not asked yet
    assert ask(stack, "no-such-game", ann, 0).status_code == 404
    for stranger in (bob, None):  # another account, nobody
        r = ask(stack, gid, stranger, 0)
        assert r.status_code == 403, r.text
        assert read(stack, gid, stranger, 0).status_code == 403
    assert ask(stack, gid, ann, 1).status_code == 403  # the bot's seat is not Ann's
    assert ask(stack, gid, ann, 7).status_code == 400

    first = ask(stack, gid, ann, 0)
    assert first.status_code == 202, first.text
    assert first.json() == {"status": "queued"}
    again = ask(stack, gid, ann, 0)
    assert again.status_code == 202 and again.json()["status"] in ("queued", "running", "done")
    got = done(stack, gid, ann, 0)
    assert got["decisions"] == recomputed(stack, gid, 0)
    assert len(got["decisions"]) > 5
    assert done(stack, gid, ADMIN_TOKEN, 0) == got  # the admin reads it too

    queue = Queue(review.QUEUE, connection=redis.Redis.from_url(stack.redis_url))
    started = len(queue.finished_job_registry)
    assert started > 1  # the review ran in slices, each a job of its own
    assert ask(stack, gid, ann, 0).json() == {"status": "done"}  # asked again: nothing queued
    time.sleep(0.5)
    assert queue.count == 0 and len(queue.finished_job_registry) == started


def test_a_guests_seat_token_reviews_its_own_seat_only(stack: Stack) -> None:
    created = create(stack, None, "Guest")
    gid, token = created["id"], created["seats"][0]["token"]
    play_to_the_end(stack, gid, token, seed=5)
    assert ask(stack, gid, token, 1).status_code == 403
    assert ask(stack, gid, token, 0).status_code == 202
    assert done(stack, gid, token, 0)["decisions"]


def test_a_review_made_for_another_log_head_is_made_again(stack: Stack) -> None:
    """The review is keyed by the log head it was asked for: read for another head (here
    the game as if its log had changed since), it is asked again and computed for that log,
    and the old one is dropped."""
    created = create(stack, None, "Guest")
    gid, token = created["id"], created["seats"][0]["token"]
    play_to_the_end(stack, gid, token, seed=6)
    assert ask(stack, gid, token, 0).status_code == 202
    before = done(stack, gid, token, 0)
    r = redis.Redis.from_url(stack.redis_url)
    reviews = review.Reviews(r, Queue(review.QUEUE, connection=r))
    cur = Chronicle(RedisEventStore(r), NoJobs()).current(gid)
    other = replace(cur, head="f" * 64)
    assert reviews.read(other, 0) == {"status": "queued", "decisions": []}
    assert r.get(review.latest_key(gid, 0)) == b"f" * 64
    assert not r.exists(review.review_key(gid, 0, cur.head))
    # the job asked for a head the log does not have ends as stale; the log's own is redone
    after = read(stack, gid, token, 0).json()
    assert after["status"] in ("queued", "running", "done")
    assert done(stack, gid, token, 0) == before


def test_a_review_whose_job_was_lost_is_queued_again_from_where_it_stopped(
    stack: Stack,
) -> None:
    """A worker killed mid-slice loses its job: the review said ``running`` for ever.  Here a
    finished review is put back as such a worker leaves it (running, half its decisions, the
    job gone): the next read queues it again, and it ends with the same numbers."""
    created = create(stack, None, "Guest")
    gid, token = created["id"], created["seats"][0]["token"]
    play_to_the_end(stack, gid, token, seed=7)
    assert ask(stack, gid, token, 0).status_code == 202
    before = done(stack, gid, token, 0)
    r = redis.Redis.from_url(stack.redis_url, decode_responses=True)
    head = r.get(review.latest_key(gid, 0))
    assert isinstance(head, str)
    key = review.review_key(gid, 0, head)
    judged = sorted(str(k) for k in r.hkeys(key) if str(k).startswith("d:"))
    r.hdel(key, *judged[len(judged) // 2 :])
    r.hset(key, mapping={"status": review.RUNNING, "job": "review-lost-with-its-worker"})
    assert done(stack, gid, token, 0) == before
    assert r.hget(key, "again") == "1"  # queued again once
    # one that failed every time it was queued again ends with what it judged, said so
    r.hdel(key, *judged[len(judged) // 2 :])
    r.hset(key, mapping={"status": review.RUNNING, "job": "lost-again", "again": review.REVIVALS})
    ended = read(stack, gid, token, 0).json()
    assert ended["status"] == "done" and ended["incomplete"] is True
    assert len(ended["decisions"]) == len(judged) - len(judged[len(judged) // 2 :])
    assert read(stack, gid, token, 0).json() == ended, "ended: nothing more is queued"
    assert "incomplete" not in before
