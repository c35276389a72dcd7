"""Notices to people by email (contract: v2 additions, Notices to people) through the served
API, a real worker and a real SMTP server: one "your turn" mail per turn that another seat's
move begins, none with the kind off or in quiet hours, a "game over" mail, nothing in a mail
that the seat may not see (another seat's hand, another player's email, a token), and the
RFC 8058 one-click unsubscribe that needs no sign-in (GET changes nothing)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from email.message import Message
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
import redis
import requests

from service import notices
from service.card_words import card_words
from service.notice_text import listed
from tests.support.accounts import Stack, accounts_stack
from tests.support.smtp import code_in

API = "/api/v1"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("notices")) as found:
        yield found


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sign_in(stack: Stack, email: str, name: str) -> dict[str, Any]:
    before = len(stack.inbox.to(email))
    r = requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    assert r.status_code == 202, r.text
    code = code_in(stack.inbox.wait_for(email, before + 1))
    r = requests.post(
        stack.base + API + "/auth/email/verify", json={"code": code, "name": name}, timeout=10
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def patch_me(stack: Stack, token: str, body: dict[str, Any]) -> requests.Response:
    return requests.patch(stack.base + API + "/me", json=body, headers=bearer(token), timeout=10)


def me(stack: Stack, token: str) -> dict[str, Any]:
    r = requests.get(stack.base + API + "/me", headers=bearer(token), timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


class Table:
    """A guest's two-seat Artus game (Bob at seat 0, the account's person at seat 1), played
    through the API with the seats' tokens."""

    def __init__(self, stack: Stack, account_token: str, seed: int, **extra: Any) -> None:
        """``extra``: more creation fields (``turn_time``)."""
        self.stack, self.rng = stack, random.Random(seed)
        body: dict[str, Any] = {
            "game": "artus",
            "players": [{"name": "Bob"}, {"name": "Ann"}],
            **extra,
        }
        r = requests.post(stack.base + API + "/games", json=body, timeout=10)
        assert r.status_code == 201, r.text
        self.id, self.host = r.json()["id"], r.json()["host_token"]
        self.tokens = {s["seat"]: s["token"] for s in r.json()["seats"]}
        claimed = requests.post(
            f"{stack.base}{API}/games/{self.id}/claim",
            json={"seat_token": self.tokens[1]},
            headers=bearer(account_token),
            timeout=10,
        )
        assert claimed.status_code == 200, claimed.text

    def view(self, seat: int) -> dict[str, Any]:
        r = requests.get(
            f"{self.stack.base}{API}/games/{self.id}/view",
            headers=bearer(self.tokens[seat]),
            timeout=10,
        )
        assert r.status_code == 200, r.text
        return dict(r.json())

    def move(self, seat: int) -> dict[str, Any]:
        """One legal move of ``seat``; the game's view after it."""
        r = requests.get(
            f"{self.stack.base}{API}/games/{self.id}/actions",
            headers=bearer(self.tokens[seat]),
            timeout=10,
        )
        found = r.json()
        body = {"action": self.rng.choice(found["actions"]), "expected_version": found["version"]}
        r = requests.post(
            f"{self.stack.base}{API}/games/{self.id}/actions",
            json=body,
            headers=bearer(self.tokens[seat]),
            timeout=10,
        )
        assert r.status_code == 201, r.text
        return self.view(0)

    def undo(self, token: str, to_version: int | None = None) -> requests.Response:
        body = {} if to_version is None else {"to_version": to_version}
        return requests.post(
            f"{self.stack.base}{API}/games/{self.id}/undo",
            json=body,
            headers=bearer(token),
            timeout=10,
        )

    def to_turn(self, seat: int = 1) -> int | None:
        """Play until a move of the other seat makes it ``seat``'s turn: the version then
        (None: the game ended first)."""
        view = self.view(0)
        while view["to_act"]:
            mover = view["to_act"][0]
            view = self.move(mover)
            if mover != seat and seat in view["to_act"]:
                return int(view["version"])
        return None


def job_result(stack: Stack, gid: str, seat: int, kind: str, marker: int, tail: str = "") -> Any:
    """What the notice of that turn came to, once the worker has done with it (``tail``:
    ``-undone``, a turn an undo handed back)."""
    connection = redis.Redis.from_url(stack.redis_url)
    key = notices.done_key(notices.job_id(gid, seat, kind, marker) + tail)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done = connection.get(key)
        if isinstance(done, bytes):
            return done.decode()
        time.sleep(0.05)
    raise AssertionError("the notice was not done with")


def forget_jobs(stack: Stack, gid: str) -> None:
    """Drop what the game's notices came to, so that ``job_result`` waits for the next ones
    (a notice of the same turn again has the same id: the old outcome would answer first)."""
    connection = redis.Redis.from_url(stack.redis_url)
    for key in connection.scan_iter(match=notices.done_key(f"notice-{gid}-*")):
        connection.delete(key)


def hand_said(cards: list[str], lang: str = "en") -> str:
    """A hand as a notice says it: the page's words for each card, listed the language's way."""
    return listed(lang, [card_words("artus", card, lang) for card in cards])


def hand_line(text: str) -> str:
    """The cards of the mail's "Your hand: ..." line."""
    line = next(line for line in text.splitlines() if line.startswith("Your hand: "))
    return line.removeprefix("Your hand: ").removesuffix(".")


def parts(message: Message) -> dict[str, str]:
    out = {}
    for part in message.walk():
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            out[part.get_content_type()] = payload.decode()
    return out


def whole(message: Message) -> str:
    """Everything a reader of the mail gets: headers and every part."""
    return str(message.items()) + "\n".join(parts(message).values())


def test_a_turn_begun_by_another_seat_is_mailed_once_and_shows_only_the_seats_own(
    stack: Stack,
) -> None:
    ann = sign_in(stack, "ann-notices@example.com", "Ann")
    bob = sign_in(stack, "bob-notices@example.com", "Bob")  # email off: the default
    assert patch_me(stack, ann["token"], {"notifications": {"email": True}}).status_code == 200
    table = Table(stack, ann["token"], seed=1)
    requests.post(
        f"{stack.base}{API}/games/{table.id}/claim",
        json={"seat_token": table.tokens[0]},
        headers=bearer(bob["token"]),
        timeout=10,
    ).raise_for_status()
    address = "ann-notices@example.com"
    for turn in (1, 2, 3):
        marker = table.to_turn()
        assert marker is not None
        message = stack.inbox.wait_for(address, turn + 1)  # after the sign-in mail
        assert job_result(stack, table.id, 1, "your_turn", marker) == "sent"
        text = parts(message)["text/plain"]
        assert message["Subject"] == "Your turn in Artus"
        assert f"{stack.public}/play/{table.id}" in text and "Bob" in text
        assert f"version {marker}" in text
        # her own hand is in it, named as the page names cards, and Bob's is not; no email
        # but hers, no token
        mine, his = table.view(1)["state"]["hand"], table.view(0)["state"]["hand"]
        assert hand_line(text) == hand_said(mine)
        assert his and not any(card in whole(message) for card in mine + his), "no card ids"
        assert hand_said(his) == hand_said(mine) or hand_said(his) not in whole(message)
        assert "bob-notices@" not in whole(message) and "acct_" not in whole(message)
        assert not any(token in whole(message) for token in table.tokens.values())
        assert 'href="' in parts(message)["text/html"]
        # her turn goes on over several appends and ends: still one mail for it
        while 1 in table.view(0)["to_act"]:
            table.move(1)
        assert len(stack.inbox.to(address)) == turn + 1
    to_bob = stack.inbox.to("bob-notices@example.com")
    assert [m["Subject"] for m in to_bob] == ["Sign in to Chronicle"], "his email is off"


def test_one_click_unsubscribe_needs_no_sign_in_and_get_changes_nothing(stack: Stack) -> None:
    eve = sign_in(stack, "eve-notices@example.com", "Eve")
    patch_me(stack, eve["token"], {"notifications": {"email": True}}).raise_for_status()
    table = Table(stack, eve["token"], seed=2)
    assert table.to_turn() is not None
    message = stack.inbox.wait_for("eve-notices@example.com", 2)  # after the sign-in mail
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = message["List-Unsubscribe"]
    assert link.startswith(f"<{stack.public}{API}/unsubscribe?t=") and link.endswith(">")
    url = stack.base + urlsplit(link[1:-1]).path + "?" + urlsplit(link[1:-1]).query
    looked = requests.get(url, timeout=10)
    assert looked.status_code == 200 and looked.json()["method"] == "POST"
    assert me(stack, eve["token"])["notifications"]["your_turn"] is True, "GET changed nothing"
    forged = requests.post(url[:-4] + "0000", timeout=10)
    assert forged.status_code == 400 and forged.json()["error"]["code"] == "bad_request"
    # a mail program's one-click POST: a form body, no credentials (a stale cookie ignored)
    done = requests.post(
        url,
        data="List-Unsubscribe=One-Click",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "chronicle_session=acct_stale",
        },
        timeout=10,
    )
    assert done.status_code == 200, done.text
    assert done.json() == {"kind": "your_turn", "email": True}
    settings = me(stack, eve["token"])["notifications"]
    assert settings["your_turn"] is False and settings["game_over"] is True
    # Eve's turn ends, the next one begins: nothing mailed
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    marker = table.to_turn()
    assert marker is not None
    assert job_result(stack, table.id, 1, "your_turn", marker) == "off"
    assert len(stack.inbox.to("eve-notices@example.com")) == 2


def test_nothing_is_mailed_in_quiet_hours(stack: Stack) -> None:
    cy = sign_in(stack, "cy-notices@example.com", "Cy")
    zone = "Asia/Tokyo"
    now = datetime.now(ZoneInfo(zone))
    quiet = {
        "from": (now - timedelta(hours=1)).strftime("%H:%M"),
        "to": (now + timedelta(hours=1)).strftime("%H:%M"),
    }
    change = {"timezone": zone, "notifications": {"email": True, "quiet_hours": quiet}}
    assert patch_me(stack, cy["token"], change).status_code == 200
    table = Table(stack, cy["token"], seed=3)
    marker = table.to_turn()
    assert marker is not None
    assert job_result(stack, table.id, 1, "your_turn", marker) == "quiet hours"
    assert len(stack.inbox.to("cy-notices@example.com")) == 1  # the sign-in mail only


def test_the_end_of_a_game_is_mailed_with_the_kind_on(stack: Stack) -> None:
    dee = sign_in(stack, "dee-notices@example.com", "Dee")
    change = {"notifications": {"email": True, "your_turn": False}}
    assert patch_me(stack, dee["token"], change).status_code == 200
    table = Table(stack, dee["token"], seed=4)
    assert table.to_turn(seat=2) is None  # no seat 2: plays the whole game
    message = stack.inbox.wait_for("dee-notices@example.com", 2)
    assert message["Subject"] == "Artus is over"
    text = parts(message)["text/plain"]
    result = table.view(0)["result"]
    winners = {0: "Bob", 1: "Ann"}
    assert f"Won by {' and '.join(winners[w] for w in result['winners'])}" in text
    assert f"Ann {result['scores']['1']}" in text
    assert message["List-Unsubscribe"] and "t=" in message["List-Unsubscribe"]
    assert len(stack.inbox.to("dee-notices@example.com")) == 2, "no 'your turn' mail"


def test_notice_settings_are_validated(stack: Stack) -> None:
    fay = sign_in(stack, "fay-notices@example.com", "Fay")
    token = fay["token"]
    whole_shape = me(stack, token)["notifications"]
    assert whole_shape == {
        "email": False,
        "push": False,
        "your_turn": True,
        "reminders": None,
        "digest": False,
        "game_over": True,
        "invitations": True,
        "quiet_hours": None,
    }
    for bad in (
        {"timezone": "Mars/Olympus"},
        {"timezone": "../etc/passwd"},
        {"notifications": {"quiet_hours": {"from": "25:00", "to": "08:00"}}},
        {"notifications": {"quiet_hours": {"from": "22:00"}}},
        {"notifications": {"reminders": "twelve hours"}},
        {"notifications": {"reminders": "P"}},
        {"notifications": {"email": "yes please"}},
        {"notifications": {"sms": True}},
    ):
        r = patch_me(stack, token, bad)
        assert r.status_code == 400, (bad, r.text)
        assert r.json()["error"]["code"] == "bad_request"
    assert me(stack, token)["notifications"] == whole_shape and me(stack, token)["timezone"] is None
    ok = patch_me(
        stack,
        token,
        {"timezone": "Europe/Paris", "notifications": {"reminders": "PT12H", "digest": True}},
    )
    assert ok.status_code == 200, ok.text
    assert ok.json()["timezone"] == "Europe/Paris"
    assert ok.json()["notifications"] == {**whole_shape, "reminders": "PT12H", "digest": True}
    cleared = patch_me(stack, token, {"notifications": {"reminders": None}})
    assert cleared.json()["notifications"]["reminders"] is None


def test_a_turn_an_undo_hands_back_is_mailed_once_and_not_to_the_undoer(stack: Stack) -> None:
    gil = sign_in(stack, "gil-notices@example.com", "Gil")
    assert patch_me(stack, gil["token"], {"notifications": {"email": True}}).status_code == 200
    address = "gil-notices@example.com"
    table = Table(stack, gil["token"], seed=5, options={"undo": "host"})
    mid = None
    for _ in range(40):  # a turn of hers with more than one move: a version inside it
        marker = table.to_turn()
        if marker is None:  # the game ended first: another
            table = Table(stack, gil["token"], seed=8, options={"undo": "host"})
            continue
        job_result(stack, table.id, 1, "your_turn", marker)  # its notice is done with
        after = table.move(1)
        if 1 in after["to_act"]:
            mid = int(after["version"])
            break
    assert mid is not None, "no turn of two moves"
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    mailed = len(stack.inbox.to(address))
    # the host hands her turn back: one mail for it, however often it is handed back
    forget_jobs(stack, table.id)
    assert table.undo(table.host, mid).status_code == 200
    assert job_result(stack, table.id, 1, "your_turn", mid, "-undone") == "sent"
    message = stack.inbox.wait_for(address, mailed + 1)
    assert message["Subject"] == "Your turn in Artus"
    assert f"version {mid}" in parts(message)["text/plain"]
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    forget_jobs(stack, table.id)
    assert table.undo(table.host, mid).status_code == 200
    assert job_result(stack, table.id, 1, "your_turn", mid, "-undone") == "sent before"
    assert len(stack.inbox.to(address)) == mailed + 1


def test_the_seat_that_undoes_its_own_move_is_not_mailed(stack: Stack) -> None:
    hal = sign_in(stack, "hal-notices@example.com", "Hal")
    assert patch_me(stack, hal["token"], {"notifications": {"email": True}}).status_code == 200
    address = "hal-notices@example.com"
    table = Table(stack, hal["token"], seed=6)  # undo policy "turn": one's own last move
    for _ in range(40):
        marker = table.to_turn()
        if marker is None:  # the game ended first: another
            table = Table(stack, hal["token"], seed=7)
            continue
        job_result(stack, table.id, 1, "your_turn", marker)  # its notice is done with
        while 1 in table.view(0)["to_act"]:
            table.move(1)
        forget_jobs(stack, table.id)
        undone = table.undo(table.tokens[1])
        if undone.status_code == 200:
            break
        reason = undone.json()["error"]["details"]["reason"]
        assert reason in ("hidden_information_revealed", "game_finished"), reason
    else:
        raise AssertionError("no turn of hers ended by a move that may be undone")
    mailed = len(stack.inbox.to(address))
    target = int(undone.json()["version"])
    assert 1 in table.view(0)["to_act"]
    assert job_result(stack, table.id, 1, "your_turn", target, "-undone") == "own undo"
    time.sleep(1)
    assert len(stack.inbox.to(address)) == mailed
