"""``service.notice_batch``: what a batch's metas and accounts settle (no game, no account,
off, turn over), in the order ``notices.notify`` would decide it, and the notices it leaves for
``notify`` with their account; ``queue_due`` takes only the notices due, keeps the outcomes it
settled and makes jobs of the rest."""

from __future__ import annotations

import json
import random

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from projections.views import SEAT, Caller
from service import lobby, notice_batch, notices
from service.accounts import Accounts
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.redis_store import RedisEventStore
from tests.service.test_notices import account


def to_turn(ch: Chronicle, gid: str, seat: int, rng: random.Random) -> int:
    """Play until another seat's move makes it ``seat``'s turn: the version then."""
    while True:
        cur = ch.current(gid)
        mover = cur.match.to_act(cur.game)[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, mover))
        ch.act(gid, Caller(SEAT, mover), action, cur.match.version)
        after = ch.current(gid)
        if mover != seat and seat in after.match.to_act(after.game):
            return after.match.version


def test_a_batch_is_settled_from_metas_and_accounts_and_the_rest_left(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    accounts = Accounts(r)
    ch = Chronicle(RedisEventStore(r), NoJobs(), accounts=accounts)
    ann, eve = account(accounts, "ann@example.com"), account(accounts, "eve@example.com")
    accounts.update(ann, {"notifications": {"email": True}})  # Eve's email stays off
    gid = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Ann"}], None, None)["id"]
    other = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Eve"}], None, None)["id"]
    lobby.claim(ch, gid, 1, ann)
    lobby.claim(ch, other, 1, eve)
    rng = random.Random(7)
    marker = to_turn(ch, gid, 1, rng)
    eves = to_turn(ch, other, 1, rng)
    owed = [
        [gid, 1, "your_turn", marker, None],  # still hers: left for notify, with her account
        [gid, 0, "your_turn", marker, None],  # Bob's seat: no account holds it
        [other, 1, "your_turn", eves, None],  # Eve's email is off
        ["no-such-game", 1, "your_turn", 3, None],
        [gid, 1, "game_over", marker, None],  # not over, but game_over is for notify to judge
    ]
    done, left = notice_batch.settle(ch, owed)
    assert done == {
        notices.notice_id(owed[1]): "no account",
        notices.notice_id(owed[2]): "off",
        notices.notice_id(owed[3]): "no game",
    }
    assert [(args, a.id) for args, a in left] == [(owed[0], ann), (owed[4], ann)]
    # Ann plays: her turn's notice is settled without loading the game
    cur = ch.current(gid)
    while 1 in cur.match.to_act(cur.game):
        action = rng.choice(cur.game.legal_actions(cur.match.state, 1))
        ch.act(gid, Caller(SEAT, 1), action, cur.match.version)
        cur = ch.current(gid)
    done, left = notice_batch.settle(ch, owed[:1])
    assert done == {notices.notice_id(owed[0]): "turn over"} and left == []


def test_queue_due_takes_the_notices_due_only(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    accounts = Accounts(r)
    ch = Chronicle(RedisEventStore(r), NoJobs(), accounts=accounts)
    ann = account(accounts, "ann2@example.com")
    accounts.update(ann, {"notifications": {"email": True}})
    gid = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Ann"}], None, None)["id"]
    lobby.claim(ch, gid, 1, ann)
    marker = to_turn(ch, gid, 1, random.Random(8))
    owed = notices.entry(gid, 1, "your_turn", marker, None)
    stale = notices.entry(gid, 0, "your_turn", marker, None)
    later = notices.entry(gid, 1, "game_over", marker, None)
    poison = {"not json": 1_000, "42": 1_000, '["g", "x"]': 1_000}  # dropped, never stuck on
    r.zadd(notices.PENDING, {owed: 1_000, stale: 1_000, later: 5_000, **poison})
    queue = Queue(notices.QUEUE, connection=r, serializer=JSONSerializer)
    assert notice_batch.queue_due(ch, r, queue, 2_000) == 5
    assert r.zrange(notices.PENDING, 0, -1) == [later.encode()], "not due yet: left"
    assert r.get(notices.done_key(notices.notice_id(json.loads(stale)))) == b"no account"
    jobs = queue.get_jobs()
    assert [job.func_name for job in jobs] == [notices.SEND_MANY]
    assert list(jobs[0].args) == [[json.loads(owed)]]  # one batch of one notice
