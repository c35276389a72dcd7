"""Invitations (``POST /games/{id}/invitations``, ``docs/contract.md``) through the served API,
a real worker and a real SMTP server: the host invites an account to an open seat, the log
says so (``SeatInvited``), the account is mailed the seat's link and joins with it; the
refusals (not the host, a host not signed in, a block, no such player, a taken seat) append
nothing; an account with invitations off is invited but sent nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.test_notices import bearer, job_result, parts, patch_me, sign_in, whole
from tests.support.accounts import Stack, accounts_stack

API = "/api/v1"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("invitations")) as found:
        yield found


def create(stack: Stack, token: str | None, players: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"game": "artus", "players": players}
    headers = bearer(token) if token else {}
    r = requests.post(stack.base + API + "/games", json=body, headers=headers, timeout=10)
    assert r.status_code == 201, r.text
    return dict(r.json())


def invite(stack: Stack, gid: str, token: str, seat: int, player: str) -> requests.Response:
    return requests.post(
        f"{stack.base}{API}/games/{gid}/invitations",
        json={"seat": seat, "player": player},
        headers=bearer(token),
        timeout=10,
    )


def events(stack: Stack, gid: str, token: str) -> list[dict[str, Any]]:
    r = requests.get(f"{stack.base}{API}/games/{gid}/events", headers=bearer(token), timeout=10)
    assert r.status_code == 200, r.text
    return list(r.json()["events"])


def test_an_invited_account_is_mailed_the_seats_link_and_joins_with_it(stack: Stack) -> None:
    host = sign_in(stack, "host-invitations@example.com", "Hana")
    ivy = sign_in(stack, "ivy-invitations@example.com", "Ivy")
    assert patch_me(stack, ivy["token"], {"notifications": {"email": True}}).ok
    table = create(stack, host["token"], [{"name": "Hana"}, {"open": True}])
    gid, host_token = table["id"], table["host_token"]
    first_link = table["invitations"][0]["code"]
    r = invite(stack, gid, host_token, 1, ivy["player"]["id"])
    assert r.status_code == 202, r.text
    version = r.json()["version"]
    assert r.json() == {"seat": 1, "player": ivy["player"]["id"], "version": version}
    invited = [e for e in events(stack, gid, host_token) if e["type"] == "SeatInvited"]
    assert [e["data"] for e in invited] == [{"seat": 1, "player": ivy["player"]["id"]}]
    assert job_result(stack, gid, 1, "invitation", version) == "sent"
    message = stack.inbox.wait_for("ivy-invitations@example.com", 2)  # after the sign-in mail
    assert message["Subject"] == "Hana invites you to Artus"
    text = parts(message)["text/plain"]
    found = re.search(rf"{re.escape(stack.public)}/join/{gid}#invitation=([\w-]+)", text)
    assert found, text
    assert "host-invitations@" not in whole(message) and host_token not in whole(message)
    assert message["List-Unsubscribe"] and ".invitations." in message["List-Unsubscribe"]
    # the seat is Ivy's now: the link of the seat made at creation no longer takes it
    old = requests.post(
        f"{stack.base}{API}/games/{gid}/join",
        json={"name": "Someone", "invitation": first_link},
        timeout=10,
    )
    assert old.status_code == 403, old.text
    joined = requests.post(
        f"{stack.base}{API}/games/{gid}/join",
        json={"name": "Ivy", "invitation": found.group(1)},
        headers=bearer(ivy["token"]),
        timeout=10,
    )
    assert joined.status_code == 201, joined.text
    claims = [e["data"] for e in events(stack, gid, host_token) if e["type"] == "SeatClaimed"]
    assert {"seat": 1, "player": ivy["player"]["id"]} in claims


def test_refused_invitations_append_nothing(stack: Stack) -> None:
    host = sign_in(stack, "host2-invitations@example.com", "Hal")
    jo = sign_in(stack, "jo-invitations@example.com", "Jo")
    kit = sign_in(stack, "kit-invitations@example.com", "Kit")
    table = create(stack, host["token"], [{"name": "Hal"}, {"open": True}])
    gid, host_token = table["id"], table["host_token"]
    seat_token = table["seats"][0]["token"]
    before = len(events(stack, gid, host_token))
    jo_id, kit_id = jo["player"]["id"], kit["player"]["id"]
    requests.put(
        f"{stack.base}{API}/me/blocks/{host['player']['id']}",
        headers=bearer(kit["token"]),
        timeout=10,
    ).raise_for_status()
    guest = create(stack, None, [{"name": "G"}, {"open": True}])

    def reason(r: requests.Response) -> str:
        return str(r.json()["error"]["details"].get("reason"))

    refusals = [
        (invite(stack, gid, seat_token, 1, jo_id), 403, "forbidden", "not_host"),
        (invite(stack, gid, host_token, 1, kit_id), 403, "forbidden", "blocked"),
        (invite(stack, gid, host_token, 1, "nobody"), 404, "not_found", None),
        (invite(stack, gid, host_token, 0, jo_id), 409, "seat_taken", None),
        (invite(stack, gid, host_token, 5, jo_id), 400, "bad_request", None),
        (invite(stack, gid, host_token, 1, host["player"]["id"]), 400, "bad_request", None),
    ]
    for r, status, code, why in refusals:
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == code
        if why:
            assert reason(r) == why
        assert "@" not in r.text
    not_signed = invite(stack, guest["id"], guest["host_token"], 1, jo_id)
    assert not_signed.status_code == 403 and reason(not_signed) == "host_not_signed_in"
    assert len(events(stack, gid, host_token)) == before
    assert stack.inbox.to("kit-invitations@example.com")[-1]["Subject"] != "Hal invites you"


def test_an_account_with_invitations_off_is_invited_and_sent_nothing(stack: Stack) -> None:
    host = sign_in(stack, "host3-invitations@example.com", "Hop")
    lu = sign_in(stack, "lu-invitations@example.com", "Lu")
    assert patch_me(stack, lu["token"], {"notifications": {"email": True, "invitations": False}}).ok
    table = create(stack, host["token"], [{"name": "Hop"}, {"open": True}])
    r = invite(stack, table["id"], table["host_token"], 1, lu["player"]["id"])
    assert r.status_code == 202, r.text
    assert job_result(stack, table["id"], 1, "invitation", r.json()["version"]) == "off"
    assert len(stack.inbox.to("lu-invitations@example.com")) == 1  # the sign-in mail only
