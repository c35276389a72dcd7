"""The rules for players in the pages (issue #34, point 5), in Chromium:

- the lobby describes each game, explains its options, their values and the bots in words (from
  the catalog), and each game card's rules link opens that game's rules page, whose table of
  contents leads to an anchor per rule id; the page fits a phone's width;
- on the table, the head links the game's rules, and a move the server refuses (the page's own
  request, turned into an illegal one on its way by the test) shows the server's message with a
  link to the very rule it names (``details.rule``), which opens on that rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import Console

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WIDTH_JS = "() => Math.max(document.documentElement.scrollWidth, window.innerWidth)"
TARGET_JS = """() => { const t = document.querySelector(':target');
  return t ? [t.id, t.tagName, Math.round(t.getBoundingClientRect().top)] : null; }"""


def test_the_lobby_explains_each_game_and_links_its_rules(
    browser: Any, console: Console, server_url: str, artifacts: Path
) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = console.watch(ctx.new_page(), "lobby")
    try:
        page.goto(server_url + "/")
        page.wait_for_selector("#catalog .game-card .game-about")
        cards = page.locator("#catalog .game-card")
        assert cards.count() == 3
        artus = page.locator(".game-card", has_text="Artus")
        assert "Round Table" in artus.locator(".game-about").inner_text()
        # options and their values in words, not keys
        words = artus.locator(".game-options").inner_text()
        for shown in ("Rules", "Basic", "Advanced", "Undo", "Own last move", "No undo"):
            assert shown in words, shown
        assert "turn / host / none" not in page.inner_text("#catalog")
        bots = artus.locator(".bot-levels")
        bots.locator("summary").click()
        assert "Thinker, hard" in bots.inner_text() and "at random" in bots.inner_text()
        # the create form says what the chosen value means, and names the bots in words
        page.select_option("#opt-undo", "none")
        assert page.inner_text("#opt-undo-help") == "Every move is final."
        assert "a bot: Greedy" in page.inner_text("#kind-1")
        page.screenshot(path=str(artifacts / "lobby-games-1280.png"), full_page=True)

        # the rules link of a game card opens its rules page; the contents lead to each rule
        page.locator(".game-card", has_text="Kings and Castles").locator("a.rules-link").click()
        page.wait_for_url("**/rules/kings-and-castles")
        assert page.inner_text("h1") == "Kings and Castles: the rules"
        page.click('.rules-toc a[href="#KC-5.2"]')
        page.wait_for_function("() => location.hash === '#KC-5.2'")
        target = page.evaluate(TARGET_JS)
        assert target is not None and target[:2] == ["KC-5.2", "H3"], target
        assert 0 <= target[2] < 100, "the rule is at the top of the window"
        assert "No wasted counters" in page.locator(":target").inner_text()
        page.screenshot(path=str(artifacts / "rules-kc-1280.png"))
        page.click('nav[aria-label="the rules of each game"] a[href="/rules/artus"]')
        page.wait_for_url("**/rules/artus")
        assert page.inner_text("h1") == "Artus: the rules"
        page.screenshot(path=str(artifacts / "rules-artus-1280.png"))
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_the_rules_page_on_a_phone(
    browser: Any, console: Console, server_url: str, artifacts: Path
) -> None:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = console.watch(ctx.new_page(), "phone")
    try:
        page.goto(server_url + "/rules/lancaster#LA-2.3")
        assert page.evaluate(TARGET_JS)[:2] == ["LA-2.3", "H3"]
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "the rules page scrolls sideways"
        page.screenshot(path=str(artifacts / "rules-lancaster-390.png"))
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(artifacts / "rules-lancaster-390-top.png"))
        page.goto(server_url + "/")
        page.wait_for_selector("#catalog .game-card .game-about")
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "the lobby scrolls sideways"
        page.locator("#catalog").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "lobby-games-390.png"))
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_a_refused_move_links_to_the_rule_it_broke(
    browser: Any, console: Console, server_url: str, artifacts: Path
) -> None:
    created = requests.post(
        f"{server_url}/api/v1/games",
        json={"game": "artus", "players": [{"name": "Alice"}, {"name": "Bob"}]},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game = created.json()
    # Artus places its knights from the start player's right: the second seat acts first
    token = next(s["token"] for s in game["seats"] if s["seat"] == 1)
    ctx = browser.new_context(viewport=DESKTOP)
    page = console.watch(ctx.new_page(), "bob")
    try:
        page.goto(f"{server_url}/play/{game['id']}#token={token}")
        page.wait_for_selector("#actions .act:not([disabled])", timeout=20_000)
        assert page.get_attribute("#rules-link", "href") == "/rules/artus"

        # The page's own move, made illegal on its way: seat 0 holds a prince (AR-2).
        def illegal(route: Any) -> None:
            if route.request.method != "POST":
                route.continue_()
                return
            body = json.loads(route.request.post_data or "{}")
            body["action"] = {"type": "place_knight", "seat": 0}
            route.continue_(post_data=json.dumps(body))

        page.route("**/api/v1/games/*/actions", illegal)
        console.expect("/actions", 422)
        page.click("#actions .act:not([disabled])")
        link = page.wait_for_selector("#notice a.rule-link", timeout=10_000)
        assert link.get_attribute("href") == "/rules/artus#AR-2"
        notice = page.inner_text("#notice")
        assert "Refused" in notice and "Read rule AR-2" in notice, notice
        page.screenshot(path=str(artifacts / "refusal-rule-link-1280.png"))

        with ctx.expect_page() as opened:
            link.click()
        rules = console.watch(opened.value, "rules")
        rules.wait_for_load_state()
        assert rules.url.endswith("/rules/artus#AR-2")
        target = rules.evaluate(TARGET_JS)
        assert target is not None and target[:2] == ["AR-2", "H2"], target
        assert "Setting up" in rules.locator(":target").inner_text()
        assert console.errors == [], console.errors
    finally:
        ctx.close()
