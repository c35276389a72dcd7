"""No serious accessibility fault on any page: axe-core 4.14 (WCAG 2.0-2.2 A and AA, and best
practice; tests/browser/axe.py) run in Chromium over every kind of page, at several states of
each game, on a desktop (1280x800) and a phone (390x844) screen.  A serious or critical
violation fails the test, naming the rule, the node and axe's message.

Each game (2 seats, both driven through the API with legal moves chosen at random) is looked
at as a seat, on both screens, and as a spectator: in the opening position, after 10 moves,
mid-game and at the end with the result shown; its replay viewer at the first version, after 10
moves, mid-game and the end (everything revealed, then as a seat).  Apart: the lobby (with a
table just created), the join page of an open seat, the host's table waiting for players, each
game's rules page, and a confirmation dialog.  The pages speak one language (English), so
that is every language they offer.  Each page view's counts per rule (every impact) go to
tests/browser/artifacts/axe-<page>.json."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser import axe
from tests.browser.conftest import Console
from tests.support.client import Client

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
GAMES = [
    ("artus", {"rules": "basic"}),
    ("kings-and-castles", {"length": "short"}),
    ("lancaster", {}),
]
MIDDLE = {"artus": 34, "kings-and-castles": 78, "lancaster": 82}  # half of a whole game's log
VERSION_JS = "() => Number(document.body.dataset.version || 0)"


class Scan:
    """Runs axe over page views; keeps every serious line and each view's counts."""

    def __init__(self, artifacts: Path, name: str) -> None:
        self.lines: list[str] = []
        self.counts: dict[str, dict[str, int]] = {}
        self.minor: dict[str, list[str]] = {}  # the moderate and minor nodes, for the record
        self.file = artifacts / f"axe-{name}.json"

    def __call__(self, page: Any, what: str) -> None:
        found = axe.violations(page)
        self.counts[what] = axe.counts(found)
        self.lines += [f"[{what}] {line}" for line in axe.serious(found)]
        self.minor[what] = axe.serious(found, {"moderate", "minor"})

    def check(self) -> None:
        self.file.write_text(
            json.dumps({"counts": self.counts, "moderate and minor": self.minor}, indent=1)
        )
        assert not self.lines, f"{len(self.lines)} serious nodes:\n" + "\n".join(self.lines)


def play(api: Client, gid: str, tokens: list[str], until: int, rng: random.Random) -> int:
    """Legal moves at random, whoever is to act, until the log reaches version ``until`` or the
    game ends; the version reached.  Bounded by the version itself: each move adds one."""
    for _ in range(until + 5):
        s = api.summary(gid)
        if s["status"] != "active" or s["version"] >= until:
            return s["version"]
        seat = s["to_act"][0]
        listed = api.actions(gid, tokens[seat])
        if not listed["actions"]:
            continue  # the other seat's move is on its way
        api.seat(tokens[seat]).act(gid, rng.choice(listed["actions"]), listed["version"])
    return api.summary(gid)["version"]


def open_table(page: Any, url: str, version: int | None = None) -> None:
    page.goto(url)
    page.wait_for_selector("#board svg")
    if version is not None:
        page.wait_for_function(f"() => ({VERSION_JS})() >= {version}", timeout=20_000)
    page.wait_for_selector("#log li")


def focus_a_board_control(page: Any) -> None:
    """Tab onto a piece of the board a legal move uses, if the seat has one: it is a control
    (role=button) named with its visible text, and it shows its focus."""
    controls = page.locator("#board [data-key][role=button], #details [data-key][role=button]")
    if not controls.count():
        return
    controls.first.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate(
        "() => document.activeElement.matches('[data-key][role=button]')"
        " && document.activeElement.matches(':focus-visible')"
        " && !!document.activeElement.getAttribute('aria-label')"
    )


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_every_page_of_a_game_at_every_stage(
    browser: Any,
    console: Console,
    server_url: str,
    worker: Any,
    artifacts: Path,
    game: str,
    options: dict[str, str],
) -> None:
    api = Client(server_url)
    created = api.create(game, [{"name": "Alice"}, {"name": "Bob"}], options=options, seed="a11y")
    gid = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    rng = random.Random(f"a11y-{game}")
    scan = Scan(artifacts, game)
    contexts = {
        "desktop": browser.new_context(viewport=DESKTOP),
        "phone": browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
        "spectator": browser.new_context(viewport=DESKTOP),
    }
    pages = {k: console.watch(c.new_page(), k) for k, c in contexts.items()}
    try:
        # each seat's page remembers its token (the fragment), so later visits need none
        for screen in ("desktop", "phone"):
            pages[screen].goto(f"{server_url}/play/{gid}#token={tokens[1]}")
            pages[screen].goto(f"{server_url}/play/{gid}#token={tokens[0]}")
        stages = {"opening": 1, "after 10 moves": 11, "mid-game": MIDDLE[game], "end": 10**6}
        versions = {}
        for stage, target in stages.items():
            version = play(api, gid, tokens, target, rng)
            if stage == "end":
                version = api.wait_status(gid, "finished")["version"]
            versions[stage] = version
            # as the seat to act (the board's legal pieces are controls then), on both screens
            to_act = api.summary(gid)["to_act"]
            seat = to_act[0] if to_act else 0
            for screen in ("desktop", "phone"):
                page = pages[screen]
                page.goto(f"{server_url}/play/{gid}#token={tokens[seat]}")
                open_table(page, f"{server_url}/play/{gid}", version)
                scan(page, f"{stage}, seat {seat + 1}, {screen}")
                if stage == "after 10 moves":
                    focus_a_board_control(page)
                    page.screenshot(path=str(artifacts / f"a11y-{game}-{screen}.png"))
            open_table(pages["spectator"], f"{server_url}/play/{gid}", version)
            scan(pages["spectator"], f"{stage}, spectator")
        assert api.summary(gid)["status"] == "finished"
        page = pages["desktop"]
        assert "Game over" in page.inner_text("#turn")
        for stage, version in versions.items():
            page.goto(f"{server_url}/replay/{gid}?version={version}")
            page.wait_for_selector("#board svg")
            page.wait_for_selector("#verdict")
            scan(page, f"replay, {stage}")
        page.select_option("#as", "seat:1")
        page.wait_for_function("() => location.search.includes('as=seat')")
        page.wait_for_selector("#board svg")
        scan(page, "replay as a seat")
        phone = pages["phone"]
        phone.goto(f"{server_url}/replay/{gid}?version={versions['mid-game']}")
        phone.wait_for_selector("#verdict")
        scan(phone, "replay, mid-game, phone")
        assert console.errors == [], console.errors
    finally:
        for c in contexts.values():
            c.close()
    scan.check()


def test_lobby_join_page_waiting_table_rules_and_dialog(
    browser: Any, console: Console, server_url: str, worker: Any, artifacts: Path
) -> None:
    scan = Scan(artifacts, "pages")
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        ctx = browser.new_context(viewport=viewport)
        host = console.watch(ctx.new_page(), f"host {name}")
        guest_ctx = browser.new_context(viewport=viewport)
        guest = console.watch(guest_ctx.new_page(), f"guest {name}")
        try:
            host.goto(server_url + "/")
            host.wait_for_selector("#create-table")
            scan(host, f"lobby, {name}")
            host.select_option("#game", "lancaster")
            host.fill("#name-0", "Alice")
            host.select_option("#kind-1", "open")
            host.click("#create-table")
            link = host.input_value("#link-1")
            scan(host, f"lobby with a table created, {name}")
            host.click("#go-table")
            host.wait_for_selector("#board svg")
            host.wait_for_function("() => document.body.dataset.status === 'waiting'")
            scan(host, f"table waiting for players, host, {name}")
            guest.goto(link)
            guest.wait_for_selector("#join-name")
            scan(guest, f"join page, {name}")
            guest.fill("#join-name", "Bob")
            guest.click("#join-form button")
            guest.wait_for_selector("#board svg")
            host.wait_for_function("() => document.body.dataset.status === 'active'")
            if host.locator("#resign").is_visible():
                host.click("#resign")
                host.wait_for_selector("dialog.confirm[open]")
                scan(host, f"confirmation dialog, {name}")
                host.keyboard.press("Escape")
            host.goto(server_url + "/")
            host.wait_for_selector("#create-table")
            host.wait_for_function(
                "() => document.querySelector('#app').innerText.includes('Alice')"
            )
            scan(host, f"lobby with my games, {name}")
            for game, _ in GAMES:
                host.goto(f"{server_url}/rules/{game}")
                host.wait_for_selector("h1")
                scan(host, f"rules of {game}, {name}")
            assert console.errors == [], console.errors
        finally:
            ctx.close()
            guest_ctx.close()
    scan.check()


def test_the_palette_reaches_4_5_to_1() -> None:
    """Every counter, card and swatch colour with the letter drawn on it (the renderers' and
    the style sheet's pairs) reaches WCAG AA's 4.5:1 for normal-size text."""
    static = Path(__file__).resolve().parents[2] / "service" / "web" / "static"
    pairs: list[tuple[str, str, str]] = []
    for name in ("artus.js", "kings_and_castles.js", "lancaster.js"):
        text = (static / name).read_text(encoding="utf-8")
        found = re.finditer(r'fill: "(#[0-9a-fA-F]{3,6})", text: "(#[0-9a-fA-F]{3,6})"', text)
        pairs.extend((name, m.group(1), m.group(2)) for m in found)
    assert pairs, "no palette found in the renderers"
    low = [(f, a, b, round(axe.contrast(a, b), 2)) for f, a, b in pairs if axe.contrast(a, b) < 4.5]
    assert not low, low
    # the function itself, on the figures: white on the old green, pink and teal
    assert [round(axe.contrast(c, "#fff"), 1) for c in ("#2f8f4e", "#d35d9e", "#1b9e9e")] == [
        4.1,
        3.6,
        3.3,
    ]
