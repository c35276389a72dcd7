"""The host invites a player from the web client (``service/web/static/invite.js``), in Chromium
at a person's pace: a host signed in by the mailed link makes a table with two open seats in
the lobby; on the table page, beside the first open seat's invitation link, they paste another
account's profile address into "Invite a player": the page says the invitation was sent (if the
invitee's settings allow), and the seat's old link is gone (it no longer works) with whom it
now waits for said instead; the invitee's mail holds the seat's new link, which opens the join
page. From a third account's profile page, "Invite to my table" lists the table and invites
them to the other open seat. A refusal (the host's own id) is the API's message in an alert.

The stack is the accounts tests' own (``tests.support.accounts``): its Redis, a real SMTP
server, the served API and a worker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.browser.conftest import Console
from tests.browser.test_accounts_browser import (
    HELD_JS,
    PHONE,
    WIDTH_JS,
    new_page,
    no_serious,
    sign_in,
)
from tests.e2e.test_notices import bearer, parts, patch_me
from tests.e2e.test_notices import sign_in as sign_in_by_api
from tests.support.accounts import Stack, accounts_stack

pytestmark = pytest.mark.slow  # a person's pace: a pause before every click

PACE_MS = 600  # shorter than the accounts tests' pause: the whole walk stays under a minute


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("invite-web")) as found:
        yield found


def test_the_host_invites_by_profile_address_and_from_a_profile_page(
    browser: Any, console: Console, stack: Stack, artifacts: Path
) -> None:
    ivy = sign_in_by_api(stack, "ivy.invite@example.com", "Ivy")
    assert patch_me(stack, ivy["token"], {"notifications": {"email": True}}).ok
    kit = sign_in_by_api(stack, "kit.invite@example.com", "Kit")
    ivy_id, kit_id = ivy["player"]["id"], kit["player"]["id"]

    ctx, page = new_page(browser, console, "hana")
    try:
        sign_in(page, stack, "hana.invite@example.com", "Hana")
        page.goto(stack.public + "/")
        page.wait_for_selector("#create")
        page.select_option("#game", "artus")
        page.click("#add-seat")
        page.select_option("#kind-1", "open")
        page.select_option("#kind-2", "open")
        page.wait_for_timeout(PACE_MS)
        page.click("#create-table")
        page.wait_for_selector("#go-table")
        gid = page.get_attribute("#go-table", "href").rsplit("/", 1)[1]
        first_link = page.evaluate(HELD_JS)[gid]["links"]["1"]
        assert f"/join/{gid}#invitation=" in first_link
        page.wait_for_timeout(PACE_MS)
        page.click("#go-table")

        # the table page: each open seat with its link and an "Invite a player" form
        seat = "#invite-panel .open-seat[data-seat='1']"
        page.wait_for_selector(f"{seat} .invite-link")
        assert page.input_value(f"{seat} .invite-link") == first_link
        assert page.locator("#invite-panel .open-seat").count() == 2

        # a refusal: the host's own id, the API's words in an alert, nothing else changes
        me = page.evaluate("() => JSON.parse(localStorage.getItem('chronicle.session')).player.id")
        page.fill("#invite-1", me)
        page.wait_for_timeout(PACE_MS)
        console.expect(f"/games/{gid}/invitations", 400)
        page.click(f"{seat} button[type=submit]")
        alert = page.wait_for_selector(f"{seat} .invite-error[role=alert]:not(:empty)")
        assert "already" in alert.inner_text(), alert.inner_text()
        assert page.evaluate("() => document.activeElement.id") == "invite-1"
        assert page.input_value(f"{seat} .invite-link") == first_link

        # pasted as a profile address: sent, said in words, the old link gone
        page.fill("#invite-1", f"{stack.public}/players/{ivy_id}")
        page.wait_for_timeout(PACE_MS)
        page.click(f"{seat} button[type=submit]")
        said = page.wait_for_selector(f"{seat} .invite-said:not(:empty)")
        words = said.inner_text()
        assert "Invitation sent" in words and "Ivy" in words, words
        assert "if their settings allow" in words, words
        assert page.evaluate("() => document.activeElement.classList.contains('invite-said')")
        assert page.locator(f"{seat} .invite-link").count() == 0, "the old link is not shown"
        assert "Ivy" in page.inner_text(f"{seat} .invited")
        assert "1" not in page.evaluate(HELD_JS)[gid]["links"], "nor kept"
        assert first_link not in page.content()
        no_serious(page, "the table's open seats after an invitation")
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(PACE_MS)
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "nothing wider than a phone"
        page.screenshot(path=str(artifacts / "invite-table-phone.png"), full_page=True)

        # the invitee's mail: the seat's new link, which opens the join page
        message = stack.inbox.wait_for("ivy.invite@example.com", 2)  # after the sign-in mail
        assert message["Subject"] == "Hana invites you to Artus"
        found = re.search(
            rf"{re.escape(stack.public)}/join/{gid}#invitation=[\w-]+", parts(message)["text/plain"]
        )
        assert found and found.group(0) != first_link
        guest_ctx, guest = new_page(browser, console, "ivy")
        try:
            guest.goto(found.group(0))
            guest.wait_for_selector("#join-form")
            assert "invitation=" not in guest.url, "the code leaves the address bar"
        finally:
            guest_ctx.close()

        # a profile page: "Invite to my table" lists this table, its other open seat
        page.wait_for_timeout(PACE_MS)
        page.goto(f"{stack.public}/players/{kit_id}")
        page.wait_for_selector("#invite-open")
        page.click("#invite-open")
        choice = page.wait_for_selector(f".invite-table[data-game='{gid}']")
        assert page.get_attribute("#invite-open", "aria-expanded") == "true"
        assert "seat 3" in choice.inner_text()
        page.wait_for_timeout(PACE_MS)
        choice.click()
        said = page.wait_for_selector("#profile-invite .invite-said:not(:empty)")
        assert "Kit" in said.inner_text() and "seat 3" in said.inner_text()
        assert page.locator(f".invite-table[data-game='{gid}']").count() == 0
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "nothing wider than a phone"
        no_serious(page, "a profile page with Invite to my table")
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_a_profile_page_offers_no_invitation_without_a_host_token_here(
    browser: Any, console: Console, stack: Stack
) -> None:
    """Max hosts a waiting table with an open seat, made elsewhere (through the API): this
    browser keeps no host token for it, so Lea's profile offers no "Invite to my table"."""
    lea = sign_in_by_api(stack, "lea.invite@example.com", "Lea")
    made = sign_in_by_api(stack, "max.invite@example.com", "Max")
    body: dict[str, Any] = {"game": "artus", "players": [{"name": "Max"}, {"open": True}]}
    r = requests.post(
        f"{stack.base}/api/v1/games", json=body, headers=bearer(made["token"]), timeout=10
    )
    assert r.status_code == 201, r.text
    ctx, page = new_page(browser, console, "max")
    try:
        sign_in(page, stack, "max.invite@example.com", "Max")
        page.goto(f"{stack.public}/players/{lea['player']['id']}")
        page.wait_for_selector("#profile-block")
        waiting = page.evaluate(
            "async () => (await (await fetch('/api/v1/me/games?status=waiting')).json()).games"
        )
        assert [g["id"] for g in waiting] == [r.json()["id"]], "the account hosts it"
        page.wait_for_timeout(PACE_MS)
        assert page.locator("#invite-open").count() == 0
        assert page.locator("#profile-invite").is_hidden()
        assert console.errors == [], console.errors
    finally:
        ctx.close()
