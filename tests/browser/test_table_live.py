"""The live table as a person meets it (issue #34, part 1), in Chromium, against a server with
the service's default rate limits on (20 a second per token, 50 per address):

- a game of each game against a greedy bot, clicked at a person's pace (a click every 1-2 s):
  every version the bot appends is on the page within 1 s (the page stamps when it first drew
  each version; the log says when each event was appended; same machine clock), Kings and
  Castles past the end of a square (the bot's turn: a dozen appends within 50 ms), and no
  request of the page is ever refused for its rate (the page's request pattern is measured and
  printed: the busiest second per token and per address);
- a 429 with ``Retry-After`` is survived: the page tries again and catches up by itself;
- leaving a seat: a confirmation, then a spectator's page that still follows the table, the
  token forgotten; the host's "Start now" (confirmed) starts the table;
- resigning: a confirmation (Escape keeps playing), then no Undo and no Resign; another seat's
  undo, resignation and the start are announced on the other page, in words;
- your turn: the title and the icon say it, and a strip links your other games where it is
  your turn; a phone's move bar reaches the moves without scrolling, with 44 px targets.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from playwright.sync_api import Response

from chronicle_client.types import Event
from service.app import create_app
from service.http import limits
from tests.browser.conftest import Console
from tests.conftest import settings
from tests.support.client import Client
from tests.support.server import serving

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
VERSION_JS = "() => Number(document.body.dataset.version || 0)"
ENABLED_JS = "() => document.querySelectorAll('#actions .act:not([disabled])').length"


@pytest.fixture(scope="module")
def limited_url(redis_url: str) -> Iterator[str]:
    """The API with the defaults an installed service applies (rate limits and caps on)."""
    env = {
        "CHRONICLE_RATE_LIMIT": limits.DEFAULT_TOKEN_LIMIT,
        "CHRONICLE_RATE_LIMIT_ADDRESS": limits.DEFAULT_ADDRESS_LIMIT,
    }
    with mock.patch.dict(os.environ, env):
        app = create_app(settings(redis_url))
    with serving(app) as url:
        yield url


class Traffic:
    """Every request the pages of a context sent (time, token), and every refusal."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str]] = []
        self.refused: list[str] = []

    def watch(self, ctx: Any) -> None:
        def request(r: Any) -> None:  # every request counts per address, files too
            self.sent.append((time.monotonic(), r.headers.get("authorization", "")))

        def response(r: Any) -> None:
            if r.status == 429:
                try:
                    body = r.text()
                except Exception:
                    body = ""
                self.refused.append(f"{r.url} {body[:200]}")

        ctx.on("request", request)
        ctx.on("response", response)

    def busiest(self, token: bool) -> int:
        """The most requests in one fixed second (the limiter's windows), per token or all."""
        per = Counter(
            (int(t), auth if token else "")
            for t, auth in self.sent
            if auth or not token  # per token: only the requests that carry one
        )
        return max(per.values(), default=0)


def context(browser: Any, console: Console, name: str, **kw: Any) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=kw.pop("viewport", DESKTOP), **kw)
    return ctx, console.watch(ctx.new_page(), name)


def seat_link(base: str, gid: str, token: str, host: str | None = None) -> str:
    frag = f"token={token}" + (f"&host={host}" if host else "")
    return f"{base}/play/{gid}#{frag}"


def wait_version(page: Any, version: int, timeout: float = 10) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.version || 0) >= {version}",
                           timeout=timeout * 1000)  # fmt: skip


def ms(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000


def staleness(page: Any, events: list[Event], me: int) -> list[tuple[int, float]]:
    """For each event this seat did not make after the page opened: (version, ms from its
    append until the page first showed it or a later version)."""
    drawn = {int(v): t for v, t in page.evaluate("() => window.__drawnAt || {}").items()}
    opened = min(drawn.values())
    out = []
    for e in events:
        if e.get("seat") == me or ms(e["at"]) < opened:
            continue  # its own moves, and what came before the page was open
        later = [t for v, t in drawn.items() if v >= e["version"]]
        out.append((e["version"], (min(later) if later else float("inf")) - ms(e["at"])))
    return out


# ---- a game against a bot at a person's pace ------------------------------------------------
BOT_GAMES = [
    ("artus", {"rules": "basic"}, 30),
    ("kings-and-castles", {"length": "short"}, 40),
    ("lancaster", {}, 30),
]


@pytest.mark.parametrize(("game", "options", "most"), BOT_GAMES, ids=[g[0] for g in BOT_GAMES])
def test_a_game_against_a_bot_is_never_stale(
    browser: Any,
    console: Console,
    limited_url: str,
    worker: Any,
    artifacts: Path,
    game: str,
    options: dict[str, str],
    most: int,
) -> None:
    api = Client(limited_url)
    created = api.create(game, [{"name": "Ann"}, {"name": "Greedy", "bot": "greedy"}],
                         options=options)  # fmt: skip
    gid, token = created["id"], created["seats"][0]["token"]
    ctx, page = context(browser, console, "ann")
    traffic = Traffic()
    traffic.watch(ctx)
    rng = random.Random(34)
    try:
        page.goto(seat_link(limited_url, gid, token))
        page.wait_for_selector("#board svg")
        clicks, squares = 0, 0
        deadline = time.monotonic() + 240
        while clicks < most and time.monotonic() < deadline:
            if page.evaluate("() => document.body.dataset.status") != "active":
                break
            if game == "kings-and-castles" and squares >= 2 and clicks >= 12:
                break  # past the end of two squares: the bot's bursts were met
            try:
                page.wait_for_function(f"{ENABLED_JS} > 0", timeout=15_000)
            except Exception:
                break  # the game is over (scoring) or waits for the bot's last move
            page.wait_for_timeout(rng.uniform(1000, 1600))  # a person reads, then clicks
            if page.evaluate(ENABLED_JS):  # the tab's title says whose turn it is
                assert page.title().startswith("● Your turn"), page.title()
            shown = page.locator("#actions .act:not([disabled]):visible")  # the list may group
            n = shown.count()
            if not n:
                continue
            before = page.evaluate(VERSION_JS)
            shown.nth(rng.randrange(n)).click()
            page.wait_for_function(f"{VERSION_JS} > {before}", timeout=10_000)
            clicks += 1
            if game == "kings-and-castles":
                log = api.seat(token).events(gid, after=0, limit=1000)["events"]
                squares = sum(e["type"] == "TurnEnded" for e in log)
        page.wait_for_timeout(1500)  # the bot's reply to the last click
        events = api.seat(token).events(gid, after=0, limit=1000)["events"]
        delays = staleness(page, events, 0)
        late = [(v, round(d)) for v, d in delays if d > 1000]
        worst = max((d for _, d in delays), default=0)
        shown = page.evaluate(VERSION_JS)
        top = api.summary(gid)["version"]
        per_token, per_address = traffic.busiest(True), traffic.busiest(False)
        print(f"\n{game}: {clicks} clicks, versions 1-{top}, busiest second: "
              f"{per_token} requests for the seat's token, {per_address} for the address, "
              f"{len(traffic.sent)} requests in all; {len(delays)} bot versions, "
              f"the slowest on the page after {worst:.0f} ms")  # fmt: skip
        assert clicks >= 8, f"only {clicks} moves were played"
        if game == "kings-and-castles":
            assert squares >= 1, "the game never reached the end of a square"
        assert shown == top, f"the page shows {shown}, the log is at {top}"
        assert not late, f"versions shown later than 1 s after the bot appended them: {late}"
        assert not traffic.refused, f"the page was rate limited: {traffic.refused[:5]}"
        assert console.errors == [], console.errors
    finally:
        ctx.close()


# ---- a 429 is survived ---------------------------------------------------------------------
REFUSAL = json.dumps({"error": {"code": "rate_limited", "details": {"retry_after": 1},
                                "message": "rate limit exceeded (20 per 1 second)"}})  # fmt: skip


def test_the_page_catches_up_after_429s(
    browser: Any, console: Console, limited_url: str, worker: Any
) -> None:
    api = Client(limited_url)
    players = [{"name": "Ann"}, {"name": "Greedy", "bot": "greedy"}]
    created = api.create("kings-and-castles", players, options={"length": "short"})
    gid, token = created["id"], created["seats"][0]["token"]
    ctx, page = context(browser, console, "ann")
    refused = {"left": 0, "sent": 0}

    def limited(route: Any) -> None:
        if refused["left"] > 0:  # what the limiter answers over a limit
            refused["left"] -= 1
            refused["sent"] += 1
            console.expect("/view", 429)
            route.fulfill(status=429, headers={"Retry-After": "1"}, body=REFUSAL,
                          content_type="application/json")  # fmt: skip
        else:
            route.continue_()

    try:
        page.route("**/api/v1/games/*/view", limited)
        page.goto(seat_link(limited_url, gid, token))
        page.wait_for_selector("#board svg")
        for _ in range(4):  # each move answered by the bot; the page's reads refused 3 times
            page.wait_for_function(f"{ENABLED_JS} > 0", timeout=15_000)
            page.wait_for_timeout(1000)
            before = page.evaluate(VERSION_JS)
            refused["left"] = 3
            page.click("#actions .act:not([disabled]):visible >> nth=0")
            top = before + 1
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:  # the page reaches the log's version itself
                top = api.summary(gid)["version"]
                if page.evaluate(VERSION_JS) >= top and top > before:
                    break
                time.sleep(0.2)
            else:
                raise AssertionError(f"the page stayed at {page.evaluate(VERSION_JS)}, log {top}")
        assert refused["sent"] >= 9, refused
        assert page.evaluate("() => document.body.dataset.stale") == "no"
        assert console.errors == [], console.errors
    finally:
        ctx.close()


# ---- leave, start, resign, undo: confirmed, announced ----------------------------------------
def confirm(page: Any, button: str, choice: str) -> None:
    """Click ``button``, see the confirmation (focus on the safe choice), then ``choice``:
    "yes", "no", or "Escape"."""
    page.click(button)
    page.wait_for_selector("dialog.confirm[open]")
    assert page.evaluate("() => document.activeElement.id") == "confirm-no"
    if choice == "Escape":
        page.keyboard.press("Escape")
    else:
        page.click(f"#confirm-{choice}")
    page.wait_for_selector("dialog.confirm", state="detached")


def announced(page: Any, kind: str) -> None:
    """A change this page did not make is announced: a notice whose words are its log line's."""
    page.wait_for_function(
        "(kind) => { const n = document.querySelector('#notice');"
        " return !n.hidden && n.dataset.kinds && n.dataset.kinds.split(' ').includes(kind); }",
        arg=kind,
    )
    log = page.inner_text("#log")
    sentences = [p.strip() for p in page.inner_text("#notice").split(".") if p.strip()]
    assert sentences and all(p in log for p in sentences), (sentences, log[:300])


def says(page: Any, where: str, words: str) -> None:
    """Wait until the element ``where`` holds ``words``."""
    page.wait_for_function(
        "([where, words]) => document.querySelector(where).innerText.includes(words)",
        arg=[where, words],
    )


def test_leave_then_watch_and_the_host_starts(
    browser: Any, console: Console, limited_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(limited_url)
    created = api.create("artus", [{"name": "Alice"}, {"open": True}, {"open": True}],
                         options={"rules": "basic"})  # fmt: skip
    gid = created["id"]
    codes = {i["seat"]: i["code"] for i in created["invitations"]}
    bob = api.client.join(gid, "Bob", codes[1])
    ctx_a, alice = context(browser, console, "alice")
    ctx_b, bobs = context(browser, console, "bob")
    try:
        alice.goto(seat_link(limited_url, gid, created["seats"][0]["token"], created["host_token"]))
        bobs.goto(seat_link(limited_url, gid, bob["token"]))
        for p in (alice, bobs):
            p.wait_for_selector("#board svg")
        v0 = bobs.evaluate(VERSION_JS)
        confirm(bobs, "#leave", "no")  # cancelled: nothing happens
        assert bobs.evaluate(VERSION_JS) == v0 and bobs.is_visible("#leave")
        unauthorised: list[str] = []

        def note_401(r: Response) -> None:
            if r.status == 401:
                unauthorised.append(r.url)

        bobs.on("response", note_401)
        confirm(bobs, "#leave", "yes")
        says(bobs, "#turn", "watching")
        assert bobs.is_hidden("#leave")
        tokens = bobs.evaluate("() => localStorage.getItem('chronicle.v1')")
        assert bob["token"] not in tokens, "the page forgot the seat's token"
        announced(alice, "SeatLeft")
        # Bob's page is a spectator's now, and live: Carol takes the seat, the host starts
        api.client.join(gid, "Carol", codes[1])
        says(bobs, "#log", "Carol")
        assert alice.is_visible("#start")
        confirm(alice, "#start", "yes")
        for p in (alice, bobs):
            p.wait_for_function("() => document.body.dataset.status === 'active'")
        announced(bobs, "GameStarted")
        assert "Your turn" not in bobs.inner_text("#turn")
        assert unauthorised == [], unauthorised
        assert console.errors == [], console.errors
    finally:
        ctx_a.close()
        ctx_b.close()


def test_resign_undo_announced_and_your_turn_everywhere(
    browser: Any, console: Console, limited_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(limited_url)
    created = api.create("artus", [{"name": "Alice"}, {"name": "Bob"}],
                         options={"rules": "basic", "undo": "turn"})  # fmt: skip
    gid = created["id"]
    tok = {s["seat"]: s["token"] for s in created["seats"]}
    other = api.create("artus", [{"name": "Bob"}, {"name": "Greedy", "bot": "greedy"}],
                       options={"rules": "basic"})  # fmt: skip
    ctx_a, alice = context(browser, console, "alice")
    ctx_b, bob = context(browser, console, "bob")
    traffic = Traffic()
    traffic.watch(ctx_a)
    traffic.watch(ctx_b)
    try:
        # Bob's browser holds a seat at another table, where it is his turn
        bob.goto(seat_link(limited_url, other["id"], other["seats"][0]["token"]))
        bob.wait_for_function(f"{ENABLED_JS} > 0")
        alice.goto(seat_link(limited_url, gid, tok[0]))
        bob.goto(seat_link(limited_url, gid, tok[1]))
        for p in (alice, bob):
            p.wait_for_selector("#board svg")
        bob.wait_for_selector(f"#my-turns a[href='/play/{other['id']}']")
        pages = {0: alice, 1: bob}
        (first,) = api.summary(gid)["to_act"]
        me, them = pages[first], pages[1 - first]
        me.wait_for_function(f"{ENABLED_JS} > 0")
        assert me.title().startswith("● Your turn") and not them.title().startswith("●")
        assert me.get_attribute("#favicon", "href") == "/assets/icon-turn.svg"
        assert them.get_attribute("#favicon", "href") == "/assets/icon.svg"
        # a move, then its undo by the seat that made it: announced on the other page
        before = me.evaluate(VERSION_JS)
        me.click("#actions .act:not([disabled]):visible >> nth=0")
        wait_version(them, before + 1)
        console.expect("/undo", 409)  # in case the rules refuse it (then the test says so)
        me.click("#undo")
        me.wait_for_selector("#notice:not([hidden])")
        assert me.inner_text("#notice").startswith("Undone"), me.inner_text("#notice")
        console.expected.remove(("/undo", 409))
        name = ["Alice", "Bob"][first]
        them.wait_for_selector(".log li.undo-line")
        assert f"{name} took back their move" in them.inner_text(".log li.undo-line")
        assert f"{name} took back" in them.inner_text("#notice")
        assert them.evaluate(VERSION_JS) == before
        assert "took back" not in me.inner_text("#log"), "one's own undo is not announced"
        me.wait_for_function(f"{ENABLED_JS} > 0")
        assert me.title().startswith("● Your turn")
        # resign: confirmed (Escape keeps playing), then no button that can only fail
        bob.click("#resign")
        bob.wait_for_selector("dialog.confirm[open]")
        bob.screenshot(path=str(artifacts / "table-live-confirm.png"))
        bob.keyboard.press("Escape")  # keeps playing
        bob.wait_for_selector("dialog.confirm", state="detached")
        assert bob.is_visible("#resign")
        confirm(bob, "#resign", "yes")
        says(bob, "#turn", "A bot plays your seat")
        assert bob.is_hidden("#resign") and bob.is_hidden("#undo")
        assert bob.evaluate(ENABLED_JS) == 0
        announced(alice, "SeatResigned")
        assert not bob.title().startswith("●")
        busiest = traffic.busiest(True), traffic.busiest(False)
        print(f"\ntwo seats, three page loads: busiest second {busiest} (per token, address)")
        assert not traffic.refused, traffic.refused
        bob.screenshot(path=str(artifacts / "table-live-resigned.png"))
        alice.screenshot(path=str(artifacts / "table-live-desktop.png"))
        assert console.errors == [], console.errors
    finally:
        ctx_a.close()
        ctx_b.close()


# ---- the phone ---------------------------------------------------------------------------------
def test_the_phone_reaches_its_moves_without_scrolling(
    browser: Any, console: Console, limited_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(limited_url)
    created = api.create("artus", [{"name": "Ann"}, {"name": "Greedy", "bot": "greedy"}],
                         options={"rules": "basic"})  # fmt: skip
    ctx, page = context(browser, console, "phone", viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page.goto(seat_link(limited_url, created["id"], created["seats"][0]["token"]))
        page.wait_for_function(f"{ENABLED_JS} > 0", timeout=15_000)
        bar = page.locator("#phone-moves")
        says(page, "#phone-moves", "Your move (")
        box = bar.bounding_box()
        assert box and box["y"] + box["height"] <= PHONE["height"], "the bar is on the screen"
        assert page.evaluate("() => window.scrollY") == 0
        page.screenshot(path=str(artifacts / "table-live-phone.png"))
        bar.tap()
        page.wait_for_function(
            "() => { const b = document.querySelector('#actions .act').getBoundingClientRect();"
            " return b.top >= 0 && b.bottom <= innerHeight; }"
        )
        assert page.evaluate("() => document.activeElement.matches('#actions .act')")
        small = page.evaluate(
            """() => [...document.querySelectorAll(
                 '#act-panel button, .head-links button, .head-links a.button, #phone-bar button')]
               .filter((b) => b.offsetParent !== null)
               .map((b) => [b.textContent.trim().slice(0, 30), b.getBoundingClientRect().height])
               .filter(([, h]) => h < 44)"""
        )
        assert small == [], f"touch targets under 44 px: {small}"
        page.wait_for_timeout(600)  # the scroll ends
        page.screenshot(path=str(artifacts / "table-live-phone-moves.png"))
        before = page.evaluate(VERSION_JS)
        page.locator("#actions .act:not([disabled]):visible").first.tap()
        page.wait_for_function(f"{VERSION_JS} > {before}")
        assert console.errors == [], console.errors
    finally:
        ctx.close()
