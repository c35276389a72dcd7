"""Reminders (contract: v2 additions, Notices to people) through the served API, a real
worker and a real SMTP server: a mail when a seat's deadline is nearer than its account's
``reminders``, once per deadline however many times the workers look, none for a deadline
still further away than the window, and a new one for the next turn's deadline."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.message import Message

import pytest
import redis
import requests

from service import clocks, notice_text, notices
from tests.e2e.test_notices import Table, bearer, job_result, parts, patch_me, sign_in, whole
from tests.support.accounts import Stack, accounts_stack

API = "/api/v1"
LOOK = "0.2"  # seconds between two looks of the worker for owed reminders


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("reminders")
    with accounts_stack(folder, CHRONICLE_REMINDER_SECONDS=LOOK) as found:
        yield found


def deadline_of(stack: Stack, game_id: str, seat: int) -> int:
    """The seat's deadline as the clocks' index holds it (its newest entry)."""
    r = redis.Redis.from_url(stack.redis_url)
    found = [
        check.version
        for member in r.zrange(clocks.DEADLINES, 0, -1)
        if isinstance(member, bytes)
        and (check := clocks.check_of(member))
        and check.game_id == game_id
        and check.seat == seat
    ]
    assert found, "no deadline in the index"
    return max(found)


def reminders_to(stack: Stack, address: str) -> list[Message]:
    return [m for m in stack.inbox.to(address) if "runs out soon" in str(m["Subject"])]


def test_a_deadline_nearer_than_the_window_is_reminded_once(stack: Stack) -> None:
    ann = sign_in(stack, "ann-reminders@example.com", "Ann")
    bob = sign_in(stack, "bob-reminders@example.com", "Bob")
    zone = "Europe/Paris"
    ann_wants = {"email": True, "your_turn": False, "reminders": "PT2H"}
    assert patch_me(stack, ann["token"], {"timezone": zone, "notifications": ann_wants}).ok
    # Bob's window is shorter than the turn: his deadline is never near enough in this test
    bob_wants = {"email": True, "your_turn": False, "reminders": "PT10M"}
    assert patch_me(stack, bob["token"], {"notifications": bob_wants}).ok
    table = Table(stack, ann["token"], seed=11, turn_time="PT1H")
    claimed = table.stack.base + f"{API}/games/{table.id}/claim"
    requests.post(
        claimed, json={"seat_token": table.tokens[0]}, headers=bearer(bob["token"]), timeout=10
    ).raise_for_status()
    address = "ann-reminders@example.com"
    assert table.to_turn() is not None
    deadline = deadline_of(stack, table.id, 1)
    message = stack.inbox.wait_for(address, 2)  # after the sign-in mail
    assert job_result(stack, table.id, 1, "reminder", deadline) == "sent"
    assert message["Subject"] == "Your time in Artus runs out soon"
    text = parts(message)["text/plain"]
    assert notice_text.when(deadline, zone) in text and "Europe/Paris" in text
    assert f"{stack.public}/play/{table.id}" in text
    assert message["List-Unsubscribe"] and message["List-Unsubscribe-Post"]
    his = table.view(0)["state"]["hand"]
    assert his and not any(card in whole(message) for card in his)
    assert "bob-reminders@" not in whole(message)
    time.sleep(10 * float(LOOK))  # many more looks: still one reminder of that deadline
    assert len(reminders_to(stack, address)) == 1
    # her turn ends (Bob's begins: not near enough for him), the next one has a new deadline
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    assert table.to_turn() is not None
    second = deadline_of(stack, table.id, 1)
    assert second != deadline
    stack.inbox.wait_for(address, 3)
    assert job_result(stack, table.id, 1, "reminder", second) == "sent"
    time.sleep(5 * float(LOOK))
    assert len(reminders_to(stack, address)) == 2
    assert reminders_to(stack, "bob-reminders@example.com") == []


def test_no_reminder_without_the_setting(stack: Stack) -> None:
    cy = sign_in(stack, "cy-reminders@example.com", "Cy")
    wants = {"email": True, "your_turn": False, "reminders": None}
    assert patch_me(stack, cy["token"], {"notifications": wants}).ok
    table = Table(stack, cy["token"], seed=12, turn_time="PT1H")
    assert table.to_turn() is not None
    deadline = deadline_of(stack, table.id, 1)
    time.sleep(10 * float(LOOK))
    r = redis.Redis.from_url(stack.redis_url)
    assert not r.exists(notices.done_key(notices.job_id(table.id, 1, "reminder", deadline)))
    assert len(stack.inbox.to("cy-reminders@example.com")) == 1  # the sign-in mail only
