"""The replay viewer's review (issue 42) in Chromium: a seat holder of a finished game asks for
the review of its moves with the "Review my moves" button, the list fills once the worker is
done, biggest swing first, each decision said in words and figures and linked to its version;
a spectator is offered nothing.  No serious accessibility violation in the review's card."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.browser import axe
from tests.browser.conftest import Console
from tests.support.client import Client
from tests.support.play import new_game, play_random


def finished(api: Client, gid: str) -> None:
    deadline = time.monotonic() + 30
    while api.summary(gid)["status"] != "finished":
        assert time.monotonic() < deadline, "the worker did not score the game"
        time.sleep(0.1)


def test_a_seat_holder_reviews_its_moves_in_the_replay_viewer(
    api: Client,
    server_url: str,
    worker: Any,
    browser: Any,
    console: Console,
    artifacts: Path,
) -> None:
    gid, tokens = new_game(api, "kings-and-castles", {"length": "short"}, 2)
    play_random(api, gid, tokens, random.Random(42))
    finished(api, gid)

    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = console.watch(ctx.new_page(), "seat 0")
    page.goto(f"{server_url}/play/{gid}#token={tokens[0]}")  # the browser keeps the token
    page.wait_for_function("() => Number(document.body.dataset.version || 0) > 0")
    page.goto(f"{server_url}/replay/{gid}")
    button = page.get_by_role("button", name="Review my moves")
    expect(button).to_be_visible(timeout=15_000)
    button.click()
    items = page.locator("#review li[data-swing]")
    expect(items.first).to_be_visible(timeout=120_000)
    review = api.http.get(
        f"{api.base}/api/v1/games/{gid}/review",
        params={"seat": 0},
        headers={"Authorization": f"Bearer {tokens[0]}"},
        timeout=10,
    ).json()
    assert review["status"] == "done"
    assert items.count() == len(review["decisions"]) > 3
    swings = [float(s) for s in items.evaluate_all("(lis) => lis.map((li) => li.dataset.swing)")]
    assert swings == sorted(swings, reverse=True)  # the biggest swing first
    first = items.first.inner_text()
    assert "you played" in first and ("search agrees" in first or "better" in first)
    assert "{" not in first and "_" not in first  # words, not raw actions
    status = page.locator("#review-status").inner_text()
    assert f"{len(review['decisions'])} decisions judged" in status
    link = items.first.get_by_role("link")
    target = int(link.inner_text().split()[-1])
    link.click()
    page.wait_for_function(f"() => document.body.dataset.version === '{target}'")
    card = page.locator("section.card", has=page.locator("#review"))
    found = [line for line in axe.serious(axe.violations(page)) if "review" in line]
    assert not found, found
    expect(card).to_be_visible()
    card.screenshot(path=str(artifacts / "review.png"))

    ctx.close()
    # a spectator: a browser of its own (a page of the same one keeps the seat's token)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    spectator = console.watch(ctx.new_page(), "spectator")
    spectator.goto(f"{server_url}/replay/{gid}")
    spectator.wait_for_function("() => Number(document.body.dataset.version || 0) > 0")
    expect(spectator.locator("#review")).to_be_hidden()
    ctx.close()
    assert not console.errors, console.errors
