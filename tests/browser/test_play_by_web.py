"""The play-by-web additions in the browser, each tested when the server offers it (the
client finds them in the OpenAPI document): an open seat taken through its invitation link,
the public table listed in the lobby, the turn clock's deadline, table chat, and live updates
by Server-Sent Events.  On a server without them the test is skipped, and the pages hide those
controls (the main browser test checks that no page logs a console error there)."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.browser.conftest import Console
from tests.browser.test_play import new_page


def offered(server_url: str) -> set[str]:
    paths = requests.get(server_url + "/api/v1/openapi.json", timeout=10).json()["paths"]
    return {p.rsplit("/", 1)[-1] for p in paths}


def test_open_seat_invitation_chat_clock_and_stream(
    browser: Any, console: Console, server_url: str, worker: Any
) -> None:
    have = offered(server_url)
    if "join" not in have:
        pytest.skip("this server has no open seats yet (POST /games/{id}/join)")
    ctx_a, alice = new_page(browser, console, "alice")
    ctx_b, bob = new_page(browser, console, "bob")
    try:
        alice.goto(server_url + "/")
        alice.select_option("#game", "artus")
        alice.fill("#name-0", "Alice")
        alice.select_option("#kind-1", "open")
        clock = not alice.is_disabled("#turn-time")
        if clock:
            alice.select_option("#turn-time", "PT1H")
        alice.check("#public")
        alice.click("#create-table")
        invitation = alice.input_value("#link-1")
        assert "/join/" in invitation and "#invitation=" in invitation
        alice.click("#go-table")
        alice.wait_for_selector("#board svg")
        assert "Waiting for players" in alice.inner_text("#turn")
        gid = alice.url.rsplit("/", 1)[1]

        bob.goto(server_url + "/")
        bob.wait_for_selector(f"#waiting a[href='/join/{gid}']")  # the public table is listed
        bob.goto(invitation)
        bob.wait_for_selector("#join-name")
        assert "invitation" not in bob.url, "the code is wiped from the address bar"
        bob.fill("#join-name", "Bob")
        bob.click("#join-form button")
        bob.wait_for_selector("#board svg")
        assert "/play/" in bob.url
        alice.wait_for_function(
            "() => document.querySelector('#log').innerText.includes('Bob took seat 2')"
        )
        alice.wait_for_function("() => document.body.dataset.status === 'active'")
        if clock:  # the seat to act's clock: its time left and its deadline, counting down
            bob.wait_for_selector("#clocks .clock.running")
            running = bob.inner_text("#clocks .clock.running")
            assert "left" in running and bob.locator("#clocks .clock.running time").count() == 1
        if "chat" in have:
            # a spectator's page, live too: it sees the spectators' room, never the players'
            ctx_c, carol = new_page(browser, console, "carol")
            carol.goto(f"{server_url}/play/{gid}")
            carol.wait_for_selector("#board svg")
            carol.wait_for_function("() => document.body.dataset.live")
            bob.fill("#chat-text", "good luck")
            bob.click("#chat-form button")
            # the line arrives by the stream (no chat is polled while the stream is up)
            via = "stream" if "stream-ticket" in have else "poll"
            line = f"#chat li[data-via='{via}']:has-text('good luck')"
            alice.wait_for_selector(line, timeout=10_000)
            carol.fill("#chat-name", "Carol")
            carol.fill("#chat-text", "go Bob!")
            carol.click("#chat-form button")
            alice.wait_for_selector(f"#chat li[data-via='{via}']:has-text('go Bob!')")
            carol.wait_for_selector(f"#chat li[data-via='{via}']:has-text('go Bob!')")
            assert "good luck" not in carol.inner_text("#chat"), "a seat-private line"
            ctx_c.close()
        else:
            assert alice.locator("#chat-panel").is_hidden()
        if "stream-ticket" in have:
            for page in (alice, bob):
                page.wait_for_function("() => document.body.dataset.live === 'stream'")
        assert console.errors == [], console.errors
    finally:
        ctx_a.close()
        ctx_b.close()
