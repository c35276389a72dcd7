"""Whole games played in a real browser through the UI alone (clicks and keys, no API call
from the test): two players in separate browser contexts (separate storage, so each holds only
its own seat) and a spectator.  The host creates the table in the lobby with the second seat
open, copies its invitation link from the page; the second player opens it and joins under
their own name, which starts the game.  Every move must reach the other
screens live (long-poll or stream, no reload).  One undo, one move made by clicking the board,
moves made with the keyboard, the result with scores, then the replay viewer stepped to
version 1 and back to the end, with the audit verdict and the undo trail.  No console error on
any page."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Console

# the short variants: a whole game in well under a minute each
GAMES = [
    ("artus", {"rules": "basic"}, ".slot.legal"),
    ("kings-and-castles", {"length": "short"}, ".track-sq.legal"),
    ("lancaster", {}, ".space.legal"),
]

NAMES = ["Alice", "Bob"]
MID_GAME = {"artus": 40, "kings-and-castles": 70, "lancaster": 34}

STATE_JS = """() => ({
  version: Number(document.body.dataset.version || 0),
  status: document.body.dataset.status || "",
  acts: document.querySelectorAll('#actions .act:not([disabled])').length,
})"""


STORED_TOKENS_JS = """() => Object.values(JSON.parse(localStorage.getItem("chronicle.v1")).games)
  .flatMap((g) => [...Object.values(g.seats), g.host].filter(Boolean))"""


def state(page: Any) -> dict[str, Any]:
    return page.evaluate(STATE_JS)


def first_action(page: Any) -> str:
    return page.inner_text("#actions .act >> nth=0")


def wait_version(page: Any, version: int, timeout: float = 20, at_least: bool = False) -> None:
    """Wait until ``page`` shows ``version`` (``at_least``: or a later one, where an event the
    test did not make may follow at once: the worker's scoring after the last move, which a
    stream may deliver in the same chunk, so the page never shows the version before it)."""
    op = ">=" if at_least else "==="
    page.wait_for_function(
        f"() => Number(document.body.dataset.version || 0) {op} {version}", timeout=timeout * 1000
    )


SENT: list[str] = []  # every request URL and Referer header the browsers sent


def new_page(browser: Any, console: Console, name: str) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    ctx.on("request", lambda r: SENT.extend([r.url, r.headers.get("referer", "")]))
    return ctx, console.watch(ctx.new_page(), name)


@pytest.mark.parametrize(("game", "options", "board_item"), GAMES, ids=[g[0] for g in GAMES])
def test_whole_game_in_the_browser(
    browser: Any,
    console: Console,
    server_url: str,
    worker: Any,
    artifacts: Path,
    game: str,
    options: dict[str, str],
    board_item: str,
) -> None:
    ctx_a, alice = new_page(browser, console, "alice")
    ctx_b, bob = new_page(browser, console, "bob")
    ctx_s, spectator = new_page(browser, console, "spectator")
    try:
        # --- the lobby: a table with the second seat open; invite, join ------------------
        alice.goto(server_url + "/")
        alice.select_option("#game", game)
        for name, value in options.items():
            alice.select_option(f"#opt-{name}", value)
        alice.fill("#name-0", "Alice")
        alice.select_option("#kind-1", "open")
        alice.click("#create-table")
        link = alice.input_value("#link-1")
        assert "#invitation=" in link and link.startswith(server_url + "/join/")
        alice.click("#created .copy")  # the copy button works (clipboard granted)
        assert alice.evaluate("() => navigator.clipboard.readText()") == link
        alice.click("#go-table")
        alice.wait_for_selector("#board svg")
        gid = alice.url.rsplit("/", 1)[1]
        assert "#" not in alice.url
        assert "Waiting for players" in alice.inner_text("#turn")

        bob.goto(link)
        bob.wait_for_selector("#join-name")
        assert "invitation" not in bob.url, "the code is wiped from the address bar"
        bob.fill("#join-name", "Bob")
        bob.click("#join-form button")
        bob.wait_for_selector("#board svg")
        assert "/play/" in bob.url and "token" not in bob.url
        alice.wait_for_function("() => document.body.dataset.status === 'active'")
        spectator.goto(f"{server_url}/play/{gid}")
        spectator.wait_for_selector("#board svg")
        assert "watching" in spectator.inner_text("#turn")

        # --- play the whole game through the UI ---------------------------------------------
        players = [alice, bob]
        moves, undone, board_clicked, keyed, refused, votes = 0, False, False, 0, 0, 0
        deadline = time.monotonic() + 240  # generous: CI machines may be busy
        while True:
            assert time.monotonic() < deadline, f"{game}: not over after {moves} moves"
            st = [state(p) for p in players]
            if st[0]["status"] == "finished" and st[1]["status"] == "finished":
                break
            if st[0]["version"] != st[1]["version"] or not (st[0]["acts"] or st[1]["acts"]):
                time.sleep(0.02)  # a screen is still catching up, or the worker is scoring
                continue
            i = 0 if st[0]["acts"] else 1
            me, other = players[i], players[1 - i]
            before = st[i]["version"]
            secret = st[0]["acts"] and st[1]["acts"] and "Vote" in first_action(me)
            if not board_clicked and me.locator(f"#board {board_item}").count():
                me.click(f"#board {board_item} >> nth=0")  # a move made on the board
                if me.locator("#show-all").count():  # several moves use it: pick from the list
                    me.click("#actions .act >> nth=0")
                board_clicked = True
            elif moves % 7 == 3:
                me.focus("#actions .act >> nth=0")  # a move made with the keyboard
                me.keyboard.press("Enter")
                keyed += 1
            else:
                me.click("#actions .act >> nth=0")
            me.wait_for_function(
                f"() => Number(document.body.dataset.version) > {before}", timeout=20_000
            )
            after = state(me)["version"]
            wait_version(other, after, at_least=True)  # the other seat's screen shows it, live
            moves += 1
            if secret:  # a simultaneous secret vote: committed, shown only to its voter
                votes += 1
                assert "your secret vote" in me.inner_text("#details")
                assert "your secret vote" not in other.inner_text("#details")
                mine = me.inner_text(".secret")
                assert "committed: " + NAMES[i] in other.inner_text("#board")
                assert mine not in other.inner_text("#details")
            if moves == MID_GAME[game]:
                other.wait_for_timeout(300)  # its legal moves listed
                other.screenshot(path=str(artifacts / f"{game}-midgame.png"), full_page=True)
            if not undone and moves >= 12 and state(me)["status"] == "active":
                # undo this move (nothing was revealed and nobody acted since, or it is
                # refused with its reason: then the notice says so and nothing changes)
                console.expect("/undo", 409)  # in case the rules refuse it
                me.click("#undo")
                me.wait_for_selector("#notice:not([hidden])")
                text = me.inner_text("#notice")
                if text.startswith("Undone"):
                    wait_version(me, before)
                    wait_version(other, before)
                    console.expected.remove(("/undo", 409))
                    undone = True
                else:
                    assert text.startswith("Undo refused"), text
                    refused += 1
        assert undone, "one undo was made"
        assert board_clicked and keyed
        assert votes or game != "lancaster", "Lancaster's secret votes were cast"

        final = state(alice)["version"]
        wait_version(spectator, final)
        for page in (alice, bob, spectator):
            page.wait_for_selector("#result:not([hidden])")
            assert "Winner" in page.inner_text("#result") or "Shared win" in page.inner_text(
                "#result"
            )
        assert "Your hand" not in spectator.inner_text("#details")
        alice.screenshot(path=str(artifacts / f"{game}-table.png"), full_page=True)
        bob.locator("#board").screenshot(path=str(artifacts / f"{game}-board.png"))

        # --- the replay viewer ---------------------------------------------------------------
        alice.click("a[href^='/replay/']")
        alice.wait_for_selector("#verdict")
        wait_version(alice, final)
        assert "verified" in alice.inner_text("#verdict")
        assert "undid" in alice.inner_text("#audit"), "the undo trail lists the undo"
        alice.click("#first")
        wait_version(alice, 1)
        assert "version=1" in alice.url, "the permalink follows the step"
        alice.keyboard.press("ArrowRight")
        wait_version(alice, 2)
        alice.click("#last")
        wait_version(alice, final)
        alice.select_option("#as", "seat:1")  # Bob's chair, once the game is over
        wait_version(alice, final)
        alice.screenshot(path=str(artifacts / f"{game}-replay.png"), full_page=True)
        bob.goto(f"{server_url}/replay/{gid}?version=1")  # a permalink opens at its version
        wait_version(bob, 1)
        secrets = [link.split("#invitation=")[1]]
        for page in (alice, bob):  # the seat and host tokens each browser holds
            secrets += page.evaluate(STORED_TOKENS_JS)
        assert len(secrets) == 4, secrets  # the code, Alice's seat and host, Bob's seat
        leaked = [u for u in SENT for t in secrets if t in u]
        assert SENT and not leaked, "a seat token or the invitation code left the fragment"
        assert console.errors == [], console.errors
    finally:
        for ctx in (ctx_a, ctx_b, ctx_s):
            ctx.close()
