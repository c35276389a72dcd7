"""Ratings in the lobby (issue 41), in Chromium at a person's pace: a signed-in player creates a
rated public table against the greedy bot from the lobby's form, the game is played to its end
(the person's moves through the API, the bot's by the worker), and back in the lobby the
player's games list says what the game did to the rating, in words; the public list marks the
table "rated"; the leaderboard shows the player and the bot, provisional after one game; and
the lobby holds on a phone's width with no serious accessibility finding.

The stack is the accounts tests' own (``tests.support.accounts``): its Redis, a real SMTP
server, the served API and a worker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.browser.conftest import Console
from tests.browser.test_accounts_browser import (
    HELD_JS,
    PACE_MS,
    PHONE,
    WIDTH_JS,
    new_page,
    no_serious,
    sign_in,
)
from tests.e2e.test_ratings import play_to_the_end
from tests.support.accounts import Stack, accounts_stack

pytestmark = pytest.mark.slow  # a person's pace: a pause before every click


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("ratings-web")) as found:
        yield found


def test_the_lobby_shows_a_rated_games_change_the_rated_mark_and_the_leaderboard(
    browser: Any, console: Console, stack: Stack, artifacts: Path
) -> None:
    ctx, page = new_page(browser, console, "rae")
    try:
        sign_in(page, stack, "rae.lobby@example.com", "Rae")
        page.goto(stack.public + "/")
        page.wait_for_selector("#create")
        page.select_option("#game", "artus")
        page.wait_for_timeout(PACE_MS)
        page.select_option("#opt-rules", "basic")
        page.select_option("#kind-1", "bot:greedy")
        page.wait_for_timeout(PACE_MS)
        page.check("#public")
        page.check("#rated")
        page.wait_for_timeout(PACE_MS)
        page.click("#create-table")
        page.wait_for_selector("#go-table")
        gid = page.get_attribute("#go-table", "href").rsplit("/", 1)[1]
        row = f"#account-games li[data-game='{gid}']"
        page.wait_for_selector(row)
        assert page.locator(f"{row} .rating-move").count() == 0, "not finished: no change"
        token = page.evaluate(HELD_JS)[gid]["seats"]["0"]

        play_to_the_end(stack, gid, token, 0, seed=11)
        changes = requests.get(f"{stack.base}/api/v1/games/{gid}/ratings", timeout=10)
        for _ in range(60):  # the worker counts the game a moment after its end
            if changes.status_code == 200:
                break
            page.wait_for_timeout(500)
            changes = requests.get(f"{stack.base}/api/v1/games/{gid}/ratings", timeout=10)
        assert changes.status_code == 200, changes.text
        mine = next(c for c in changes.json()["changes"] if c["name"] == "Rae")

        page.wait_for_timeout(PACE_MS)
        page.goto(stack.public + "/")
        page.wait_for_selector(f"{row} .rating-move")
        said = page.inner_text(f"{row} .rating-move")
        before, after = mine["before"]["ordinal"], mine["after"]["ordinal"]
        way = "up" if after > before else "down"
        figure = f"{abs(after):.1f}"
        assert said.startswith("rated · rating 0.0 → "), said  # a first game starts at 0
        assert figure in said and f", {way} {abs(after - before):.1f}" in said, said
        # the account page's list of games says the same
        page.goto(stack.public + "/signin")
        page.wait_for_selector(f"{row} .rating-move")
        assert page.inner_text(f"{row} .rating-move") == said
        page.goto(stack.public + "/")
        page.wait_for_selector(f"{row} .rating-move")

        # the public list marks the table rated, in words
        recent = f"#recent li:has(a[href='/play/{gid}'])"
        page.wait_for_selector(recent)
        assert page.inner_text(f"{recent} .rated-mark") == "rated"

        # the leaderboard: the player (a link to the profile) and the bot, both provisional
        page.wait_for_timeout(PACE_MS)
        page.select_option("#board-game", "artus")
        page.wait_for_selector("#board table.leaderboard[data-game='artus']")
        board = page.inner_text("#board")
        assert "Rae" in board and "Greedy (bot)" in board, board
        assert board.count("provisional") >= 2, board
        assert page.locator("#board a", has_text="Rae").count() == 1

        no_serious(page, "the lobby with a rated game and a leaderboard")
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(PACE_MS)
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "nothing wider than a phone"
        no_serious(page, "the lobby on a phone")
        page.screenshot(path=str(artifacts / "lobby-ratings-phone.png"), full_page=True)

        # the player's profile says the rating in words (it once said "[object Object]")
        page.wait_for_timeout(PACE_MS)
        page.locator("#board a", has_text="Rae").click()
        page.wait_for_selector("ul.profile-ratings li")
        said = page.inner_text("ul.profile-ratings")
        assert "Artus" in said and "1 rated game, provisional" in said, said
        assert "object" not in said, said
        assert console.errors == [], console.errors
    finally:
        ctx.close()
