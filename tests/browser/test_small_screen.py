"""A phone-sized screen, driven from the keyboard: the lobby and each game's table fit the
width of the screen (the page never scrolls sideways; a map too detailed to shrink scrolls
inside its own box), and a move is made with Tab and Enter alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Console

PHONE = {"width": 390, "height": 844}
GAMES = ["artus", "kings-and-castles", "lancaster"]

WIDTH_JS = "() => Math.max(document.documentElement.scrollWidth, window.innerWidth)"


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_sized_table_played_from_the_keyboard(
    browser: Any, console: Console, server_url: str, worker: Any, game: str
) -> None:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = console.watch(ctx.new_page(), "phone")
    try:
        page.goto(server_url + "/")
        page.select_option("#game", game)
        page.fill("#name-0", "Alice")
        page.select_option("#kind-1", "bot:random")
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "the lobby scrolls sideways"
        page.click("#create-table")
        page.click("#go-table")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.dataset.status === 'active'")
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], f"the {game} table scrolls sideways"
        # the board fits the screen: drawn to its width (Artus), or, for the two maps whose
        # words would be too small at that scale, at a readable 720 px inside its own box,
        # which scrolls sideways (the page itself never does)
        box = page.locator("#board").bounding_box()
        drawn = page.locator("#board svg").bounding_box()
        assert box is not None and drawn is not None and box["width"] <= PHONE["width"]
        if drawn["width"] > box["width"]:
            assert page.evaluate(
                "() => { const b = document.querySelector('#board');"
                " return b.scrollWidth > b.clientWidth"
                " && getComputedStyle(b).overflowX === 'auto'; }"
            ), "a board wider than the screen can be scrolled within its box"

        # to act: Tab from the top of the page reaches an action button; Enter sends it
        page.wait_for_selector("#actions .act:not([disabled])", timeout=20_000)
        before = int(page.evaluate("() => Number(document.body.dataset.version)"))
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        for _ in range(200):
            page.keyboard.press("Tab")
            if page.evaluate(
                "() => document.activeElement && document.activeElement.matches('#actions .act')"
            ):
                break
        else:
            raise AssertionError("Tab never reached a legal action")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => Number(document.body.dataset.version) > {before}", timeout=20_000
        )
        assert console.errors == [], console.errors
    finally:
        ctx.close()
