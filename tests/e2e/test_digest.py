"""The daily digest (contract: v2 additions, Notices to people) through the served API, a real
worker and a real SMTP server: with ``digest`` on, no single message but one mail a local day
listing the games, from each seat's redacted view only; what quiet hours held back goes out in
the digest at their end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import Message
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from service import digest, notices
from service.accounts import Accounts
from tests.e2e.test_notices import (
    Table,
    hand_said,
    job_result,
    me,
    parts,
    patch_me,
    sign_in,
    whole,
)
from tests.support.accounts import Stack, accounts_stack

LOOK = "0.2"  # seconds between two looks of the worker for digests due


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("digest")
    with accounts_stack(folder, CHRONICLE_REMINDER_SECONDS=LOOK) as found:
        yield found


def daytime_zone() -> str:
    """A zone where it is day now, so that "an hour ago" is still today there."""
    for name in ("Europe/Paris", "Asia/Tokyo", "America/New_York", "Pacific/Auckland"):
        if 3 <= datetime.now(ZoneInfo(name)).hour <= 20:
            return name
    raise AssertionError("no zone in daytime")  # pragma: no cover - four zones cover the day


def hhmm(zone: str, shift: timedelta) -> str:
    return (datetime.now(ZoneInfo(zone)) + shift).strftime("%H:%M")


def me_id(stack: Stack, signed: dict[str, Any]) -> str:
    return str(me(stack, signed["token"])["id"])


def digests_to(stack: Stack, address: str) -> list[Message]:
    return [m for m in stack.inbox.to(address) if "digest" in str(m["Subject"])]


def test_a_digest_replaces_single_messages_once_a_local_day(stack: Stack) -> None:
    ann = sign_in(stack, "ann-digest@example.com", "Ann")
    zone = daytime_zone()
    # the quiet hours ended a minute ago: today's digest is due now
    quiet = {"from": hhmm(zone, timedelta(hours=-2)), "to": hhmm(zone, timedelta(minutes=-1))}
    wants: dict[str, Any] = {"email": True, "digest": True, "quiet_hours": quiet}
    assert patch_me(stack, ann["token"], {"timezone": zone, "notifications": wants}).ok
    table = Table(stack, ann["token"], seed=21)
    marker = table.to_turn()
    assert marker is not None
    assert job_result(stack, table.id, 1, "your_turn", marker) == "digest"
    address = "ann-digest@example.com"
    message = stack.inbox.wait_for(address, 2)  # after the sign-in mail
    assert message["Subject"] == "Your Chronicle digest: 1 game"
    text = parts(message)["text/plain"]
    assert "Your turn in Artus" in text and f"{stack.public}/play/{table.id}" in text
    mine, his = table.view(1)["state"]["hand"], table.view(0)["state"]["hand"]
    assert mine and hand_said(mine) in text  # named as the page names them
    assert his and not any(card in whole(message) for card in mine + his), "no card ids"
    assert hand_said(his) == hand_said(mine) or hand_said(his) not in whole(message)
    assert not any(token in whole(message) for token in table.tokens.values())
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert ".digest." in message["List-Unsubscribe"]  # the link turns the digest off
    # the next turn is kept too, but today's digest went out: nothing more today
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    second = table.to_turn()
    assert second is not None
    assert job_result(stack, table.id, 1, "your_turn", second) == "digest"
    time.sleep(10 * float(LOOK))
    assert len(stack.inbox.to(address)) == 2, "no single message, one digest a day"
    r = redis.Redis.from_url(stack.redis_url)
    assert r.llen(notices.digest_key(me_id(stack, ann))) == 1, "kept for tomorrow's"


def test_quiet_hours_hold_notices_for_the_digest_at_their_end(stack: Stack) -> None:
    cy = sign_in(stack, "cy-digest@example.com", "Cy")
    zone = daytime_zone()
    quiet = {"from": hhmm(zone, timedelta(hours=-1)), "to": hhmm(zone, timedelta(hours=1))}
    wants = {"email": True, "quiet_hours": quiet}
    assert patch_me(stack, cy["token"], {"timezone": zone, "notifications": wants}).ok
    table = Table(stack, cy["token"], seed=22)
    marker = table.to_turn()
    assert marker is not None
    assert job_result(stack, table.id, 1, "your_turn", marker) == "quiet hours"
    time.sleep(5 * float(LOOK))
    address = "cy-digest@example.com"
    assert len(stack.inbox.to(address)) == 1, "nothing in quiet hours, the digest neither"
    # two hours on, the quiet hours have ended: the digest's look sends what they held
    r = redis.Redis.from_url(stack.redis_url)
    queue = Queue(notices.QUEUE, connection=r, serializer=JSONSerializer)
    later = datetime.now(UTC) + timedelta(hours=2)
    digest.scan(r, queue, Accounts(r), now=later)
    message = stack.inbox.wait_for(address, 2)
    assert message["Subject"] == "Your Chronicle digest: 1 game"
    assert "Your turn in Artus" in parts(message)["text/plain"]
    # turning the digest's mail off (quiet hours alone: email altogether) needs no sign-in
    assert ".all." in message["List-Unsubscribe"]
    assert not r.llen(notices.digest_key(me_id(stack, cy))), "sent: no longer kept"
