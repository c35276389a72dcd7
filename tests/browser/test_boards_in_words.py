"""Boards and words (issue 34): the finish in words (one result table by the game's own
scoring categories, the same numbers on every panel), the log in words (no internal id
anywhere a player reads, on the table and in the replay), Kings and Castles board first
(a territory, then its units, then confirm), the last move marked on the board and animated
(not under reduced motion), the Artus hand above the fold at 1280x800, and Artus seats of at
least 44 px on a phone.  Moves are made at a person's pace (a click every 1-2 s)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Console
from tests.support.client import Client

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PACE = 1.2  # seconds between a person's clicks

# what a player must never read: an internal id ("yellow-k1", "blue-men_at_arms-3"), a
# snake_case name ("noble_removed"), empty parentheses ("( cards)"), raw JSON
ID_LIKE = re.compile(r"\b[a-z]+-[a-z0-9]+\b|_|\(\s*\)|\(\s+\w|[{}]")

SHORT = {
    "artus": {"rules": "basic"},
    "kings-and-castles": {"length": "short"},
    "lancaster": {},
}


def id_like(text: str) -> list[str]:
    return sorted({m.group(0) for m in ID_LIKE.finditer(text)})


def page_in(browser: Any, console: Console, name: str, **options: Any) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=options.pop("viewport", DESKTOP), **options)
    return ctx, console.watch(ctx.new_page(), name)


def version(page: Any) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.version || 0)"))


def wait_mine(page: Any, timeout: float = 30) -> None:
    page.wait_for_selector("#actions .act:not([disabled]), #compose-send", timeout=timeout * 1000)


# ---- the finish in words and the log in words, after a whole bot game of each ---------------
@pytest.mark.parametrize("game", sorted(SHORT))
def test_the_finish_and_the_log_in_words(
    browser: Any,
    console: Console,
    server_url: str,
    worker: Any,
    artifacts: Path,
    game: str,
) -> None:
    api = Client(server_url)
    created = api.create(
        game,
        [{"name": "Bot", "bot": "random"}, {"name": "Rosa", "bot": "random"}],
        options=SHORT[game],
    )
    gid = created["id"]
    api.wait_status(gid, "finished", timeout=240)
    result = api.view(gid)["result"]
    assert result is not None
    ctx, page = page_in(browser, console, "spectator")
    try:
        page.goto(f"{server_url}/play/{gid}")
        page.wait_for_selector("#result table")
        page.screenshot(path=str(artifacts / f"result-{game}.png"), full_page=True)
        # one table, the players by rank, each number under a labelled column
        heads = page.eval_on_selector_all("#result thead th", "els => els.map(e => e.innerText)")
        assert heads[:2] == ["Rank", "Player"] and len(heads) >= 3, heads
        rows = page.eval_on_selector_all(
            "#result tbody tr",
            "els => els.map(r => ({seat: Number(r.dataset.seat),"
            " total: r.querySelector('td.total').innerText,"
            " cells: [...r.querySelectorAll('td')].map(td => td.dataset.label || '')}))",
        )
        assert [r["seat"] for r in rows] == result["ranking"]
        for r in rows:
            assert int(r["total"]) == result["scores"][str(r["seat"])]
            assert all(r["cells"][1:]), "every number is labelled by its column"
        # the players' panel says the same totals
        for seat, score in result["scores"].items():
            shown = page.inner_text(f"#players .score[data-seat='{seat}'] b")
            assert int(shown) == score, (seat, shown, score)
        if game == "lancaster":  # the categories of LA-3, as the result holds them
            for r in rows:
                d = result["details"][str(r["seat"])]
                text = page.inner_text(f"#result tbody tr[data-seat='{r['seat']}']")
                assert str(d["power_in_play"]) in text
                assert f"{d['knight_strength']} → {d['knight_strength_points']}" in text
            panel = page.inner_text("#details")
            assert "final points" in panel
        if game == "kings-and-castles":
            money = result["details"]["money_by_colour"]
            text = page.inner_text("#result")
            assert all(f"{col} {m}" in text for col, m in money.items()), text
        # the log in words: no id on the table's log, result, players or panels
        page.wait_for_function(
            f"() => document.querySelectorAll('#log li').length >= {min(result and 3, 3)}"
        )
        for where in ["#log", "#result", "#players", "#details", "#turn"]:
            bad = id_like(page.inner_text(where))
            assert not bad, f"{game} {where}: {bad}"
        assert "(bot random)" not in page.inner_text("#players")
        assert "Bot (random)" in page.inner_text("#players")
        # ... nor in the replay's log and its steps
        page.goto(f"{server_url}/replay/{gid}?version=2")
        page.wait_for_selector("#log li")
        page.wait_for_function("() => document.body.dataset.version === '2'")
        for where in ["#log", "#step-event", "#step-phase", "#details"]:
            bad = id_like(page.inner_text(where))
            assert not bad, f"replay {game} {where}: {bad}"
        assert console.errors == [], console.errors
    finally:
        ctx.close()


# ---- Kings and Castles board first ---------------------------------------------------------
def test_kings_and_castles_board_first(
    browser: Any, console: Console, server_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(server_url)
    created = api.create(
        "kings-and-castles",
        [{"name": "Alice"}, {"name": "Bot", "bot": "random"}],
        options={"length": "short"},
    )
    gid = created["id"]
    token = created["seats"][0]["token"]
    ctx, page = page_in(browser, console, "alice")
    try:
        page.goto(f"{server_url}/play/{gid}#token={token}")
        page.wait_for_selector("#board svg")
        target = None
        deadline = time.monotonic() + 180
        while target is None:
            assert time.monotonic() < deadline, "no attack with two units came"
            wait_mine(page, 60)
            listed = api.actions(gid, token)
            if version(page) != listed["version"]:
                time.sleep(0.1)
                continue
            attacks = [a for a in listed["actions"] if a["type"] == "attack"]
            multi = [a for a in attacks if len(a["counters"]) >= 2]
            if multi:
                target = multi[0]
                n_actions = len(listed["actions"])
                break
            before = version(page)
            page.click("#actions .act >> nth=0")  # a person's first listed move
            page.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")
            time.sleep(PACE)

        # the full list stays: grouped by kind, collapsed groups with counts, every move there
        assert page.locator("#actions details.act-group").count() >= 1
        assert page.locator("#actions .act").count() == n_actions
        summary = page.inner_text("#actions details.act-group >> nth=0 >> summary")
        assert re.search(r"\(\d+\)", summary), summary
        # (the text of every group, collapsed ones too: innerText leaves out a closed
        # <details>, and the group holding the attack with two units may be closed)
        listed_text = page.locator("#actions").text_content() or ""
        assert "with" in listed_text and " + " in listed_text
        # the unit codes are explained where they appear (names in the list, a legend)
        assert "men at arms" in page.inner_text("#details") or "knight" in page.inner_text(
            "#details"
        )

        # 1. the territory on the map
        page.click(f"#board [data-key='terr:{target['target']}']")
        page.wait_for_selector(".compose .unit")
        assert page.is_disabled("#compose-send"), "nothing to confirm before the units"
        time.sleep(PACE)
        # 2. the units, one click each: from the army on the board for the first, then here
        first = target["counters"][0]
        board_unit = page.locator(f"#details [data-key='ctr:{first}'].legal")
        if board_unit.count():
            board_unit.first.click()
        else:
            page.click(f".compose .unit[data-part='ctr:{first}']")
        page.wait_for_selector(f".compose .unit[data-part='ctr:{first}'][aria-pressed='true']")
        for unit in target["counters"][1:]:
            time.sleep(PACE)
            page.click(f".compose .unit[data-part='ctr:{unit}']")
        page.wait_for_selector("#compose-send:not([disabled])")
        confirm = page.inner_text("#compose-send")
        assert confirm.startswith("Confirm: Attack " + target["target"]), confirm
        page.screenshot(path=str(artifacts / "kc-board-first.png"))
        time.sleep(PACE)
        # 3. confirm: the move sent is exactly the one put together
        before = version(page)
        page.click("#compose-send")
        page.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")
        events = api.get(f"/api/v1/games/{gid}/events", token, after=before).json()["events"]
        taken = [e for e in events if e["type"] == "TerritoryCaptured"]
        assert taken and taken[0]["data"]["target"] == target["target"]
        assert sorted(taken[0]["data"]["counters"]) == sorted(target["counters"])
        # the last move marked on the map, the unit that stayed animated in
        page.wait_for_selector("#board .t.last")
        if version(page) == taken[0]["version"]:
            assert page.locator("#board .t.last [data-key]").first.get_attribute("data-key") == (
                f"terr:{target['target']}"
            )
            anim = page.evaluate(
                "() => getComputedStyle(document.querySelector('#board .moved')).animationName"
            )
            assert anim == "chr-land"
        assert console.errors == [], console.errors
    finally:
        ctx.close()


# ---- Artus: the hand above the fold, the last move without motion, seats on a phone ---------
def test_artus_hand_last_move_reduced_motion_and_phone_seats(
    browser: Any, console: Console, server_url: str, worker: Any, artifacts: Path
) -> None:
    api = Client(server_url)
    created = api.create(
        "artus", [{"name": "Alice"}, {"name": "Bot", "bot": "random"}], options={"rules": "basic"}
    )
    gid = created["id"]
    token = created["seats"][0]["token"]
    ctx, page = page_in(browser, console, "alice", reduced_motion="reduce")
    ctx_s, watcher = page_in(browser, console, "spectator")
    ctx_p, phone = page_in(
        browser, console, "phone", viewport=PHONE, is_mobile=True, has_touch=True
    )
    try:
        page.goto(f"{server_url}/play/{gid}#token={token}")
        watcher.goto(f"{server_url}/play/{gid}")
        page.wait_for_selector("#hand-h")
        # the hand is seen without scrolling at 1280x800
        box = page.locator(".artus-hand .card-chip >> nth=0").bounding_box()
        assert box is not None and box["y"] + box["height"] <= DESKTOP["height"], box
        # tooltips in words on every seat, figure and card
        assert page.locator("#board .slot > title").count() == 29
        tip = page.get_attribute(".artus-hand .card-chip >> nth=0", "title")
        assert tip and "card" in tip

        # a few moves at a person's pace; after each the last move is marked on both pages
        for _ in range(3):
            wait_mine(page)
            time.sleep(PACE)
            before = version(page)
            page.click("#actions .act >> nth=0")
            page.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")
            page.wait_for_selector("#board .seat.last")
        page.screenshot(path=str(artifacts / "artus-1280x800.png"))
        assert page.locator("#board .seat.last").count() >= 1
        # under reduced motion the moved figure is not animated; elsewhere it is
        moved = page.locator("#board .moved")
        if moved.count():
            assert moved.first.evaluate("e => getComputedStyle(e).animationName") == "none"
        watcher.wait_for_function(f"() => Number(document.body.dataset.version) >= {version(page)}")
        watcher.wait_for_selector("#board .seat.last")
        anim = watcher.evaluate(
            "() => { const m = document.querySelector('#board .moved');"
            " return m ? getComputedStyle(m).animationName : 'chr-land'; }"
        )
        assert anim == "chr-land"
        log = page.inner_text("#log")
        assert "knight" in log.lower() and not id_like(log), id_like(log)

        # a phone: every seat is a target of at least 44 px (a circle of 44 px around a
        # point of the seat hits that seat only)
        phone.goto(f"{server_url}/play/{gid}")
        phone.wait_for_selector("#board svg .slot")
        phone.locator("#board").scroll_into_view_if_needed()
        hits = phone.evaluate(
            """() => {
              const svg = document.querySelector('#board svg.artus');
              const out = [];
              for (const seat of [0, 25, 26, 27, 28]) {
                const a = (-90 + seat * 360 / 29) * Math.PI / 180;
                const p = svg.createSVGPoint();
                p.x = 300 + 233 * Math.cos(a); p.y = 300 + 233 * Math.sin(a);
                const c = p.matrixTransform(svg.getScreenCTM());
                for (let k = 0; k <= 12; k++) {
                  const r = k ? 21.5 : 0, t = k * Math.PI / 6;
                  const x = c.x + r * Math.cos(t), y = c.y + r * Math.sin(t);
                  const el = document.elementFromPoint(x, y);
                  const g = el && el.closest('.seat');
                  out.push([seat, g ? Number(g.dataset.seat) : null]);
                }
              }
              return out;
            }"""
        )
        wrong = [h for h in hits if h[0] != h[1]]
        assert not wrong, wrong
        phone.screenshot(path=str(artifacts / "artus-390x844.png"))
        assert console.errors == [], console.errors
    finally:
        ctx.close()
        ctx_s.close()
        ctx_p.close()
