"""Accounts in the browser, through the pages alone (clicks and keys; the test reads only the
mail a real SMTP server received): signing in with the mailed link, the account menu from the
keyboard, the account's games, the notice settings, a guest seat kept in the account and
played from the session cookie alone on another device, a passkey added in one browser context
and used to sign in from another (Chromium's virtual authenticator, over the DevTools
protocol), signing out.

The stack is the accounts tests' own (``tests.support.accounts``): its Redis, an aiosmtpd
server, the served API and a worker that mails through it, the public address at
``localhost`` (a passkey needs a host name, never an IP address).  One test goes at a
person's pace, a click every second or two: the session, its CSRF token and the code hold
while someone reads the page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import axe
from tests.browser.conftest import Console
from tests.support.accounts import Stack, accounts_stack
from tests.support.smtp import body_of

PACE_MS = 1500  # a person's pause between two clicks
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WIDTH_JS = "() => Math.max(document.documentElement.scrollWidth, window.innerWidth)"
SESSION_JS = "() => JSON.parse(localStorage.getItem('chronicle.session') || 'null')"
STALE_CSRF_JS = """() => {
  const s = JSON.parse(localStorage.getItem('chronicle.session'));
  localStorage.setItem('chronicle.session', JSON.stringify({ ...s, csrf: 'stale' }));
}"""
HELD_JS = "() => JSON.parse(localStorage.getItem('chronicle.v1') || '{\"games\": {}}').games"
FETCH_JS = """async ([method, path, headers, body]) => {
  const r = await fetch(path, { method, headers, body, credentials: "same-origin" });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}"""
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("accounts-web")) as found:
        yield found


def new_page(browser: Any, console: Console, name: str, **options: Any) -> tuple[Any, Any]:
    """A desktop-sized context (``options``: more of Playwright's, a time zone say) and its
    page, watched for console errors."""
    ctx = browser.new_context(viewport=DESKTOP, **options)
    return ctx, console.watch(ctx.new_page(), name)


def no_serious(page: Any, what: str) -> None:
    lines = axe.serious(axe.violations(page))
    assert not lines, f"{what}: " + "\n".join(lines)


def ask_link(page: Any, stack: Stack, email: str, name: str = "", pace: int = 0) -> str:
    """Asks for a sign-in link on the page open at /signin; the link as mailed."""
    page.wait_for_selector("#email-form")
    before = len(stack.inbox.to(email))
    page.fill("#signin-email", email)
    page.wait_for_timeout(pace)
    if name:
        page.fill("#signin-new-name", name)
        page.wait_for_timeout(pace)
    page.click("#email-send")
    page.wait_for_function("() => document.body.dataset.mailSent === 'yes'")
    assert "on its way" in page.inner_text("#email-sent")
    assert email not in page.inner_text("body"), "the page does not repeat the address"
    found = re.search(r"\S+/signin#code=\S+", body_of(stack.inbox.wait_for(email, before + 1)))
    assert found, "the mail holds the link"
    link = found.group(0)
    assert link.startswith(f"{stack.public}/signin#code="), link
    return link


def finish(page: Any, link: str, pace: int = 0, name: str | None = None) -> None:
    """Opens the mailed link and confirms (the code is used only by the click)."""
    page.goto(link)
    page.wait_for_selector("#code-form")
    assert "code" not in page.url, "the code is wiped from the address bar"
    if name is not None:
        page.fill("#signin-name", name)
    page.wait_for_timeout(pace)
    page.click("#code-send")


def sign_in(page: Any, stack: Stack, email: str, name: str = "") -> None:
    page.goto(stack.public + "/signin")
    finish(page, ask_link(page, stack, email, name))
    page.wait_for_selector("#account-button")


def open_menu_by_keyboard(page: Any) -> None:
    """Tab from the top of the page to the account button, Enter: the menu opens and its
    first link has the focus."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.id") == "account-button":
            break
    else:
        raise AssertionError("the account menu is not reached with Tab")
    page.keyboard.press("Enter")
    assert page.get_attribute("#account-button", "aria-expanded") == "true"
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "My games"


def test_sign_in_by_email_menu_games_and_sign_out_at_a_persons_pace(
    browser: Any, console: Console, stack: Stack, artifacts: Path
) -> None:
    email = "ann.pace@example.com"
    ctx, page = new_page(browser, console, "ann")
    try:
        # a guest's table first, held by this browser's seat token only
        page.goto(stack.public + "/")
        page.wait_for_selector("#create")
        page.select_option("#game", "artus")
        page.click("#create-table")
        page.wait_for_selector("#go-table")
        guest_gid = page.get_attribute("#go-table", "href").rsplit("/", 1)[1]
        page.wait_for_selector(f"#mine li[data-game='{guest_gid}']")
        assert page.locator(".claim-seat").count() == 0, "no claim without an account"
        page.wait_for_selector("#signin-link")
        page.wait_for_timeout(PACE_MS)
        page.click("#signin-link")
        page.wait_for_selector("#email-form")
        no_serious(page, "the sign-in page")
        page.set_viewport_size(PHONE)
        no_serious(page, "the sign-in page on a phone")
        assert page.evaluate(WIDTH_JS) <= PHONE["width"], "nothing wider than a phone"
        page.screenshot(path=str(artifacts / "signin-phone.png"), full_page=True)
        page.set_viewport_size(DESKTOP)
        link = ask_link(page, stack, email, "Ann", pace=PACE_MS)
        page.wait_for_timeout(PACE_MS)

        page.goto(link)
        page.wait_for_selector("#code-form")
        assert "code=" not in page.url
        assert page.input_value("#signin-name") == "Ann", "the name typed before is offered"
        no_serious(page, "the finish form")
        page.wait_for_timeout(2 * PACE_MS)
        page.click("#code-send")
        page.wait_for_selector("#account-button")
        assert page.url == stack.public + "/"
        assert "Ann" in page.inner_text("#account-button")

        # the guest seat is listed as this browser's only, with a claim: kept, it moves to
        # the account's games
        claim = f"#mine li[data-game='{guest_gid}'] .claim-seat"
        page.wait_for_selector(claim)
        assert page.locator("#mine-local-h").is_visible()
        page.wait_for_timeout(PACE_MS)
        page.click(claim)
        page.wait_for_selector(f"#account-games li[data-game='{guest_gid}']")
        page.wait_for_selector(f"#mine li[data-game='{guest_gid}']", state="detached")
        assert page.locator("#mine-local-h").is_hidden()

        # the session is a cookie the page cannot read; the page keeps the CSRF value only
        cookies = {c["name"]: c for c in ctx.cookies()}
        session = cookies["chronicle_session"]
        assert session["httpOnly"] and session["sameSite"] == "Lax"
        assert "chronicle_session" not in page.evaluate("() => document.cookie")
        kept = page.evaluate(SESSION_JS)
        assert kept["player"]["name"] == "Ann" and kept["csrf"]
        assert session["value"] not in json.dumps(kept)
        console.expect("/api/v1/me", 403)
        refused = page.evaluate(
            FETCH_JS, ["PATCH", "/api/v1/me", {"Content-Type": "application/json"}, "{}"]
        )
        assert refused["status"] == 403 and refused["body"]["error"]["code"] == "csrf_failed"

        # the account menu, from the keyboard
        page.wait_for_timeout(PACE_MS)
        open_menu_by_keyboard(page)
        no_serious(page, "the lobby with the account menu open")
        page.screenshot(path=str(artifacts / "account-menu.png"))
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent.trim()") == "Your account"
        page.keyboard.press("Escape")
        assert page.locator("#account-menu").is_hidden()
        assert page.evaluate("() => document.activeElement.id") == "account-button"

        # a table created while signed in is the account's: listed in its games, not as a
        # guest seat of this browser only
        page.wait_for_selector("#create")
        page.select_option("#game", "artus")
        page.wait_for_timeout(PACE_MS)
        page.click("#create-table")
        page.wait_for_selector("#go-table")
        gid = page.get_attribute("#go-table", "href").rsplit("/", 1)[1]
        page.wait_for_selector(f"#account-games li[data-game='{gid}']")
        assert page.locator(f"#mine li[data-game='{gid}']").count() == 0
        assert "seat 1" in page.inner_text(f"#account-games li[data-game='{gid}']")
        page.select_option("#mine-status", "finished")
        page.wait_for_function(
            f"() => !document.querySelector(\"#account-games li[data-game='{gid}']\")"
        )
        page.select_option("#mine-status", "")
        page.wait_for_selector(f"#account-games li[data-game='{gid}']")

        # the account page: a new name (a PATCH with the CSRF header), the menu follows
        page.wait_for_timeout(PACE_MS)
        page.click("#account-button")
        page.click("#account-menu a[href='/signin']")
        page.wait_for_selector("#name-form")
        assert page.inner_text("#account-email") == email
        page.wait_for_selector(f"#account-games li[data-game='{gid}']")
        no_serious(page, "the account page")
        # a CSRF value this page holds that is not the session's (another tab signed in
        # again): the write is refused once, the page reads the session's own and sends again
        page.evaluate(STALE_CSRF_JS)
        console.expect("/api/v1/me", 403)
        page.fill("#account-name", "Ann B")
        page.wait_for_timeout(PACE_MS)
        page.click("#name-save")
        page.wait_for_function(
            "() => document.querySelector('#account-button').textContent.includes('Ann B')"
        )
        assert page.evaluate(SESSION_JS)["csrf"] == kept["csrf"]

        # signing out: the cookie and the page's session go; the guest's place is back
        page.wait_for_timeout(PACE_MS)
        page.click("#account-button")
        page.click("#account-menu [data-account='signout']")
        page.wait_for_selector("#signin-link")
        assert page.evaluate(SESSION_JS) is None
        assert "chronicle_session" not in {c["name"] for c in ctx.cookies()}
        console.expect("/api/v1/me", 401)
        gone = page.evaluate(FETCH_JS, ["GET", "/api/v1/me", {}, None])
        assert gone["status"] == 401

        # the link works once
        console.expect("/auth/email/verify?session=cookie", 401)
        finish(page, link)
        page.wait_for_selector(".trouble")
        assert "used already or has expired" in page.inner_text(".trouble")
        page.wait_for_selector("#email-form")
        assert page.evaluate(SESSION_JS) is None
        assert console.expected == [], "every refusal the test provoked happened"
        assert console.errors == [], console.errors
    finally:
        ctx.close()


def test_a_guest_seat_kept_in_the_account_is_played_from_another_device(
    browser: Any, console: Console, stack: Stack, artifacts: Path
) -> None:
    email = "gil.claim@example.com"
    ctx_a, guest = new_page(browser, console, "guest")
    ctx_b, other = new_page(browser, console, "other device")
    ctx_c, rival = new_page(browser, console, "rival")
    try:
        # a guest's table against a bot; the person's seat (the second: in Artus it places
        # first) is this browser's
        guest.goto(stack.public + "/")
        guest.wait_for_selector("#create")
        guest.select_option("#game", "artus")
        guest.select_option("#kind-0", index=2)  # a bot
        guest.fill("#name-1", "Gil")
        guest.click("#create-table")
        guest.click("#go-table")
        guest.wait_for_selector("#board svg")
        gid = guest.url.rsplit("/", 1)[1]
        guest.wait_for_function("() => document.body.dataset.version")
        assert guest.locator("#claim").is_hidden(), "no claim without an account"
        token = guest.evaluate(HELD_JS)[gid]["seats"]["1"]

        # signing in from the table comes back to it; then the seat is kept in the account
        guest.click("#signin-link")
        guest.wait_for_selector("#email-form")
        assert "next=" in guest.url
        finish(guest, ask_link(guest, stack, email, "Gil"))
        guest.wait_for_url(f"{stack.public}/play/{gid}")
        guest.wait_for_selector("#claim-seat")
        no_serious(guest, "the table with the claim control")
        guest.screenshot(path=str(artifacts / "table-claim.png"))
        guest.click("#claim-seat")
        guest.wait_for_selector("#notice.info")
        assert "in your account now" in guest.inner_text("#notice")
        assert guest.locator("#claim").is_hidden()
        guest.reload()
        guest.wait_for_selector("#board svg")
        guest.wait_for_function("() => document.body.dataset.version")
        guest.wait_for_timeout(500)
        assert guest.locator("#claim").is_hidden(), "a seat the account holds is not offered"

        # another device: signed in, no seat token, the account's games lead to the table
        sign_in(other, stack, email)
        other.wait_for_selector(f"#account-games li[data-game='{gid}'].hot")
        assert "your turn" in other.inner_text(f"#account-games li[data-game='{gid}']")
        other.click(f"#account-games li[data-game='{gid}'] a[href='/play/{gid}']")
        other.wait_for_selector("#actions .act:not([disabled])")
        assert gid not in other.evaluate(HELD_JS), "this browser holds no token of the game"
        assert "Your turn" in other.inner_text("#turn")
        before = int(other.evaluate("() => document.body.dataset.version"))
        other.click("#actions .act >> nth=0")
        other.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")
        guest.wait_for_selector(f"#log li[data-version='{before + 1}']")  # the guest's page too
        # the bot answers; then the guest's page (its token) moves, and the cookie's page, which
        # asked for nothing, hears it by the stream (EventSource sends the cookie; no ticket)
        guest.wait_for_selector("#actions .act:not([disabled])")
        mid = int(guest.evaluate("() => document.body.dataset.version"))
        guest.click("#actions .act >> nth=0")
        guest.wait_for_function(f"() => Number(document.body.dataset.version) > {mid}")
        other.wait_for_selector(f"#log li[data-version='{mid + 1}']")
        assert other.evaluate("() => document.body.dataset.live") == "stream"
        other.wait_for_selector("#actions .act:not([disabled])")  # its turn again

        # another account cannot take the seat with its token
        sign_in(rival, stack, "rival.claim@example.com", "Rex")
        rival.goto(f"{stack.public}/play/{gid}#token={token}")
        rival.wait_for_selector("#claim-seat")
        console.expect("/claim", 409)
        rival.click("#claim-seat")
        rival.wait_for_selector("#notice.error")
        assert "Another account holds this seat" in rival.inner_text("#notice")
        assert console.errors == [], console.errors
    finally:
        ctx_a.close()
        ctx_b.close()
        ctx_c.close()


def add_authenticator(page: Any) -> tuple[Any, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    found = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, str(found["authenticatorId"])


def test_a_passkey_added_in_one_context_signs_in_from_another(
    browser: Any, console: Console, stack: Stack, artifacts: Path
) -> None:
    email = "pia.passkey@example.com"
    ctx_a, first = new_page(browser, console, "first")
    ctx_b, second = new_page(browser, console, "second")
    try:
        cdp_a, auth_a = add_authenticator(first)
        sign_in(first, stack, email, "Pia")
        me = first.evaluate(SESSION_JS)["player"]
        first.click("#account-button")
        first.click("#account-menu [data-account='passkey']")
        first.wait_for_function("() => document.body.dataset.passkeyAdded === 'yes'")
        assert "Passkey added" in first.inner_text("#notice")
        made = cdp_a.send("WebAuthn.getCredentials", {"authenticatorId": auth_a})["credentials"]
        assert len(made) == 1 and made[0]["isResidentCredential"]
        assert made[0]["rpId"] == "localhost"

        # the other context holds the same passkey (as a synced passkey would be) and no
        # session: the passkey alone signs it in, as the same account
        cdp_b, auth_b = add_authenticator(second)
        cdp_b.send("WebAuthn.addCredential", {"authenticatorId": auth_b, "credential": made[0]})
        second.goto(stack.public + "/signin")
        second.wait_for_selector("#passkey-signin")
        assert second.evaluate(SESSION_JS) is None
        second.click("#passkey-signin")
        second.wait_for_selector("#account-button")
        assert second.url == stack.public + "/"
        assert second.evaluate(SESSION_JS)["player"] == me
        assert "Pia" in second.inner_text("#account-button")
        used = cdp_b.send("WebAuthn.getCredentials", {"authenticatorId": auth_b})["credentials"]
        assert used[0]["signCount"] > made[0]["signCount"], "the passkey signed the challenge"
        second.goto(stack.public + "/signin")
        second.wait_for_selector("#passkey-count:has-text('one passkey')")
        second.screenshot(path=str(artifacts / "account-page.png"), full_page=True)
        assert console.errors == [], console.errors
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_host_hides_a_line_and_a_signed_in_player_blocks_its_sayer(
    browser: Any, console: Console, stack: Stack
) -> None:
    """The table's chat panel: the host's "Hide" on a line (kept, shown hidden to everyone),
    and "Block" beside a line of another account, after a confirmation: that account's lines
    read as blocked from then on, and it can no longer join a table the blocker creates."""
    import requests

    api = stack.base + "/api/v1"
    rude = requests.post(api + "/auth/email", json={"email": "rude@example.com"})
    assert rude.status_code == 202
    code = re.search(r"#code=(\S+)", body_of(stack.inbox.wait_for("rude@example.com")))
    assert code
    signed = requests.post(api + "/auth/email/verify", json={"code": code.group(1), "name": "Rude"})
    rude_token = signed.json()["token"]
    ctx, page = new_page(browser, console, "host")
    try:
        sign_in(page, stack, "chat-host@example.com", "Hostess")
        cookies = {c["name"]: c["value"] for c in ctx.cookies()}
        session = requests.Session()
        session.cookies.set("chronicle_session", cookies["chronicle_session"])
        csrf = session.get(api + "/me").json()["csrf"]
        made = session.post(
            api + "/games",
            json={"game": "artus", "players": [{"name": "Hostess"}, {"name": "Rude"}]},
            headers={"X-CSRF-Token": csrf},
        ).json()
        gid = made["id"]
        requests.post(
            api + f"/games/{gid}/claim",
            json={"seat_token": made["seats"][1]["token"]},
            headers={"Authorization": f"Bearer {rude_token}"},
        ).raise_for_status()
        for text in ("first line", "second line"):
            requests.post(
                api + f"/games/{gid}/chat",
                json={"text": text},
                headers={"Authorization": f"Bearer {rude_token}"},
            ).raise_for_status()
        page.goto(f"{stack.public}/play/{gid}#host={made['host_token']}")
        page.wait_for_selector("#chat li >> text=second line")
        page.wait_for_timeout(1000)  # a person reads the lines first
        page.click("#chat li:has-text('first line') button[data-hide]")
        page.wait_for_selector("#chat li >> text=hidden by the host")
        assert "first line" not in page.inner_text("#chat")
        page.wait_for_timeout(1000)
        page.click("#chat li:has-text('second line') button[data-block]")
        page.wait_for_selector("dialog.confirm")
        page.wait_for_timeout(1000)
        page.click("#confirm-yes")
        page.wait_for_selector("#chat li >> text=a line from a player you blocked")
        assert "second line" not in page.inner_text("#chat")
        blocks = session.get(api + "/me/blocks").json()["blocks"]
        assert blocks == [{"id": signed.json()["player"]["id"], "name": "Rude"}]
        # a new line by the blocked account reaches this page as blocked, live
        requests.post(
            api + f"/games/{gid}/chat",
            json={"text": "third line"},
            headers={"Authorization": f"Bearer {rude_token}"},
        ).raise_for_status()
        page.wait_for_function("() => document.querySelectorAll('#chat li').length === 3")
        assert "third line" not in page.inner_text("#chat")
        # the players' list links each account's seat to its public profile
        rude_id = signed.json()["player"]["id"]
        page.click(f"#players a[href='/players/{rude_id}']")
        page.wait_for_selector("#profile-name")
        assert page.inner_text("#profile-name") == "Rude"
        assert page.inner_text("#profile-games") == "1 game played"
        assert "rude@example.com" not in page.content()
        no_serious(page, "the profile page")
        page.wait_for_timeout(1000)
        page.click("#profile-block")  # it says Unblock: the block above holds
        page.wait_for_function(
            "() => document.getElementById('profile-block').textContent === 'Block'"
        )
        assert session.get(api + "/me/blocks").json()["blocks"] == []
    finally:
        ctx.close()


def test_a_rated_games_end_screen_shows_each_rating_before_and_after(
    browser: Any, console: Console, stack: Stack
) -> None:
    """The end of a rated game (a signed-in player against the greedy bot, played through
    the API): the table's result says each rater's rating before and after, once counted."""
    import requests

    from tests.e2e.test_ratings import play_to_the_end, post_game, rated
    from tests.e2e.test_ratings import sign_in as api_sign_in

    signed = api_sign_in(stack, "rated-end@example.com", "Rae")
    created = post_game(
        stack, signed["token"], rated([{"name": "Rae"}, {"name": "g", "bot": "greedy"}])
    )
    assert created.status_code == 201, created.text
    gid = created.json()["id"]
    play_to_the_end(stack, gid, created.json()["seats"][0]["token"], 0, seed=7)
    ctx, page = new_page(browser, console, "watcher")
    try:
        page.goto(f"{stack.public}/play/{gid}")
        page.wait_for_selector("#rating-change >> text=Ratings:", timeout=30_000)
        text = page.inner_text("#rating-change")
        assert "Rae" in text and "Greedy (bot)" in text and "→" in text, text
        changes = requests.get(f"{stack.base}/api/v1/games/{gid}/ratings", timeout=10).json()
        mine = next(c for c in changes["changes"] if c["name"] == "Rae")
        assert f"{mine['after']['ordinal']:.1f}" in text
    finally:
        ctx.close()


def test_notice_settings_are_saved_from_the_account_page_at_a_persons_pace(
    browser: Any, console: Console, stack: Stack
) -> None:
    ctx, page = new_page(browser, console, "notice settings", timezone_id="Asia/Tokyo")
    try:
        sign_in(page, stack, "nora-settings@example.com", "Nora")
        page.goto(stack.public + "/signin")
        page.wait_for_selector("#notice-form")
        # the defaults: email off, every kind on, no reminders, the browser's time zone
        assert not page.is_checked("#n-email")
        assert all(page.is_checked(f'[data-kind="{k}"]') for k in ("your_turn", "game_over"))
        assert page.input_value("#n-reminders") == ""
        assert page.input_value("#n-zone") == "Asia/Tokyo"
        no_serious(page, "the account page with its notice settings")
        for step in (
            lambda: page.check("#n-email"),
            lambda: page.uncheck('[data-kind="game_over"]'),
            lambda: page.select_option("#n-reminders", "PT12H"),
            lambda: page.check("#n-quiet"),
            lambda: page.fill("#n-from", "23:00"),
            lambda: page.fill("#n-to", "07:00"),
            lambda: page.click("#n-save"),
        ):
            step()
            page.wait_for_timeout(PACE_MS)
        page.wait_for_function("() => /saved/.test(document.querySelector('#notice').textContent)")
        me = page.evaluate(FETCH_JS, ["GET", "/api/v1/me", {}, None])["body"]
        notes = me["notifications"]
        assert notes["email"] is True and notes["game_over"] is False and notes["your_turn"]
        assert notes["reminders"] == "PT12H" and notes["digest"] is False
        assert notes["quiet_hours"] == {"from": "23:00", "to": "07:00"}
        assert me["timezone"] == "Asia/Tokyo"
        # another visit shows what was saved
        page.reload()
        page.wait_for_selector("#notice-form")
        assert page.is_checked("#n-email") and not page.is_checked('[data-kind="game_over"]')
        assert page.input_value("#n-reminders") == "PT12H" and page.is_checked("#n-quiet")
        assert page.input_value("#n-from") == "23:00" and page.input_value("#n-to") == "07:00"
        # a time zone the server does not know: said, and nothing saved
        page.fill("#n-zone", "Mars/Olympus")
        page.uncheck("#n-email")
        page.click("#n-save")
        page.wait_for_function(
            "() => /not saved/.test(document.querySelector('#notice').textContent)"
        )
        again = page.evaluate(FETCH_JS, ["GET", "/api/v1/me", {}, None])["body"]
        assert again["notifications"]["email"] is True and again["timezone"] == "Asia/Tokyo"
    finally:
        ctx.close()
