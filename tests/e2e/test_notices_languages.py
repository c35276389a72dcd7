# ruff: noqa: RUF001  (the Japanese and Chinese texts use full-width punctuation)
"""Notices in the account's language (contract: v2 additions, Languages and Notices to people)
through the served API, a real worker, a real SMTP server and a real push service on loopback:
an account whose ``locale`` is ``ja`` gets a Japanese your-turn mail (subject, text and HTML
parts, ``Content-Language: ja``, ``<html lang="ja">``), one in ``zh-TW`` a Traditional Chinese
game-over mail while the English player of the same table gets English, and a push's title and
body follow the account's language too."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.header import decode_header, make_header
from email.message import Message

import pytest
import requests

from service.card_words import card_words
from tests.e2e.test_notices import Table, bearer, job_result, parts, patch_me, sign_in, whole
from tests.e2e.test_push import subscribe
from tests.support.accounts import Stack, accounts_stack
from tests.support.push_receiver import PushService, push_service

API = "/api/v1"
ENGLISH_WORDS = ("Your turn", "Open the table", "Unsubscribe", "version", "is over", "Won by")


@pytest.fixture(scope="module")
def receiver() -> Iterator[PushService]:
    with push_service() as service:
        yield service


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("notices-languages")
    with accounts_stack(folder, CHRONICLE_PUSH_ALLOW_PRIVATE="1") as found:
        yield found


def subject(message: Message) -> str:
    """The subject as a mail program shows it (RFC 2047 encoded words decoded)."""
    return str(make_header(decode_header(str(message["Subject"]))))


def no_english(message: Message) -> None:
    """None of the notice's own English words is left in the mail (names and links aside)."""
    said = subject(message) + "\n".join(parts(message).values())
    assert not any(word in said for word in ENGLISH_WORDS), said


def test_a_japanese_account_gets_a_japanese_your_turn_mail(stack: Stack) -> None:
    ann = sign_in(stack, "ann-ja@example.com", "Ann")
    change = {"locale": "ja", "notifications": {"email": True}}
    assert patch_me(stack, ann["token"], change).status_code == 200
    table = Table(stack, ann["token"], seed=21)
    marker = table.to_turn()
    assert marker is not None
    message = stack.inbox.wait_for("ann-ja@example.com", 2)  # after the sign-in mail
    assert job_result(stack, table.id, 1, "your_turn", marker) == "sent"
    assert subject(message) == "Artusであなたの手番です"
    assert message["Content-Language"] == "ja"
    text, page = parts(message)["text/plain"], parts(message)["text/html"]
    assert f"Bobと遊んでいるArtusで、あなたの手番です（バージョン {marker}）。" in text
    assert f"卓を開く：{stack.public}/play/{table.id}" in text
    assert "メールソフトの「配信停止」" in text
    assert '<html lang="ja">' in page and ">卓を開く</a>" in page and "あなたの手札：" in page
    mine, his = table.view(1)["state"]["hand"], table.view(0)["state"]["hand"]
    # the cards as the page names them, in Japanese; never an id, hers or Bob's
    assert mine and all(card_words("artus", card, "ja") in text for card in mine)
    assert his and not any(card in whole(message) for card in mine + his), his
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    no_english(message)


def test_a_chinese_account_gets_the_end_of_a_game_in_chinese_the_other_in_english(
    stack: Stack,
) -> None:
    mei = sign_in(stack, "mei-zh@example.com", "Mei")
    bob = sign_in(stack, "bob-en@example.com", "Bob")
    ends_only = {"email": True, "your_turn": False}
    change = {"locale": "zh-TW", "notifications": ends_only}
    assert patch_me(stack, mei["token"], change).status_code == 200
    assert patch_me(stack, bob["token"], {"notifications": ends_only}).status_code == 200
    table = Table(stack, mei["token"], seed=22)
    seat_0 = {"seat_token": table.tokens[0]}
    claim = f"{stack.base}{API}/games/{table.id}/claim"
    requests.post(claim, json=seat_0, headers=bearer(bob["token"]), timeout=10).raise_for_status()
    assert table.to_turn(seat=2) is None  # no seat 2: plays the whole game
    deadline = time.monotonic() + 60  # the last move ends the play; the worker scores it
    while "result" not in (seen := table.view(0)):
        assert time.monotonic() < deadline, "the worker did not score the game"
        time.sleep(0.1)
    result = seen["result"]
    names = {0: "Bob", 1: "Ann"}

    message = stack.inbox.wait_for("mei-zh@example.com", 2)
    assert subject(message) == "Artus 已結束"
    assert message["Content-Language"] == "zh-TW"
    text, page = parts(message)["text/plain"], parts(message)["text/html"]
    assert "你和 Bob 的這局 Artus 已結束。" in text
    won = "和".join(names[w] for w in result["winners"])  # two seats: "A" or "A和B"
    assert (f"獲勝者：{won}。" if won else "沒有人獲勝。") in text
    assert f"得分：Bob {result['scores']['0']} 分、Ann {result['scores']['1']} 分。" in text
    assert f"打開牌桌：{stack.public}/play/{table.id}" in text
    assert '<html lang="zh-TW">' in page and ">打開牌桌</a>" in page
    no_english(message)

    english = stack.inbox.wait_for("bob-en@example.com", 2)
    assert english["Subject"] == "Artus is over" and english["Content-Language"] == "en"
    assert '<html lang="en">' in parts(english)["text/html"]
    assert "Open the table: " in parts(english)["text/plain"]


def test_a_push_follows_the_accounts_language(stack: Stack, receiver: PushService) -> None:
    kai = sign_in(stack, "kai-zh-push@example.com", "Kai")
    token = kai["token"]
    subscription = receiver.subscription()
    assert subscribe(stack, token, subscription).status_code == 201
    change = {"locale": "zh-TW", "notifications": {"push": True}}
    assert patch_me(stack, token, change).status_code == 200
    table = Table(stack, token, seed=23)
    marker = table.to_turn()
    assert marker is not None
    [got] = receiver.wait_for(subscription["endpoint"], 1)
    payload = got.payload
    assert payload["title"] == "Artus 輪到你了"
    assert f"你和 Bob 的這局 Artus 輪到你了（版本 {marker}）。" in payload["body"]
    assert "你的手牌：" in payload["body"]
    assert payload["url"] == f"{stack.public}/play/{table.id}"
    assert not any(word in str(payload) for word in ENGLISH_WORDS), payload
