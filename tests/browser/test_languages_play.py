"""A game in Japanese, then in Traditional Chinese, in Chromium (issue 40): a browser whose
language is ja (then zh-TW) opens the lobby, creates a short game of Artus (basic rules, the
person against a greedy bot), plays a few moves at a person's pace and opens the replay
viewer.  On each page no English word is left: the page's text (``document.body.innerText``,
which also holds every option of a select) is searched for runs of two or more ASCII letters,
after taking out a small, explicit list of what stays as it is everywhere: names (the site's,
the games', the players'), the language menu's "English" (each language is named in itself),
codes (HTTP, the audit's hash), and one of the games' own terms the catalog glosses in
full-width parentheses after its translation (Kings and Castles' "Household").

The board and the move texts (the games' own words, the ``client_games`` catalogue) are
searched too: the board and its details, the moves, the log, the replay's step."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests

from tests.browser.conftest import Console

DESKTOP = {"width": 1280, "height": 800}
VERSION_JS = "() => Number(document.body.dataset.version || 0)"
ENABLED = "#actions .act:not([disabled])"

# What stays in ASCII letters in every language: proper names and codes (taken out of the text
# before the search, longest first).
NAMES = ["Kings and Castles", "Lancaster", "Artus", "Chronicle", "Ann", "English"]
NAMES += ["\uff08Household\uff09"]  # the catalog's gloss of a game's own term (Kings and Castles)
CODES = [r"\bHTTP\b", r"\b[0-9a-f]{16}\b"]  # a status line's protocol; the audit's head hash

# The text of the page without the regions left out (each region's own innerText removed).
TEXT_JS = """(skip) => {
  let text = document.body.innerText;
  for (const sel of skip) for (const el of document.querySelectorAll(sel)) {
    const part = el.innerText;
    if (part) text = text.split(part).join(" ");
  }
  return text;
}"""


def listed_names(server_url: str) -> list[str]:
    """The names the lobby lists: the seats of the public tables, their games' ids where no
    catalog names them, and the leaderboards' players (other tests' on the session's server:
    "Host", "Pat"... are names people gave, not the page's words)."""
    names: set[str] = set()
    for query in ("per_page=50", "status=waiting&per_page=50"):
        listed = requests.get(f"{server_url}/api/v1/games?{query}", timeout=10).json()["games"]
        names.update(seat["name"] for game in listed for seat in game["seats"] if seat.get("name"))
        names.update(game["game"] for game in listed)  # an id the page shows as it is: the
        # store's contract tests list games of a kind no catalog offers ("store-test")
    for game in ("artus", "kings-and-castles", "lancaster"):  # the leaderboards' players
        board = requests.get(f"{server_url}/api/v1/ratings/{game}?limit=10", timeout=10).json()
        names.update(r["name"] for r in board.get("ratings", []) if r.get("name"))
    return sorted(names, key=len, reverse=True)


def english_left(page: Any, skip: list[str], names: list[str] | None = None) -> list[str]:
    """The runs of ASCII letters on the page that are neither a name nor a code."""
    text = page.evaluate(TEXT_JS, skip)
    for name in [*NAMES, *(names or [])]:  # whole words only: a player named "Ca" or "re" must
        # not cut "Kings and Castles" or "restore" into pieces that look like other words
        text = re.sub(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", " ", text)
    for code in CODES:
        text = re.sub(code, " ", text)
    return sorted(set(re.findall(r"[A-Za-z]{2,}", text)))


def check(page: Any, where: str, skip: list[str], names: list[str] | None = None) -> None:
    left = english_left(page, skip, names)
    assert left == [], f"English left on the {where}: {left}"


@pytest.mark.parametrize(
    ("locale", "lang", "create"),
    [("ja-JP", "ja", "卓を作る"), ("zh-TW", "zh-TW", "建立牌桌")],
    ids=["ja", "zh-TW"],
)
def test_a_game_in_the_browsers_language_has_no_english_left(
    browser: Any, console: Console, server_url: str, worker: Any, locale: str, lang: str,
    create: str,
) -> None:  # fmt: skip
    skip: list[str] = []  # every region of the page is searched
    ctx = browser.new_context(viewport=DESKTOP, locale=locale)
    page = console.watch(ctx.new_page(), lang)
    try:
        # the lobby
        page.goto(server_url + "/")
        page.wait_for_selector("#catalog .game-card")
        page.wait_for_selector("#mine p, #mine ul")
        assert page.get_attribute("html", "lang") == lang
        assert page.inner_text("#create-table") == create
        page.wait_for_timeout(800)  # a person reads the lobby
        check(page, "lobby", skip, listed_names(server_url))
        # a short game: Artus, basic rules, the person against a greedy bot
        page.select_option("#game", "artus")
        page.select_option("#opt-rules", "basic")
        page.fill("#name-0", "Ann")
        page.select_option("#kind-1", "bot:greedy")
        page.wait_for_timeout(600)
        page.click("#create-table")
        page.wait_for_selector("#go-table")
        check(page, "lobby with the new table", skip, listed_names(server_url))
        page.click("#go-table")
        page.wait_for_selector("#board svg")
        gid = page.url.rsplit("/", 1)[-1]
        # a few moves, a click every second or so
        played = 0
        for _ in range(4):
            try:
                page.wait_for_function(
                    f"() => document.querySelectorAll('{ENABLED}').length > 0", timeout=20_000
                )
            except Exception:
                break  # the game is over, or waits for the bot
            page.wait_for_timeout(1000)
            before = page.evaluate(VERSION_JS)
            page.locator(ENABLED + ":visible").first.click()
            page.wait_for_function(f"{VERSION_JS} > {before}", timeout=10_000)
            played += 1
        assert played >= 3, f"only {played} moves were played"
        page.wait_for_timeout(1500)  # the bot's reply to the last move
        page.wait_for_selector("#log li")
        check(page, "table", skip)
        # the replay viewer
        page.goto(f"{server_url}/replay/{gid}")
        page.wait_for_selector("#board svg")
        page.wait_for_selector("#log li")
        page.wait_for_selector("#audit #verdict")
        page.wait_for_timeout(800)
        check(page, "replay viewer", skip)
        page.click("#first")
        page.wait_for_timeout(500)
        check(page, "replay viewer at its first version", skip)
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_the_check_finds_english() -> None:
    """The search itself: an English word is found, names and codes are not."""

    class Page:
        def __init__(self, text: str) -> None:
            self.text = text

        def evaluate(self, _js: str, _skip: list[str]) -> str:
            return self.text

    assert english_left(Page("あなたの手番 · Artus · Ann · HTTP · 0123abcd4567ef89"), []) == []
    assert english_left(Page("Chronicle ロビー Your turn"), []) == ["Your", "turn"]
