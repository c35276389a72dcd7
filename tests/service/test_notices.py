"""Notices to people (``service.notices``): quiet hours across midnight and in the account's
time zone, the one-click unsubscribe token, which appends owe a notice, and the job's checks
(settings, once per turn, a turn played since) with a sender that records instead of mailing."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime

import pytest
import redis

from domain.errors import BadAction
from projections.views import SEAT, Caller
from service import lobby, notices, unsubscribe
from service.accounts import Accounts
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore
from service.redis_store import RedisEventStore

NIGHT = {"from": "22:00", "to": "08:00"}


def utc(hour: int, minute: int = 0, month: int = 1) -> datetime:
    return datetime(2026, month, 15, hour, minute, tzinfo=UTC)


def test_quiet_hours_cross_midnight_in_the_accounts_time_zone() -> None:
    # Paris is UTC+1 in January: 22:00-08:00 there is 21:00-07:00 UTC
    paris = "Europe/Paris"
    assert notices.quiet(NIGHT, paris, utc(21, 0))  # 22:00 there: from is included
    assert notices.quiet(NIGHT, paris, utc(23, 30))
    assert notices.quiet(NIGHT, paris, utc(3, 0))
    assert notices.quiet(NIGHT, paris, utc(6, 59))  # 07:59 there
    assert not notices.quiet(NIGHT, paris, utc(7, 0))  # 08:00 there: to is excluded
    assert not notices.quiet(NIGHT, paris, utc(20, 59))
    assert not notices.quiet(NIGHT, paris, utc(12, 0))
    # summer time moves it: 22:00 in Paris is 20:00 UTC in July
    assert notices.quiet(NIGHT, paris, utc(20, 0, month=7))
    assert not notices.quiet(NIGHT, paris, utc(6, 0, month=7))  # 08:00 there
    # Tokyo (UTC+9): 22:00-08:00 there is 13:00-23:00 UTC
    assert notices.quiet(NIGHT, "Asia/Tokyo", utc(13, 0))
    assert not notices.quiet(NIGHT, "Asia/Tokyo", utc(23, 0))


def test_quiet_hours_within_a_day_empty_or_absent() -> None:
    lunch = {"from": "12:00", "to": "14:00"}
    assert notices.quiet(lunch, None, utc(12, 0))  # no time zone: UTC
    assert notices.quiet(lunch, None, utc(13, 59))
    assert not notices.quiet(lunch, None, utc(14, 0))
    assert not notices.quiet(lunch, None, utc(11, 59))
    assert not notices.quiet({"from": "09:00", "to": "09:00"}, None, utc(9, 0))  # empty range
    assert not notices.quiet(None, "Europe/Paris", utc(23, 0))
    assert notices.quiet(lunch, "Not/AZone", utc(12, 30)), "an unknown zone counts as UTC"


def test_unsubscribe_tokens_verify_only_as_signed(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    assert r.get(unsubscribe.SECRET_KEY) is None
    token = unsubscribe.unsubscribe_token(r, "abc123", "your_turn")
    first = r.get(unsubscribe.SECRET_KEY)
    assert first is not None and len(first) == 64
    assert unsubscribe.unsubscribe_token(r, "abc123", "your_turn") == token, "one secret, kept"
    assert r.get(unsubscribe.SECRET_KEY) == first
    assert unsubscribe.token_of(r, token) == ("abc123", "your_turn")
    player, kind, mac = token.split(".")
    assert len(mac) == 64 and int(mac, 16) >= 0
    forged = [
        f"abc124.{kind}.{mac}",  # another player
        f"{player}.game_over.{mac}",  # another kind
        f"{player}.all.{mac}",
        f"{player}.{kind}.{mac[:-1]}{'0' if mac[-1] != '0' else '1'}",
        f"{player}.{kind}.{mac[:32]}",
        f"{player}.{kind}",
        f"{player}.email.{mac}",  # not a kind a link turns off
        f"{token}.x",
        "",
        "é.your_turn.é",
    ]
    for bad in forged:
        assert unsubscribe.token_of(r, bad) is None, bad
        with pytest.raises(BadAction) as info:
            unsubscribe.verified(r, bad)
        assert mac not in str(info.value), "the error repeats no token"
    assert unsubscribe.token_of(r, unsubscribe.unsubscribe_token(r, player, "all")) == (
        player,
        "all",
    )
    r.delete(unsubscribe.SECRET_KEY)  # a new secret: the old links no longer verify
    assert unsubscribe.token_of(r, token) is None


def account(accounts: Accounts, email: str) -> str:
    pending = accounts.ask_code(email, "test")
    assert pending is not None
    return accounts.verify_code(pending.code, "test", "Ann").id


def test_a_valid_token_turns_its_kind_off_and_all_turns_email_off(own_redis_url: str) -> None:
    accounts = Accounts(redis.Redis.from_url(own_redis_url))
    player = account(accounts, "ann@example.com")
    accounts.update(player, {"notifications": {"email": True}})
    done = unsubscribe.unsubscribe(
        accounts, unsubscribe.unsubscribe_token(accounts.r, player, "your_turn")
    )
    assert done == {"kind": "your_turn", "email": True}
    settings = accounts.require(player).notifications
    assert settings["your_turn"] is False and settings["game_over"] is True
    assert settings["email"] is True
    done = unsubscribe.unsubscribe(
        accounts, unsubscribe.unsubscribe_token(accounts.r, player, "all")
    )
    assert done == {"kind": "all", "email": False}
    assert accounts.require(player).notifications["email"] is False
    with pytest.raises(BadAction):
        unsubscribe.unsubscribe(accounts, f"{player}.all.{'0' * 64}")


def test_the_defaults_are_the_whole_shape_and_a_change_merges(own_redis_url: str) -> None:
    accounts = Accounts(redis.Redis.from_url(own_redis_url))
    player = account(accounts, "bea@example.com")
    assert dict(accounts.require(player).notifications) == {
        "email": False,
        "push": False,
        "your_turn": True,
        "reminders": None,
        "digest": False,
        "game_over": True,
        "invitations": True,
        "quiet_hours": None,
    }
    accounts.update(player, {"notifications": {"quiet_hours": NIGHT}})
    accounts.update(player, {"notifications": {"email": True}})
    now = accounts.require(player).notifications
    assert now["quiet_hours"] == NIGHT and now["email"] is True and now["your_turn"] is True


def owed(
    ch: Chronicle, gid: str, players: tuple[str | None, ...], steps: int
) -> list[tuple[int, list[tuple[int, str]]]]:
    """Play up to ``steps`` random moves: for each, the seat that moved and what the hook owes
    for it (``notices.due`` of the game before and after, as the hook is called)."""
    rng, out = random.Random(3), []
    for _ in range(steps):
        cur = ch.current(gid)
        cur = replace(cur, meta=replace(cur.meta, players=players))
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            break
        seat = to_act[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
        out.append((seat, notices.due(cur, ch.current(gid).match)))
    return out


def test_a_notice_is_owed_when_an_accounts_turn_begins_and_at_the_end() -> None:
    ch = Chronicle(MemoryEventStore(), NoJobs())
    gid = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Ann"}], None, None)["id"]
    assert all(d == [] for _, d in owed(ch, gid, (), 6)), "no account: nothing owed"
    steps = owed(ch, gid, (None, "ann"), 500)
    cur = ch.current(gid)
    assert cur.match.status(cur.game) == "scoring", "played to the end"
    told = [i for i, (_, d) in enumerate(steps) if d == [(1, "your_turn")]]
    assert all(d == [] for i, (_, d) in enumerate(steps) if i not in told), "Bob is a guest"
    assert len(told) >= 16  # five placements and a turn a round
    for i in told:  # a turn begins by Bob's move, and Ann moves before the next one begins
        assert steps[i][0] == 0
    for i, j in itertools.pairwise(told):
        assert any(mover == 1 for mover, _ in steps[i + 1 : j + 1])
    # the end: the score job's append finishes the game; every account's seat is told
    scoring = ch.current(gid)
    scoring = replace(scoring, meta=replace(scoring.meta, players=("bob", "ann")))
    assert ch.finish(gid, scoring.match.version)
    assert notices.due(scoring, ch.current(gid).match) == [(0, "game_over"), (1, "game_over")]


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str, str, Mapping[str, str]]] = []

    def __call__(self, to: str, subject: str, text: str, html: str, h: Mapping[str, str]) -> None:
        self.sent.append((to, subject, text, html, dict(h)))


def test_the_job_checks_settings_quiet_hours_once_and_a_move_since(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    accounts = Accounts(r)
    ch = Chronicle(RedisEventStore(r), NoJobs(), accounts=accounts)
    ann = account(accounts, "ann@example.com")
    gid = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Ann"}], None, None)["id"]
    lobby.claim(ch, gid, 1, ann)
    rng = random.Random(5)
    while True:  # until a move of Bob's makes it Ann's turn
        cur = ch.current(gid)
        seat = cur.match.to_act(cur.game)[0]
        action = rng.choice(cur.game.legal_actions(cur.match.state, seat))
        ch.act(gid, Caller(SEAT, seat), action, cur.match.version)
        if notices.due(cur, ch.current(gid).match) == [(1, "your_turn")]:
            break
    marker = ch.current(gid).match.version
    outbox, noon = Outbox(), utc(12)

    def notify(when: datetime = noon) -> str:
        return notices.notify(ch, gid, 1, "your_turn", marker, None, when, "https://p.x", outbox)

    assert notify() == "off" and outbox.sent == []  # email is off by default
    accounts.update(ann, {"notifications": {"email": True, "quiet_hours": NIGHT}})
    assert notify(utc(23)) == "quiet hours" and outbox.sent == []
    # held for the digest (service.digest), never sent alone after the quiet hours
    assert r.llen(notices.digest_key(ann)) == 1 and notify() == "sent before"
    r.delete(notices.mark_key(gid, 1, "your_turn", marker))
    assert notify() == "sent"
    to, subject, text, html, headers = outbox.sent[0]
    assert to == "ann@example.com" and subject == "Your turn in Artus"
    assert f"https://p.x/play/{gid}" in text and f'href="https://p.x/play/{gid}"' in html
    assert "Bob" in text and f"version {marker}" in text
    link = headers["List-Unsubscribe"]
    assert link.startswith("<https://p.x/api/v1/unsubscribe?t=") and link.endswith(">")
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    token = link[len("<https://p.x/api/v1/unsubscribe?t=") : -1]
    assert unsubscribe.token_of(r, token) == (ann, "your_turn")
    assert notify() == "sent before" and len(outbox.sent) == 1
    # Ann plays part of her turn: a copy of the job that runs late sends nothing
    r.delete(notices.mark_key(gid, 1, "your_turn", marker))
    cur = ch.current(gid)
    ch.act(gid, Caller(SEAT, 1), cur.game.legal_actions(cur.match.state, 1)[0], marker)
    assert notify() == "turn over" and len(outbox.sent) == 1
