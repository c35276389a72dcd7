"""The table page's clocks (contract: Time controls), in Chromium: each seat's time left and
deadline, counted down every second, and a warning in words (not only colour) when little is
left; axe finds nothing serious in them."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.axe import serious, violations
from tests.browser.conftest import Console
from tests.support.client import Client


def test_the_table_counts_each_seats_bank_down_and_warns_in_words(
    browser: Any, console: Console, server_url: str
) -> None:
    api = Client(server_url)
    created = api.create(
        "artus", [{"name": "Ann"}, {"name": "Bob"}], options={"rules": "basic"},
        time_control={"bank": "PT12S"},
    )  # fmt: skip
    gid = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seat = api.summary(gid)["to_act"][0]
    ctx = browser.new_context()
    page = console.watch(ctx.new_page(), "clocks")
    try:
        page.goto(f"{server_url}/play/{gid}#token={tokens[seat]}")
        page.wait_for_selector("#turn .clocks")
        mine = page.locator(f'#turn .clock[data-seat="{seat}"]')
        first = mine.inner_text()
        assert re.match(r"You: \d+ s left, by ", first), first
        other = page.locator(f'#turn .clock[data-seat="{1 - seat}"]').inner_text()
        assert other == "Bob: 12 s left" if seat == 0 else other == "Ann: 12 s left", other
        page.wait_for_function(
            "t => document.querySelector('#turn .clock.running .left').textContent !== t",
            arg=mine.locator(".left").inner_text(),
            timeout=5000,
        )
        assert not serious(violations(page), {"serious", "critical"})
        page.wait_for_selector("#turn .clock.low .warn", timeout=15_000)
        assert "Little time left!" in mine.inner_text()
    finally:
        ctx.close()
        api.post(f"/api/v1/games/{gid}/abandon", {}, created["host_token"])
