"""The typed client (``chronicle_client``) speaks the contract's "v2 additions: people" against
a real stack (its own Redis, a real SMTP server, the served API and a worker): sign-in by a
mailed code, the account's calls and tokens, a guest seat claimed, blocks, a vacation that
changes the clocks, an invitation, a rated game counted and reviewed, and refusals in Japanese
with the codes of English."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from chronicle_client import ApiError, Client
from chronicle_client.types import TimeControl
from tests.support.accounts import Stack, accounts_stack
from tests.support.smtp import code_in

ITERATIONS = 20  # review search iterations per decision: a quick review


def japanese_char(ch: str) -> bool:
    """Kana or a CJK ideograph."""
    return "\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"CHRONICLE_REVIEW_ITERATIONS": str(ITERATIONS), "CHRONICLE_REVIEW_SLICE_SECONDS": "0.2"}
    with accounts_stack(tmp_path_factory.mktemp("client_people"), **env) as found:
        yield found


def signed_in(stack: Stack, email: str, name: str | None = None) -> Client:
    """Sign in through the client's own calls: ask for the mail, read its code, verify."""
    api = Client(stack.base)
    before = len(stack.inbox.to(email))
    api.ask_email_code(email)
    code = code_in(stack.inbox.wait_for(email, before + 1))
    answer = api.verify_email_code(code, name=name)
    assert answer["token"].startswith("acct_")
    if name is not None:
        assert answer["player"]["name"] == name
    return api.as_token(answer["token"])


def test_sign_in_the_account_and_its_tokens(stack: Stack) -> None:
    ann = signed_in(stack, "client-ann@example.com", "Ann")
    me = ann.me()
    assert me["name"] == "Ann" and me["email"] == "client-ann@example.com"
    changed = ann.update_me(name="Annie", locale="ja", notifications={"digest": True})
    assert changed["name"] == "Annie" and changed["locale"] == "ja"
    assert changed["notifications"]["digest"] is True and changed["notifications"]["game_over"]
    assert ann.player(me["id"]) == {"id": me["id"], "name": "Annie", "games": 0, "ratings": {}}
    with pytest.raises(ApiError) as missing:
        ann.player("nosuchplayer")
    assert missing.value.status == 404

    made = ann.new_token("reader", ["read"])
    listed = ann.tokens()
    assert [t["name"] for t in listed] == ["reader"] and listed[0]["scopes"] == ["read"]
    assert made["token"] not in str(listed)
    reader = ann.as_token(made["token"])
    assert reader.me()["id"] == me["id"]
    with pytest.raises(ApiError) as refused:
        reader.update_me(name="X")
    assert refused.value.status == 403 and refused.value.code == "insufficient_scope"
    ann.revoke_token(made["id"])
    assert ann.tokens() == []
    with pytest.raises(ApiError) as revoked:
        reader.me()
    assert revoked.value.status == 401


def test_a_guest_seat_is_claimed_listed_and_blocks_are_kept(stack: Stack) -> None:
    bob = signed_in(stack, "client-bob@example.com", "Bob")
    guest = Client(stack.base)
    created = guest.create("artus", [{"name": "Bob"}, {"name": "Bot", "bot": "random"}])
    gid, seat_token = created["id"], created["seats"][0]["token"]
    assert bob.my_games() == []
    claimed = bob.claim(gid, seat_token)
    bob_id = bob.me()["id"]
    assert claimed["seat"] == 0 and claimed["player"] == bob_id
    assert bob.claim(gid, seat_token) == claimed  # again: the same answer, nothing appended
    assert guest.summary(gid)["seats"][0].get("player") == bob_id
    mine = bob.my_games()
    assert [(g["id"], g["seat"]) for g in mine] == [(gid, 0)]
    assert bob.my_games(status="finished") == []
    assert bob.player(bob_id)["games"] == 1

    cy = signed_in(stack, "client-cy@example.com", "Cy")
    cy_id = cy.me()["id"]
    bob.block(cy_id)
    assert bob.blocks() == [{"id": cy_id, "name": "Cy"}]
    bob.unblock(cy_id)
    assert bob.blocks() == []


def test_a_vacation_stops_the_seats_clock_and_ends_early(stack: Stack) -> None:
    api = Client(stack.base)
    control: TimeControl = {"per_turn": "P1D", "vacation": "P5D"}
    created = api.create(
        "artus", [{"name": "A"}, {"name": "B"}], time_control=control, timezone="Asia/Tokyo"
    )  # fmt: skip
    gid = created["id"]
    summary = api.summary(gid)
    assert summary["time_control"] == control and summary["timezone"] == "Asia/Tokyo"
    clocks = summary["clocks"]
    assert set(clocks) == {"0", "1"} and not any("vacation_until" in c for c in clocks.values())
    waiting = 1 - summary["to_act"][0]
    seat = api.as_token(created["seats"][waiting]["token"])
    away = seat.vacation(gid, 2)
    assert away["seat"] == waiting and away["until"]
    assert api.summary(gid)["clocks"][str(waiting)]["vacation_until"] == away["until"]
    assert seat.view(gid)["clocks"][str(waiting)]["vacation_until"] == away["until"]
    with pytest.raises(ApiError) as twice:
        seat.vacation(gid, 1)
    assert twice.value.status == 409 and twice.value.code == "on_vacation"
    back = seat.end_vacation(gid)
    assert back["seat"] == waiting and back["version"] > away["version"]
    assert "vacation_until" not in api.summary(gid)["clocks"][str(waiting)]
    types = [e["type"] for e in api.events(gid)["events"]]
    assert "VacationStarted" in types and "VacationEnded" in types


def test_the_host_invites_an_account_to_an_open_seat(stack: Stack) -> None:
    hana = signed_in(stack, "client-hana@example.com", "Hana")
    ivy = signed_in(stack, "client-ivy@example.com", "Ivy")
    table = hana.create("artus", [{"name": "Hana"}, {"open": True}])
    gid = table["id"]
    host = hana.as_token(table["host_token"])
    ivy_id = ivy.me()["id"]
    invited = host.invite(gid, 1, ivy_id)
    assert invited["seat"] == 1 and invited["player"] == ivy_id
    logged = [e for e in host.events(gid)["events"] if e["type"] == "SeatInvited"]
    assert [e["data"] for e in logged] == [{"seat": 1, "player": ivy_id}]
    with pytest.raises(ApiError) as not_host:
        ivy.invite(gid, 1, ivy_id)
    assert not_host.value.status == 403 and not_host.value.details["reason"] == "not_host"


def play_to_the_end(api: Client, gid: str, seed: int) -> None:
    """Random legal moves for seat 0 (the account's); the worker plays the bot's."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 120
    while (summary := api.summary(gid))["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not finish"
        if 0 not in summary["to_act"]:
            api.events(gid, after=summary["version"], wait=2)
            continue
        listed = api.actions(gid)
        if listed["actions"]:
            api.act(gid, rng.choice(listed["actions"]), listed["version"])


def test_a_rated_game_is_counted_and_reviewed(stack: Stack) -> None:
    dee = signed_in(stack, "client-dee@example.com", "Dee")
    dee_id = dee.me()["id"]
    created = dee.create(
        "artus",
        [{"name": "Dee"}, {"name": "g", "bot": "greedy"}],
        options={"rules": "basic"},
        rated=True,
    )
    gid = created["id"]
    with pytest.raises(ApiError) as early:
        dee.ask_review(gid, 0)
    assert early.value.status == 409 and early.value.code == "game_not_finished"
    play_to_the_end(dee, gid, seed=7)

    deadline = time.monotonic() + 60
    while True:  # the worker counts the game a moment after its end
        try:
            counted = dee.game_ratings(gid)
            break
        except ApiError as missing:
            assert missing.status == 404 and time.monotonic() < deadline
            time.sleep(0.2)
    assert counted["game"] == "artus"
    assert {c["player"] for c in counted["changes"]} == {dee_id, "bot:greedy"}
    board = Client(stack.base).ratings("artus", limit=10)
    assert {r["player"] for r in board} == {dee_id, "bot:greedy"}
    assert all(r["games"] == 1 and r["provisional"] for r in board)
    mine = next(c for c in counted["changes"] if c["player"] == dee_id)
    assert next(r for r in board if r["player"] == dee_id)["ordinal"] == mine["after"]["ordinal"]
    assert dee.my_games("finished")[0]["rating"]["after"] == mine["after"]["ordinal"]
    assert dee.player(dee_id)["ratings"]["artus"]["games"] == 1

    review = dee.wait_review(gid, 0, timeout=120)
    assert review["status"] == "done" and review["decisions"]
    for decision in review["decisions"]:
        assert decision["swing"] == pytest.approx(
            max(0.0, decision["value_best"] - decision["value_played"]), abs=1e-3
        )
    assert dee.ask_review(gid, 0) == {"status": "done"}  # asked again: nothing more queued
    with pytest.raises(ApiError) as other:
        Client(stack.base).review(gid, 0)  # a spectator
    assert other.value.status == 403 and other.value.details["reason"] == "not_your_seat"


def test_japanese_answers_keep_their_codes(stack: Stack) -> None:
    english = Client(stack.base)
    japanese = Client(stack.base, language="ja")
    refusals: dict[str, ApiError] = {}
    for lang, api in (("en", english), ("ja", japanese)):
        with pytest.raises(ApiError) as missing:
            api.summary("nosuchgame")
        refusals[lang] = missing.value
    assert refusals["en"].code == refusals["ja"].code == "not_found"
    assert refusals["en"].status == refusals["ja"].status == 404
    assert refusals["ja"].message != refusals["en"].message
    assert any(japanese_char(ch) for ch in refusals["ja"].message), refusals["ja"].message

    # a refused move: the rule's id, then its title in the Japanese rules
    created = japanese.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    seat = japanese.summary(gid)["to_act"][0]
    me = japanese.as_token(created["seats"][seat]["token"])
    assert me.language == "ja"  # as_token keeps the language
    with pytest.raises(ApiError) as illegal:
        me.act(gid, {"type": "place_knight", "seat": 0}, me.actions(gid)["version"])
    assert illegal.value.code == "illegal_action" and illegal.value.message.startswith("AR-")
    assert any(japanese_char(ch) for ch in illegal.value.message), illegal.value.message
