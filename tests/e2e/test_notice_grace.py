"""The grace before a turn's notice (``CHRONICLE_NOTICE_GRACE``, contract: Notices to people):
a person who plays their turn within it, as one does at the table, is not mailed at all; a
turn left waiting is mailed once the grace is over, never before.  Served API, a real worker
and a real SMTP server."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.e2e.test_notices import Table, job_result, parts, patch_me, sign_in
from tests.support.accounts import Stack, accounts_stack

GRACE = 3.0  # seconds


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("grace")
    with accounts_stack(folder, CHRONICLE_NOTICE_GRACE=str(GRACE)) as found:
        yield found


def test_a_turn_played_within_the_grace_is_not_mailed_and_one_left_waiting_is_after_it(
    stack: Stack,
) -> None:
    address = "ann-grace@example.com"
    ann = sign_in(stack, address, "Ann")
    assert patch_me(stack, ann["token"], {"notifications": {"email": True}}).status_code == 200
    table = Table(stack, ann["token"], seed=5)
    # at the table: Bob's move makes it her turn, and she plays it at once
    marker = table.to_turn()
    assert marker is not None
    began = time.monotonic()
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    assert time.monotonic() - began < GRACE, "she played her turn within the grace"
    assert job_result(stack, table.id, 1, "your_turn", marker) == "turn over"
    assert len(stack.inbox.to(address)) == 1, "only the sign-in mail: her turn was not mailed"
    # away from the table: the next turn waits, and is mailed when the grace is over
    waiting = table.to_turn()
    assert waiting is not None
    began = time.monotonic()
    time.sleep(GRACE / 2)
    assert len(stack.inbox.to(address)) == 1, "nothing before the grace is over"
    message = stack.inbox.wait_for(address, 2)
    assert time.monotonic() - began >= GRACE * 0.9  # the turn began just before ``began``
    assert message["Subject"] == "Your turn in Artus"
    assert f"version {waiting}" in parts(message)["text/plain"]  # its cards' words: not ASCII
    assert job_result(stack, table.id, 1, "your_turn", waiting) == "sent"
