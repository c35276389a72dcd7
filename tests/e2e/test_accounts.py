"""Accounts (contract: v2 additions, Accounts) through the served API, with a real SMTP
server and a real worker mailing through it: sign-in by a mailed link, sessions and tokens,
the browser's cookie and CSRF, seats that follow an account (``SeatClaimed``), my games on
another device, profiles, blocks, and deleting an account.  No email address ever reaches a
game's documents, a profile or the API's log."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.accounts import Stack, accounts_stack
from tests.support.authenticator import Authenticator
from tests.support.smtp import body_of, code_in

API = "/api/v1"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("accounts")) as found:
        yield found


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def sign_in(stack: Stack, email: str, name: str | None = None) -> dict[str, Any]:
    """Ask for a link, read it from the mail, verify its code: ``{player, token}``."""
    before = len(stack.inbox.to(email))
    r = requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    assert r.status_code == 202, r.text
    message = stack.inbox.wait_for(email, before + 1)
    body = {"code": code_in(message), **({"name": name} if name else {})}
    r = requests.post(stack.base + API + "/auth/email/verify", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def create(stack: Stack, token: str | None, players: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"game": "artus", "players": players, **extra}
    r = requests.post(stack.base + API + "/games", json=body, headers=bearer(token), timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def events(stack: Stack, gid: str) -> list[dict[str, Any]]:
    r = requests.get(stack.base + f"{API}/games/{gid}/events", timeout=10)
    assert r.status_code == 200, r.text
    return list(r.json()["events"])


def test_a_mailed_link_signs_in_once_and_makes_the_account(stack: Stack) -> None:
    email = "ann@example.com"
    r = requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    assert r.status_code == 202
    message = stack.inbox.wait_for(email)
    assert message["Subject"] == "Sign in to Chronicle"
    assert f"{stack.public}/signin#code=" in body_of(message)
    code = code_in(message)
    r = requests.post(stack.base + API + "/auth/email/verify", json={"code": code, "name": "Ann"})
    assert r.status_code == 200, r.text
    signed = r.json()
    assert signed["player"]["name"] == "Ann" and signed["token"].startswith("acct_")
    me = requests.get(stack.base + API + "/me", headers=bearer(signed["token"]), timeout=10)
    assert me.status_code == 200 and me.json()["email"] == email
    assert me.json()["id"] == signed["player"]["id"]
    # a code works once
    again = requests.post(stack.base + API + "/auth/email/verify", json={"code": code})
    assert again.status_code == 401 and again.json()["error"]["code"] == "unauthorized"
    # the second link of the address signs in to the same account
    assert sign_in(stack, email)["player"]["id"] == signed["player"]["id"]


def test_the_email_request_tells_nobody_who_has_an_account(stack: Stack) -> None:
    sign_in(stack, "known@example.com")
    known = requests.post(stack.base + API + "/auth/email", json={"email": "known@example.com"})
    unknown = requests.post(stack.base + API + "/auth/email", json={"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 202
    assert known.json() == unknown.json()
    bad = requests.post(stack.base + API + "/auth/email", json={"email": "not an address"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"


def test_wrong_codes_void_the_link_and_are_limited(stack: Stack) -> None:
    email = "guess@example.com"
    requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    code = code_in(stack.inbox.wait_for(email))
    selector = code.split(".")[0]
    for _ in range(5):  # five wrong verifiers of this address's link
        r = requests.post(stack.base + API + "/auth/email/verify", json={"code": f"{selector}.x"})
        assert r.status_code == 401
    r = requests.post(stack.base + API + "/auth/email/verify", json={"code": code})
    assert r.status_code == 401, "the link is void after five wrong tries"
    # per client: the next wrong codes are refused with 429 and Retry-After
    statuses = [
        requests.post(stack.base + API + "/auth/email/verify", json={"code": "a.b"}).status_code
        for _ in range(6)
    ]
    assert statuses[-1] == 429, statuses
    limited = requests.post(stack.base + API + "/auth/email/verify", json={"code": "a.b"})
    assert int(limited.headers["Retry-After"]) > 0


def test_links_asked_for_one_address_are_limited(stack: Stack) -> None:
    statuses = [
        requests.post(
            stack.base + API + "/auth/email", json={"email": "often@example.com"}
        ).status_code
        for _ in range(6)
    ]
    assert statuses[:5] == [202] * 5 and statuses[5] == 429


def test_tokens_have_scopes_and_are_revoked_by_their_owner(stack: Stack) -> None:
    token = sign_in(stack, "tokens@example.com")["token"]
    made = requests.post(
        stack.base + API + "/me/tokens",
        json={"name": "reader", "scopes": ["read"]},
        headers=bearer(token),
    )
    assert made.status_code == 201, made.text
    reader = made.json()["token"]
    listed = requests.get(stack.base + API + "/me/tokens", headers=bearer(token)).json()["tokens"]
    assert [t["name"] for t in listed] == ["reader"] and "token" not in listed[0]
    assert reader not in str(listed)
    assert requests.get(stack.base + API + "/me", headers=bearer(reader)).status_code == 200
    write = requests.patch(stack.base + API + "/me", json={"name": "X"}, headers=bearer(reader))
    assert write.status_code == 403 and write.json()["error"]["code"] == "insufficient_scope"
    gone = requests.delete(
        stack.base + API + f"/me/tokens/{made.json()['id']}", headers=bearer(token)
    )
    assert gone.status_code == 204
    after = requests.get(stack.base + API + "/me", headers=bearer(reader))
    assert after.status_code == 401


def test_the_browser_session_is_an_httponly_cookie_with_csrf_on_writes(stack: Stack) -> None:
    email = "cookie@example.com"
    requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    browser = requests.Session()
    code = code_in(stack.inbox.wait_for(email))
    r = browser.post(stack.base + API + "/auth/email/verify?session=cookie", json={"code": code})
    assert r.status_code == 200, r.text
    assert "token" not in r.json() and r.json()["csrf"]
    cookie = r.headers["Set-Cookie"]
    assert "chronicle_session=acct_" in cookie and "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie and "Secure" not in cookie  # plain http here
    csrf = r.json()["csrf"]
    me = browser.get(stack.base + API + "/me")
    assert me.status_code == 200 and me.json()["csrf"] == csrf
    refused = browser.patch(stack.base + API + "/me", json={"name": "Cee"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "csrf_failed"
    wrong = browser.patch(
        stack.base + API + "/me", json={"name": "Cee"}, headers={"X-CSRF-Token": "0" * 32}
    )
    assert wrong.status_code == 403
    done = browser.patch(
        stack.base + API + "/me", json={"name": "Cee"}, headers={"X-CSRF-Token": csrf}
    )
    assert done.status_code == 200 and done.json()["name"] == "Cee"
    out = browser.post(stack.base + API + "/auth/signout", headers={"X-CSRF-Token": csrf})
    assert out.status_code == 204 and "Max-Age=0" in out.headers["Set-Cookie"]
    # the old cookie stands for nothing: ignored (a guest), and cleared
    stale = requests.get(
        stack.base + API + "/me", headers={"Cookie": cookie.split(";")[0]}, timeout=10
    )
    assert stale.status_code == 401 and "Max-Age=0" in stale.headers["Set-Cookie"]


def test_seats_follow_the_account_to_another_device(stack: Stack) -> None:
    ann = sign_in(stack, "seats@example.com", "Sue")
    game = create(stack, ann["token"], [{"name": "Sue"}, {"name": "Bot", "bot": "random"}])
    gid = game["id"]
    claimed = [e for e in events(stack, gid) if e["type"] == "SeatClaimed"]
    assert [e["data"] for e in claimed] == [{"seat": 0, "player": ann["player"]["id"]}]
    # another device: a new sign-in, no seat token; the account acts for seat 0
    other = sign_in(stack, "seats@example.com")["token"]
    mine = requests.get(stack.base + API + "/me/games", headers=bearer(other)).json()["games"]
    assert [g["id"] for g in mine] == [gid] and mine[0]["seat"] == 0
    assert mine[0]["your_turn"] is True and mine[0]["status"] == "active"
    view = requests.get(stack.base + f"{API}/games/{gid}/view", headers=bearer(other)).json()
    assert view["you"] == 0
    actions = requests.get(stack.base + f"{API}/games/{gid}/actions", headers=bearer(other))
    assert actions.status_code == 200 and actions.json()["actions"], actions.text
    move = {"action": actions.json()["actions"][0], "expected_version": view["version"]}
    acted = requests.post(
        stack.base + f"{API}/games/{gid}/actions", json=move, headers=bearer(other)
    )
    assert acted.status_code == 201, acted.text
    # the seat token keeps working
    seat_token = game["seats"][0]["token"]
    by_token = requests.get(stack.base + f"{API}/games/{gid}/view", headers=bearer(seat_token))
    assert by_token.json()["you"] == 0


def test_a_guest_seat_is_claimed_with_its_token(stack: Stack) -> None:
    game = create(stack, None, [{"name": "Guest"}, {"name": "Two"}])
    gid, seat_token = game["id"], game["seats"][1]["token"]
    dee = sign_in(stack, "claim@example.com")
    r = requests.post(
        stack.base + f"{API}/games/{gid}/claim",
        json={"seat_token": seat_token},
        headers=bearer(dee["token"]),
    )
    assert r.status_code == 200, r.text
    assert r.json()["seat"] == 1 and r.json()["player"] == dee["player"]["id"]
    again = requests.post(
        stack.base + f"{API}/games/{gid}/claim",
        json={"seat_token": seat_token},
        headers=bearer(dee["token"]),
    )
    assert again.status_code == 200 and again.json()["version"] == r.json()["version"]
    eve = sign_in(stack, "claim2@example.com")
    taken = requests.post(
        stack.base + f"{API}/games/{gid}/claim",
        json={"seat_token": seat_token},
        headers=bearer(eve["token"]),
    )
    assert taken.status_code == 409, taken.text
    assert taken.json()["error"]["code"] == "seat_claimed"
    wrong = requests.post(
        stack.base + f"{API}/games/{gid}/claim",
        json={"seat_token": "nope"},
        headers=bearer(eve["token"]),
    )
    assert wrong.status_code == 401
    guest = requests.post(stack.base + f"{API}/games/{gid}/claim", json={"seat_token": seat_token})
    assert guest.status_code == 401
    claims = [e["data"] for e in events(stack, gid) if e["type"] == "SeatClaimed"]
    assert claims == [{"seat": 1, "player": dee["player"]["id"]}]


def test_my_games_put_my_turn_first_and_filter_by_status(stack: Stack) -> None:
    fay = sign_in(stack, "order@example.com")
    token = fay["token"]
    waiting = create(stack, token, [{"name": "Fay"}, {"open": True}], public=True)
    second = create(stack, token, [{"name": "Bot", "bot": "random"}, {"name": "Fay"}])
    mine = create(stack, token, [{"name": "Fay"}, {"name": "Bot", "bot": "random"}])
    games = requests.get(stack.base + API + "/me/games", headers=bearer(token)).json()["games"]
    assert {g["id"] for g in games} == {waiting["id"], second["id"], mine["id"]}
    turns = [g["your_turn"] for g in games]
    assert turns == sorted(turns, reverse=True), games  # my turn first
    assert games[0]["your_turn"] is True
    only = requests.get(
        stack.base + API + "/me/games", params={"status": "waiting"}, headers=bearer(token)
    ).json()["games"]
    assert [g["id"] for g in only] == [waiting["id"]]
    bad = requests.get(
        stack.base + API + "/me/games", params={"status": "sleeping"}, headers=bearer(token)
    )
    assert bad.status_code == 400
    # an unlisted table the account holds a seat of is in its list of games
    listed = requests.get(
        stack.base + API + "/games", params={"per_page": 100}, headers=bearer(token)
    ).json()["games"]
    assert mine["id"] in {g["id"] for g in listed}
    stranger = requests.get(stack.base + API + "/games", params={"per_page": 100}).json()
    assert mine["id"] not in {g["id"] for g in stranger["games"]}


def test_joining_while_signed_in_binds_the_seat_and_blocks_keep_players_out(stack: Stack) -> None:
    host = sign_in(stack, "host@example.com", "Host")
    pest = sign_in(stack, "pest@example.com", "Pest")
    friend = sign_in(stack, "friend@example.com", "Friend")
    r = requests.put(
        stack.base + API + f"/me/blocks/{pest['player']['id']}", headers=bearer(host["token"])
    )
    assert r.status_code == 204
    blocks = requests.get(stack.base + API + "/me/blocks", headers=bearer(host["token"])).json()
    assert blocks["blocks"] == [{"id": pest["player"]["id"], "name": "Pest"}]
    table = create(stack, host["token"], [{"name": "Host"}, {"open": True}], public=True)
    gid = table["id"]
    refused = requests.post(
        stack.base + f"{API}/games/{gid}/join", json={"name": "Pest"}, headers=bearer(pest["token"])
    )
    assert refused.status_code == 403 and refused.json()["error"]["details"]["reason"] == "blocked"
    joined = requests.post(
        stack.base + f"{API}/games/{gid}/join",
        json={"name": "Friend"},
        headers=bearer(friend["token"]),
    )
    assert joined.status_code == 201, joined.text
    claims = [e["data"] for e in events(stack, gid) if e["type"] == "SeatClaimed"]
    assert claims == [
        {"seat": 0, "player": host["player"]["id"]},
        {"seat": 1, "player": friend["player"]["id"]},
    ]


def test_a_blocked_players_chat_is_hidden_for_the_one_who_blocked(stack: Stack) -> None:
    gus = sign_in(stack, "gus@example.com", "Gus")
    hal = sign_in(stack, "hal@example.com", "Hal")
    game = create(stack, gus["token"], [{"name": "Gus"}, {"name": "Hal"}])
    gid = game["id"]
    requests.post(
        stack.base + f"{API}/games/{gid}/claim",
        json={"seat_token": game["seats"][1]["token"]},
        headers=bearer(hal["token"]),
    ).raise_for_status()
    said = requests.post(
        stack.base + f"{API}/games/{gid}/chat",
        json={"text": "you will lose"},
        headers=bearer(hal["token"]),
    )
    assert said.status_code == 201, said.text
    read = requests.get(stack.base + f"{API}/games/{gid}/chat", headers=bearer(gus["token"]))
    assert read.json()["lines"][0]["text"] == "you will lose"
    requests.put(
        stack.base + API + f"/me/blocks/{hal['player']['id']}", headers=bearer(gus["token"])
    ).raise_for_status()
    line = requests.get(
        stack.base + f"{API}/games/{gid}/chat", headers=bearer(gus["token"])
    ).json()["lines"][0]
    assert line["blocked"] is True and "text" not in line
    # with the seat token (no account) the line reads as before
    plain = requests.get(
        stack.base + f"{API}/games/{gid}/chat", headers=bearer(game["seats"][0]["token"])
    ).json()["lines"][0]
    assert plain["text"] == "you will lose"


def test_a_profile_is_public_and_never_holds_the_email(stack: Stack) -> None:
    ivy = sign_in(stack, "ivy.private@example.com", "Ivy")
    game = create(stack, ivy["token"], [{"name": "Ivy"}, {"name": "Bot", "bot": "random"}])
    profile = requests.get(stack.base + API + f"/players/{ivy['player']['id']}").json()
    assert profile == {"id": ivy["player"]["id"], "name": "Ivy", "games": 1, "ratings": {}}
    gid = game["id"]
    texts = [
        requests.get(stack.base + f"{API}/games/{gid}{path}", headers=bearer(ivy["token"])).text
        for path in ("", "/view", "/events", "/audit", "/export", "/chat")
    ]
    texts.append(requests.get(stack.base + API + "/games", headers=bearer(ivy["token"])).text)
    assert all(t and "ivy.private" not in t for t in texts)
    missing = requests.get(stack.base + API + "/players/nobody")
    assert missing.status_code == 404


def test_deleting_the_account_keeps_the_games_without_the_email(stack: Stack) -> None:
    email = "leaving@example.com"
    jo = sign_in(stack, email, "Jo")
    game = create(stack, jo["token"], [{"name": "Jo"}, {"name": "Bot", "bot": "random"}])
    gone = requests.delete(stack.base + API + "/me", headers=bearer(jo["token"]))
    assert gone.status_code == 204
    assert requests.get(stack.base + API + "/me", headers=bearer(jo["token"])).status_code == 401
    assert requests.get(stack.base + API + f"/players/{jo['player']['id']}").status_code == 404
    summary = requests.get(stack.base + f"{API}/games/{game['id']}").json()
    assert summary["seats"][0]["name"] == "Jo"
    assert any(e["type"] == "SeatClaimed" for e in events(stack, game["id"]))
    # the address is free again: its next sign-in makes a new account
    assert sign_in(stack, email)["player"]["id"] != jo["player"]["id"]


def test_no_email_reaches_the_api_log(
    stack: Stack, tmp_path_factory: pytest.TempPathFactory
) -> None:
    sign_in(stack, "logged.never@example.com")
    time.sleep(0.5)  # the log line is written after the answer
    logs = list(Path(tmp_path_factory.getbasetemp()).glob("accounts*/api.log"))
    assert logs, "the stack's API log"
    assert all("logged.never" not in log.read_text(errors="replace") for log in logs)


def test_a_passkey_added_on_one_device_signs_in_on_another(stack: Stack) -> None:
    """A software authenticator at the API level (Chromium's virtual one in the browser
    tests): register while signed in by email, then sign in with no email at all."""
    kim = sign_in(stack, "kim@example.com", "Kim")
    device = Authenticator()
    options = requests.post(
        stack.base + API + "/auth/passkey/register-options", headers=bearer(kim["token"])
    )
    assert options.status_code == 200, options.text
    assert options.json()["rp"]["id"] == "localhost"
    made = requests.post(
        stack.base + API + "/auth/passkey/register",
        json=device.register(options.json(), stack.public),
        headers=bearer(kim["token"]),
    )
    assert made.status_code == 201, made.text
    listed = requests.get(stack.base + API + "/me/passkeys", headers=bearer(kim["token"]))
    assert [p["id"] for p in listed.json()["passkeys"]] == [made.json()["id"]]
    asked = requests.post(stack.base + API + "/auth/passkey/options").json()
    signed = requests.post(
        stack.base + API + "/auth/passkey/verify", json=device.sign_in(asked, stack.public)
    )
    assert signed.status_code == 200, signed.text
    assert signed.json()["player"] == {"id": kim["player"]["id"], "name": "Kim"}
    me = requests.get(stack.base + API + "/me", headers=bearer(signed.json()["token"]))
    assert me.json()["email"] == "kim@example.com"
    # the same assertion again: its challenge was used
    replay = requests.post(
        stack.base + API + "/auth/passkey/verify", json=device.sign_in(asked, stack.public)
    )
    assert replay.status_code == 401
    # signed out, nobody adds a passkey
    anon = requests.post(stack.base + API + "/auth/passkey/register-options")
    assert anon.status_code == 401
    junk = requests.post(stack.base + API + "/auth/passkey/verify", json={"id": 3})
    assert junk.status_code == 400
