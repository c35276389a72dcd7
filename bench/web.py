"""``python -m bench.web``: the browser client's figures, in Debian's chromium (Playwright).

- **First load of a table**: every byte a fresh browser (empty cache) receives to show a table
  mid-game as a seat, compressed as sent (headers included), split into the client's static
  files and the API's JSON.  Target: under 250 KB.
- **Append to the other screen**: a move POSTed for one seat until the other seat's page has
  drawn it (the page stamps ``Date.now()`` per drawn version; same machine clock).  Live updates
  come from the long-poll (or ``/stream`` where the server has it).  Target: p50 under 100 ms.
- **Bot's move visible on the table**: a seat plays a greedy bot; for every version the bot
  appends (a bot's turn can be a dozen appends within 50 ms), from its append (the event's
  ``at``) until the seat's page first draws it or a later version (``window.__drawnAt``).  The
  seat's moves are POSTed for it (a random legal move as soon as its page offers moves).
  Target: p95 under 1 s (issue #34: no page is stale for more than a second).
- **Replay step render**: building one version's board and panels and laying the page out
  (``performance.now()`` around it in the page), every version of a finished game.  Target:
  under 16 ms.

The servers are the benchmark's own (Redis, gunicorn as in production, one worker).  Games are
created and played with ``chronicle_client`` (its POST is inside the append figure: about a
millisecond of ``requests`` beside the browser's share).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from datetime import datetime
from typing import Any

from bench.report import median, pct
from bench.servers import Servers
from chronicle_client import Client

CHROMIUM = "/usr/bin/chromium"
VARIANTS = [("artus", {"rules": "basic"}), ("kings-and-castles", {"length": "short"}),
            ("lancaster", {})]  # fmt: skip


def create(api: Client, game: str, options: dict[str, str]) -> tuple[str, dict[int, str]]:
    body = api.create(game, [{"name": "Ann"}, {"name": "Bob"}], options)
    return body["id"], {s["seat"]: s["token"] for s in body["seats"] if "token" in s}


def step(
    api: Client, gid: str, tokens: dict[int, str], rng: random.Random
) -> tuple[int, int, float]:
    """One random legal move by a seat to act: (seat, new version, epoch ms just before the
    POST), or (-1, version, 0) once the game is over."""
    summary = api.summary(gid)
    if summary["status"] != "active":
        return -1, summary["version"], 0.0
    seat = rng.choice(summary["to_act"])
    player = api.as_token(tokens[seat])
    listed = player.actions(gid)
    action = rng.choice(listed["actions"])
    t0 = time.time() * 1000
    out = player.act(gid, action, listed["version"])
    return seat, out["version"], t0


def first_load(browser: Any, base: str, gid: str, token: str) -> dict[str, int]:
    ctx = browser.new_context()
    page = ctx.new_page()
    sizes = {"static": 0, "api": 0, "requests": 0}

    def done(req: Any) -> None:
        s = req.sizes()
        kind = "api" if "/api/" in req.url else "static"
        sizes[kind] += s["responseBodySize"] + s["responseHeadersSize"]
        sizes["requests"] += 1

    page.on("requestfinished", done)
    page.goto(f"{base}/play/{gid}#token={token}")
    page.wait_for_selector("#board svg")
    page.wait_for_selector("#log li")
    page.wait_for_timeout(800)  # the long-poll stays open; everything else has arrived
    ctx.close()
    return sizes


def append_latency(
    browser: Any, base: str, api: Client, gid: str, tokens: dict[int, str], n: int
) -> list[float]:
    ctx = browser.new_context()
    pages = {}
    for seat, token in tokens.items():
        page = ctx.new_page()
        page.goto(f"{base}/play/{gid}#token={token}")
        page.wait_for_selector("#board svg")
        pages[seat] = page
    rng = random.Random(7)
    out: list[float] = []
    while len(out) < n:
        seat, version, t0 = step(api, gid, tokens, rng)
        if seat < 0:
            break
        other = pages[1 - seat]
        other.wait_for_function(f"() => (window.__drawnAt || {{}})[{version}]", timeout=20_000)
        out.append(other.evaluate(f"() => window.__drawnAt[{version}]") - t0)
        pages[seat].wait_for_function(f"() => (window.__drawnAt || {{}})[{version}]")
    ctx.close()
    return out


def _ms(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000


def bot_visible(
    browser: Any, base: str, api: Client, game: str, options: dict[str, str], moves: int
) -> list[float]:
    """The delays (ms) from each version a greedy bot appended to its first drawing on the
    page of the seat playing against it."""
    body = api.create(game, [{"name": "Ann"}, {"name": "Bot", "bot": "greedy"}], options)
    gid, token = body["id"], body["seats"][0]["token"]
    player = api.as_token(token)
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{base}/play/{gid}#token={token}")
    page.wait_for_selector("#board svg")
    rng = random.Random(5)
    for _ in range(moves):
        try:  # the page offers moves: it shows the bot's reply (or the deal)
            page.wait_for_function(
                "() => document.querySelectorAll('#actions .act:not([disabled])').length",
                timeout=20_000,
            )
        except Exception:
            break  # over
        listed = player.actions(gid)
        if not listed["actions"]:
            continue
        player.act(gid, rng.choice(listed["actions"]), listed["version"])
    page.wait_for_timeout(1500)
    drawn = {int(v): t for v, t in page.evaluate("() => window.__drawnAt || {}").items()}
    out = []
    for e in player.events(gid, after=0, limit=1000)["events"]:
        if e.get("seat") != 1:
            continue
        later = [t for v, t in drawn.items() if v >= e["version"]]
        if later:
            out.append(min(later) - _ms(e["at"]))
    ctx.close()
    return out


def replay_render(browser: Any, base: str, gid: str) -> list[float]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{base}/replay/{gid}?version=1")
    page.wait_for_function("() => document.body.dataset.version === '1'")
    top = int(page.eval_on_selector("#slider", "e => e.max"))
    out = []
    for v in range(2, top + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => document.body.dataset.version === '{v}'")
        out.append(page.evaluate("() => window.__chronicle.renderMs"))
    ctx.close()
    return out


def row(figure: str, value: float, unit: str, target: str, met: bool, note: str) -> dict[str, Any]:
    return {"figure": figure, "value": value, "unit": unit, "target": target, "met": met,
            "note": note}  # fmt: skip


def measure(browser: Any, base: str, api: Client, samples: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    renders: list[float] = []
    for game, options in VARIANTS:
        rng = random.Random(1)
        gid, tokens = create(api, game, options)
        for _ in range(40):  # to mid-game: a realistic view and log
            step(api, gid, tokens, rng)
        load = first_load(browser, base, gid, tokens[0])
        total = load["static"] + load["api"]
        note = (
            f"static {load['static'] / 1000:.1f} KB + API {load['api'] / 1000:.1f} KB, "
            f"{load['requests']} requests"
        )
        rows.append(row(f"first load of a table [{game}]", total / 1000, "KB", "< 250 KB",
                        total < 250_000, note))  # fmt: skip
        lat = append_latency(browser, base, api, gid, tokens, samples)
        latencies += lat
        rows.append(row(f"append to the other screen p50 [{game}]", median(lat), "ms",
                        "< 100 ms", median(lat) < 100,
                        f"p90 {pct(lat, 90):.0f} ms, n={len(lat)}"))  # fmt: skip
        while step(api, gid, tokens, rng)[0] >= 0:  # to the end, then the replay
            pass
        deadline = time.monotonic() + 30
        while api.summary(gid)["status"] != "finished":
            assert time.monotonic() < deadline, "the game was not scored"
            time.sleep(0.05)
        ren = replay_render(browser, base, gid)
        renders += ren
        note = f"p95 {pct(ren, 95):.1f} ms, max {max(ren):.1f} ms, {len(ren)} steps"
        rows.append(row(f"replay step render p50 [{game}]", median(ren), "ms", "< 16 ms",
                        median(ren) < 16, note))  # fmt: skip
    rows.append(row("append to the other screen p50 [all]", median(latencies), "ms", "< 100 ms",
                    median(latencies) < 100,
                    f"p90 {pct(latencies, 90):.0f} ms, n={len(latencies)}"))  # fmt: skip
    bots: list[float] = []
    for game, options in VARIANTS:
        delays = bot_visible(browser, base, api, game, options, samples)
        bots += delays
        rows.append(row(f"bot's move visible on the table p95 [{game}]", pct(delays, 95), "ms",
                        "< 1000 ms", pct(delays, 95) < 1000,
                        f"p50 {median(delays):.0f} ms, max {max(delays):.0f} ms, "
                        f"n={len(delays)} bot versions"))  # fmt: skip
    rows.append(row("bot's move visible on the table p95 [all]", pct(bots, 95), "ms", "< 1000 ms",
                    pct(bots, 95) < 1000,
                    f"p50 {median(bots):.0f} ms, n={len(bots)}"))  # fmt: skip
    rows.append(row("replay step render p95 [all]", pct(renders, 95), "ms", "< 16 ms",
                    pct(renders, 95) < 16,
                    f"p50 {median(renders):.1f} ms, n={len(renders)}"))  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__)
    parser.add_argument("--samples", type=int, default=30, help="appends timed per game")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with Servers() as env, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        rows = measure(browser, env.api, Client(env.api), args.samples)
        version = browser.version
        browser.close()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"chromium {version}, Python {platform.python_version()}, {platform.machine()}")
    print("| figure | value | target | met | note |\n|---|---:|---|---|---|")
    for r in rows:
        met = "yes" if r["met"] else "NO"
        value = f"{r['value']:.1f} {r['unit']}"
        print(f"| {r['figure']} | {value} | {r['target']} | {met} | {r['note']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
