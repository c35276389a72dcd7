"""The text view for screen readers (issue 43): a short game of each game played through the
accessibility tree only, in Chromium, never touching the board.

- a game of each (Artus basic, Kings and Castles short, Lancaster with 2 players) against a
  greedy bot, opened with ``?reader=1``: the board is out of the page and of the accessibility
  tree; each move is found by its role and name in the list of legal moves (the same moves as
  ``GET .../actions``), focused and pressed with Enter, at a person's pace, 15 of them; the
  find box narrows a long list to the words typed; the live region (a ``log``) says every
  event in words: the seat's own moves, each bot move, your turn; the structured text (regions
  named by headings, lists, tables) holds the hand and the scores as the API's view says; at
  the end the seat resigns with the keyboard and the live region says the game is over, the
  scores table holds the result;
- the toggle, the skip link at the top of the page and the memory of the choice; another
  seat's move and its undo said in words (two people, the other one through the API).
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from chronicle_client.types import Actions
from tests.browser.axe import serious, violations
from tests.browser.conftest import Console
from tests.support.client import Client

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PACE = 1.2  # seconds between a person's key presses
MOVES = 15  # the seat's own moves in each game
# what a player must never hear: an internal id ("yellow-k1"), a snake_case name, raw JSON
ID_LIKE = re.compile(r"\b[a-z]+-[a-z]*\d[a-z0-9]*\b|_|[{}]")

GAMES = [
    ("artus", {"rules": "basic"}, DESKTOP),
    ("kings-and-castles", {"length": "short"}, PHONE),
    ("lancaster", {}, DESKTOP),
]


def open_page(
    browser: Any, console: Console, name: str, viewport: dict[str, int]
) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=viewport)
    return ctx, console.watch(ctx.new_page(), name)


def version(page: Any) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.version || 0)"))


def moves_region(page: Any) -> Any:
    return page.get_by_role("region", name=re.compile(r"^Your moves"))


def said(page: Any) -> Any:
    return page.get_by_role("log", name="Just now")


def said_at(page: Any, v: int) -> str:
    """The live region's words for the event of version ``v`` ("" if it said nothing within
    a few seconds: the API may tell the test of an event a moment before the page hears it)."""
    line = said(page).locator(f"li[data-version='{v}'][data-kind='event']").first
    try:
        line.wait_for(timeout=5_000)
    except PlaywrightTimeout:
        return ""
    return str(line.inner_text())


def turn_said_since(page: Any, v: int) -> Any:
    """The live region's last "Your turn" line, once it is one said at version ``v`` or later
    (within a few seconds: the page says it when it has drawn the version the event made)."""
    with contextlib.suppress(PlaywrightTimeout):  # the assertions then say what the page said
        page.wait_for_function(
            "(v) => { const all = document.querySelectorAll(\"#reader-said li[data-kind='turn']\");"
            " const t = all[all.length - 1]; return !!t && Number(t.dataset.version) >= v; }",
            arg=v,
            timeout=5_000,
        )
    return said(page).locator("li[data-kind='turn']").last


def my_turn(page: Any, api: Client, gid: str, token: str, deadline: float) -> Actions | None:
    """Wait until the seat may act and the page shows that version; the API's legal moves, or
    None once the game is over."""
    while time.monotonic() < deadline:
        listed = api.actions(gid, token)
        if not listed["actions"]:
            if api.summary(gid)["status"] != "active":
                return None
            time.sleep(0.2)
            continue
        try:
            page.wait_for_function(
                f"() => Number(document.body.dataset.version || 0) >= {listed['version']}",
                timeout=10_000,
            )
        except Exception:
            continue
        if version(page) != listed["version"]:
            continue  # the game moved on meanwhile
        buttons = moves_region(page).get_by_role("button")
        try:
            expect(buttons).to_have_count(len(listed["actions"]), timeout=5_000)
        except AssertionError:
            if version(page) == api.actions(gid, token)["version"]:
                raise
            continue
        return listed
    raise AssertionError("the seat's turn did not come")


def region(page: Any, name: str) -> Any:
    return page.get_by_role("region", name=re.compile(name))


def row_cells(table_region: Any, name: str) -> list[str]:
    row = table_region.get_by_role("row", name=re.compile("^" + re.escape(name)))
    expect(row).to_have_count(1)
    return [c.strip() for c in row.get_by_role("cell").all_inner_texts()]


def aria_list(items: list[str]) -> str:
    lines = ["- list:", "  - /children: equal"]
    lines += [f'  - listitem: "{x}"' for x in items]
    return "\n".join(lines)


def check_state(page: Any, game: str, view: Mapping[str, Any], names: dict[int, str]) -> None:
    """The structured text holds the seat's hand and everyone's scores as the view says."""
    s = view["state"]
    if game == "artus":
        own = s["colours"][0]
        hand = page.evaluate(
            "async (ids) => { const m = await import('/assets/artus.js');"
            " return ids.map(m.cardName); }",
            s["hand"],
        )
        hand = [
            h + ("" if cid.split("/")[0] == own else f" ({cid.split('/')[0]})")
            for h, cid in zip(hand, s["hand"], strict=True)
        ]
        you = region(page, r"^Your hand \(")
        expect(you.get_by_role("heading", level=3)).to_have_text(f"Your hand ({len(s['hand'])})")
        if hand:
            expect(you).to_match_aria_snapshot(aria_list(hand))
        scores = region(page, "^Scores")
        for seat, who in names.items():
            cells = row_cells(scores, who)
            assert cells[1] == str(s["scores"][seat]), (who, cells, s["scores"])
            assert cells[2] == str(s["hand_sizes"][seat]), (who, cells, s["hand_sizes"])
    elif game == "kings-and-castles":
        army = page.evaluate(
            "async ([st]) => { const m = await import('/assets/kings_and_castles.js');"
            " return st.your_colours.map((col) => [col, (st.armies[col] || []).map((id) => {"
            " const n = m.counter(id).name; return n[0].toUpperCase() + n.slice(1); })]); }",
            [s],
        )
        for col, items in army:
            part = region(page, f"^{col.capitalize()}: army of {len(items)}, household of")
            if items:
                expect(part).to_match_aria_snapshot(aria_list(items))
        scores = region(page, "^Money and colours")
        for col, seat in s["seats"].items():
            cells = row_cells(scores, col)
            if col in s["your_colours"]:
                assert cells[1] == f"{s['money'][col]} (exact)", (col, cells)
            else:
                assert cells[1] == f"ends in {s['money_digit'][col]} (last digit)", (col, cells)
            assert cells[2] == str(s["tax_markers"][col]), (col, cells)
            assert cells[0].startswith(names[seat]), (col, cells)
    else:
        me = next(p for p in s["players"] if p["seat"] == 0)
        screen = region(page, "^Your screen and knights")
        expect(screen.get_by_role("listitem").first).to_have_text(
            f"Behind your screen: {me['gold']} gold and {me['squires']} squires."
        )
        expect(screen.get_by_role("listitem").nth(1)).to_have_text(
            f"Vote markers: {me['markers']}."
        )
        scores = region(page, "^Scores: power")
        for p in s["players"]:
            cells = row_cells(scores, names[p["seat"]])
            assert cells[1:5] == [
                str(p["power"]),
                str(p["markers"]),
                str(p["gold"]),
                str(p["squires"]),
            ], (p, cells)


def pick_move(page: Any, names: list[str], rng: random.Random) -> tuple[str, bool]:
    """A person's choice: a move of the list, found through the box when the list is long.
    Returns the move's name and whether the box was used."""
    choice = rng.choice(names)
    box = page.get_by_role("searchbox", name="Find a move")
    if not box.is_visible():
        return choice, False
    # the rarest word of the chosen move: what a person would type to find it
    words = re.findall(r"[A-Za-z]{4,}", choice)
    word = min(words, key=lambda w: sum(w.lower() in n.lower() for n in names)) if words else ""
    if not word:
        return choice, False
    box.focus()
    box.press_sequentially(word, delay=60)
    want = [n for n in names if all(w in n.lower() for w in word.lower().split())]
    shown = moves_region(page).get_by_role("button")
    expect(shown).to_have_count(len(want))
    assert sorted(shown.all_inner_texts()) == sorted(want)
    expect(page.get_by_role("status").filter(has_text="moves match")).to_have_text(
        f"{len(want)} of {len(names)} moves match."
    )
    return choice, True


@pytest.mark.parametrize(("game", "options", "viewport"), GAMES, ids=[g[0] for g in GAMES])
def test_a_short_game_played_in_the_text_view(
    browser: Any,
    console: Console,
    server_url: str,
    worker: Any,
    artifacts: Path,
    game: str,
    options: dict[str, Any],
    viewport: dict[str, int],
) -> None:
    api = Client(server_url)
    created = api.create(
        game, [{"name": "Alice"}, {"name": "Bot", "bot": "greedy"}], options=options
    )
    gid, token = created["id"], created["seats"][0]["token"]
    names = {0: "Alice (you)", 1: "Bot (greedy)"}
    rng = random.Random(gid)
    ctx, page = open_page(browser, console, "alice", viewport)
    try:
        page.goto(f"{server_url}/play/{gid}?reader=1#token={token}")
        toggle = page.get_by_role("button", name="Text view for screen readers")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        expect(page.get_by_role("heading", name="The game in words", level=2)).to_be_visible()
        expect(page.get_by_role("region", name="The game in words")).to_be_visible()
        # the board is out of the way: not drawn on screen, not in the accessibility tree
        expect(page.locator("#board")).to_be_hidden()
        expect(page.locator("#app").get_by_role("img")).to_have_count(0)
        assert "Your move" not in page.locator("#actions").aria_snapshot()
        deadline = time.monotonic() + 300
        mine = 0
        found = False
        # the page has drawn the table: what it holds from before it opened is not said
        page.wait_for_function("() => Number(document.body.dataset.version || 0) > 0")
        last_seen = version(page)
        while mine < MOVES:
            listed = my_turn(page, api, gid, token, deadline)
            if listed is None:
                break
            v0 = listed["version"]
            # every event since the last look: the bot's moves said in words, by name
            events = api.get(f"/api/v1/games/{gid}/events", token, after=last_seen).json()["events"]
            for e in events:
                if e.get("seat") == 1:
                    words = said_at(page, e["version"])
                    assert words.startswith("Bot (greedy)"), (e, words)
                    assert not ID_LIKE.search(words), words
            bot = [e for e in events if e.get("seat") == 1]
            if bot and mine:  # then the turn came back: said too
                turn = turn_said_since(page, bot[-1]["version"])
                expect(turn).to_have_text(re.compile(r"^Your turn: \d+ legal moves?\.$"))
                assert int(turn.get_attribute("data-version") or 0) >= bot[-1]["version"]
            check_state(page, game, api.view(gid, token), names)
            box = page.get_by_role("searchbox", name="Find a move")
            if box.is_visible() and box.input_value():
                box.fill("")
            buttons = moves_region(page).get_by_role("button")
            labels = buttons.all_inner_texts()
            assert len(labels) == len(listed["actions"])
            for label in labels:
                assert not ID_LIKE.search(label), label
            choice, used = pick_move(page, labels, rng)
            found = found or used
            time.sleep(PACE)
            button = moves_region(page).get_by_role("button", name=choice, exact=True).first
            button.focus()
            page.keyboard.press("Enter")
            page.wait_for_function(f"() => Number(document.body.dataset.version || 0) > {v0}")
            # the focus waits on the list's heading, ready for the next move
            expect(page.locator("#reader-moves-h")).to_be_focused()
            ours = [
                e
                for e in api.get(f"/api/v1/games/{gid}/events", token, after=v0).json()["events"]
                if e.get("seat") == 0
            ]
            assert ours, "the move was sent"
            expect(
                said(page).locator(f"li[data-version='{ours[0]['version']}'][data-kind='event']")
            ).to_contain_text("Alice")
            last_seen = ours[-1]["version"]
            mine += 1
            if mine == 3:
                page.screenshot(path=str(artifacts / f"reader-{game}.png"))
            if mine in (1, 8):  # axe over the whole page in the text view, along the game
                assert serious(violations(page)) == [], (game, mine)
            time.sleep(PACE)
        assert mine >= 5, f"only {mine} moves"
        if game == "kings-and-castles":
            assert found, "the box found a move in the long lists"
        # the end: resign with the keyboard; the bot finishes; the end is said, the scores hold
        resign = page.get_by_role("button", name="Resign (a bot takes over)")
        resign.focus()
        page.keyboard.press("Enter")
        sure = page.get_by_role("dialog").get_by_role("button", name="Resign", exact=True)
        sure.focus()
        page.keyboard.press("Enter")
        api.wait_status(gid, "finished", timeout=120)
        expect(said(page).locator("li").last).to_contain_text("The game is over", timeout=15_000)
        result = api.view(gid, token)["result"]
        after = {0: "Alice", 1: "Bot (greedy)"}  # Alice's seat is a bot's now: "Alice (a ... bot)"
        for w in result["winners"]:
            expect(page.locator("#reader-turn-p")).to_contain_text(after[int(w)])
        final = {"artus": "^Scores", "lancaster": "^Scores: final points"}.get(game)
        if final:
            scores = region(page, final)
            for seat, who in after.items():
                row = scores.get_by_role("row", name=re.compile("^" + re.escape(who)))
                points = str(result["scores"][str(seat)])
                expect(row.get_by_role("cell").nth(1)).to_have_text(re.compile(f"^{points}\\b"))
        else:
            scores = region(page, "^Scores: final money")
            for col, money in result["details"]["money_by_colour"].items():
                row = scores.get_by_role("row", name=re.compile(f"^{col} "))
                total = result["scores"][str(api.view(gid)["state"]["seats"][col])]
                expect(row.get_by_role("cell").nth(1)).to_have_text(f"{money} ({total})")
        assert serious(violations(page)) == [], (game, "over")
        page.screenshot(path=str(artifacts / f"reader-{game}-over.png"))
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_the_toggle_the_skip_link_and_another_seats_undo(
    browser: Any, console: Console, server_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(server_url)
    created = api.create("artus", [{"name": "Alice"}, {"name": "Bob"}], options={"rules": "basic"})
    gid = created["id"]
    alice, bob = created["seats"][0]["token"], created["seats"][1]["token"]
    ctx, page = open_page(browser, console, "alice", DESKTOP)
    try:
        # off by default: the board is there; the skip link is the first stop of the keyboard
        page.goto(f"{server_url}/play/{gid}#token={alice}")
        page.wait_for_selector("#board svg")
        toggle = page.get_by_role("button", name="Text view for screen readers")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#reader")).to_be_hidden()
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Text view for screen readers")
        expect(skip).to_be_focused()
        expect(skip).to_be_in_viewport()
        time.sleep(PACE)
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="The game in words")).to_be_focused()
        expect(page.locator("#board")).to_be_hidden()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        # one voice: the log and the turn line are quiet while the text view speaks
        assert page.get_attribute("#log", "aria-live") == "off"
        # the toggle by the keyboard: off, and remembered in this browser
        time.sleep(PACE)
        toggle.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#board")).to_be_visible()
        expect(page.locator("#reader")).to_be_hidden()
        assert page.get_attribute("#log", "aria-live") == "polite"
        page.reload()
        page.wait_for_selector("#board svg")
        expect(page.locator("#reader")).to_be_hidden()
        toggle = page.get_by_role("button", name="Text view for screen readers")
        time.sleep(PACE)
        toggle.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="The game in words")).to_be_focused()
        page.reload()
        expect(page.get_by_role("region", name="The game in words")).to_be_visible()
        expect(page.locator("#board")).to_be_hidden()

        # two people: Bob moves through the API; Alice hears it, and hears it taken back
        deadline = time.monotonic() + 60
        heard_move = heard_undo = False
        while not heard_undo:
            assert time.monotonic() < deadline, "no undo heard"
            v = api.view(gid, bob)
            if 1 in v["to_act"]:
                listed = api.actions(gid, bob)
                r = api.act(gid, bob, listed["actions"][0], listed["version"])
                assert r.status_code == 201, r.text
                moved = r.json()["version"]
                expect(
                    said(page).locator(f"li[data-version='{moved}'][data-kind='event']")
                ).to_contain_text("Bob")
                heard_move = True
                time.sleep(PACE)
                u = api.post(f"/api/v1/games/{gid}/undo", {}, bob)
                assert u.status_code == 200, u.text
                back = u.json()["version"]
                expect(said(page).locator("li[data-kind='undo']").last).to_have_text(
                    f"Taken back: the game is back at version {back}."
                )
                heard_undo = True
            else:
                alices = my_turn(page, api, gid, alice, deadline)
                assert alices is not None
                button = moves_region(page).get_by_role("button").first
                time.sleep(PACE)
                button.focus()
                page.keyboard.press("Enter")
                page.wait_for_function(
                    f"() => Number(document.body.dataset.version || 0) > {alices['version']}"
                )
        assert heard_move
        expect(said(page)).to_match_aria_snapshot(
            '- log "Just now":\n  - list:\n    - listitem: /Taken back/'
        )
        page.screenshot(path=str(artifacts / "reader-undo.png"))
        assert console.errors == [], console.errors
    finally:
        ctx.close()
