"""The table page's clocks (contract: Time controls), in Chromium: each seat's time left and
deadline, counted down every second outside any live region (a screen reader would say every
second), a warning in words (not only colour) when little is left, said once in the page's
alert; the text view says the clocks in words; axe finds nothing serious in them."""

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
        page.goto(f"{server_url}/play/{gid}?reader=1#token={tokens[seat]}")
        page.wait_for_selector("#clocks .clocks")
        live = page.evaluate("document.querySelector('#clocks .clocks').closest('[aria-live]')")
        assert live is None, "the countdown is in no live region"
        page.wait_for_function(
            "document.querySelector('#reader-turn-p').textContent.includes('Clocks:')"
        )
        said = page.locator("#reader-turn-p").inner_text()
        assert re.search(r"Clocks: .*you \d+ s left, by \d", said), said  # seat order
        assert re.search(r"\b(Ann|Bob) 12 s left\b", said), said
        page.evaluate(
            """() => { window.lowSaid = 0; new MutationObserver(() => {
                 if (document.querySelector('#notice').textContent.startsWith('Little time left'))
                   window.lowSaid += 1; }).observe(document.querySelector('#notice'),
                 { childList: true, characterData: true, subtree: true }); }"""
        )
        mine = page.locator(f'#clocks .clock[data-seat="{seat}"]')
        first = mine.inner_text()
        assert re.match(r"You: \d+ s left, by ", first), first
        other = page.locator(f'#clocks .clock[data-seat="{1 - seat}"]').inner_text()
        assert other == "Bob: 12 s left" if seat == 0 else other == "Ann: 12 s left", other
        page.wait_for_function(
            "t => document.querySelector('#clocks .clock.running .left').textContent !== t",
            arg=mine.locator(".left").inner_text(),
            timeout=5000,
        )
        assert not serious(violations(page), {"serious", "critical"})
        page.wait_for_selector("#clocks .clock.low .warn", timeout=15_000)
        assert "Little time left!" in mine.inner_text()
        page.wait_for_function("window.lowSaid > 0", timeout=3000)
        notice = page.locator("#notice")
        assert re.match(r"Little time left: \d+ s\.$", notice.inner_text()), notice.inner_text()
        assert notice.get_attribute("role") == "alert"
        page.wait_for_timeout(2500)  # the clock counts on, low all along: said once
        assert page.evaluate("window.lowSaid") == 1
    finally:
        ctx.close()
        api.post(f"/api/v1/games/{gid}/abandon", {}, created["host_token"])
