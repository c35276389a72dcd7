"""The players' languages through the served API (contract: v2 additions, Languages): error
messages and the catalog's words in Japanese and Traditional Chinese by ``Accept-Language`` and
by the account's ``locale`` (which comes first), ``Content-Language`` on every answer (the plain
move path's too), codes and details unchanged, and the players' rules in each language, by
``?lang=`` or else the caller's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.accounts import Stack, accounts_stack
from tests.support.client import Client
from tests.support.smtp import code_in

API = "/api/v1"
JA = {"Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"}
ZH = {"Accept-Language": "zh-Hant-TW,zh;q=0.8"}


def _refused_move(api: Client, headers: dict[str, str]) -> requests.Response:
    """An Artus move onto an occupied seat (AR-2), refused 422."""
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    seat = api.summary(gid)["to_act"][0]
    occupied = api.view(gid)["state"]["seats"].index("silver-1")
    version = api.summary(gid)["version"]
    body: Any = {"action": {"type": "place_knight", "seat": occupied}, "expected_version": version}
    return api.http.post(
        f"{api.base}{API}/games/{gid}/actions",
        json=body,
        headers={"Authorization": f"Bearer {tokens[seat]}", **headers},
        timeout=10,
    )


def test_a_refused_move_is_told_in_the_callers_language(api: Client) -> None:
    english = _refused_move(api, {})
    assert english.status_code == 422 and english.headers["Content-Language"] == "en"
    said = english.json()["error"]
    rule = said["details"]["rule"]
    assert said["code"] == "illegal_action" and said["message"].startswith(f"{rule}: ")
    for headers, lang, words in (
        (JA, "ja", "ルールで認められていません"),
        (ZH, "zh-TW", "規則不允許"),
    ):
        r = _refused_move(api, headers)
        assert r.status_code == 422, r.text
        assert r.headers["Content-Language"] == lang
        assert "Accept-Language" in r.headers["Vary"]
        error = r.json()["error"]
        assert error["code"] == "illegal_action" and error["details"] == said["details"]
        assert error["message"].startswith(rule) and words in error["message"]


def test_every_answer_says_its_language(api: Client) -> None:
    r = api.http.get(f"{api.base}{API}/games/nosuchgame", headers=ZH, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Language"] == "zh-TW"
    assert r.json()["error"] == {
        "code": "not_found",
        "message": "找不到：沒有這個遊戲或頁面。",  # noqa: RUF001
        "details": {},
    }
    r = api.http.get(f"{api.base}{API}/games/nosuchgame", headers={"Accept-Language": "fr"})
    assert r.headers["Content-Language"] == "en" and r.json()["error"]["code"] == "not_found"
    r = api.http.post(f"{api.base}{API}/games", json={"game": 1}, headers=JA, timeout=10)
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("リクエスト")
    # a plain move, answered by the move path outside Flask's request cycle
    created = api.create("artus", [{"name": "A"}, {"name": "B"}])
    gid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    seat = api.summary(gid)["to_act"][0]
    listed = api.actions(gid, tokens[seat])
    r = api.http.post(
        f"{api.base}{API}/games/{gid}/actions",
        json={"action": listed["actions"][0], "expected_version": listed["version"]},
        headers={"Authorization": f"Bearer {tokens[seat]}", **JA},
        timeout=10,
    )
    assert r.status_code == 201 and r.headers["Content-Language"] == "ja"


def test_the_catalog_in_each_language(api: Client) -> None:
    def bots(headers: dict[str, str]) -> tuple[str, Any]:
        r = api.http.get(f"{api.base}{API}/catalog", headers=headers, timeout=10)
        assert r.status_code == 200
        artus = next(g for g in r.json()["games"] if g["id"] == "artus")
        return r.headers["Content-Language"], artus

    lang, english = bots({})
    assert lang == "en" and english["bot_levels"]["random"]["label"] == "Random"
    lang, japanese = bots(JA)
    assert lang == "ja" and japanese["bot_levels"]["random"]["label"] == "ランダム"
    assert japanese["options"]["rules"]["choices"]["basic"]["label"] == "基本ルール"
    lang, chinese = bots(ZH)
    assert (
        lang == "zh-TW" and chinese["options"]["rules"]["choices"]["basic"]["label"] == "初階規則"
    )
    # ids, values and shapes never change
    for said in (japanese, chinese):
        assert said["id"] == english["id"] and said["bots"] == english["bots"]
        assert said["options"]["rules"]["values"] == english["options"]["rules"]["values"]
        assert said["actions"] == english["actions"]


def _ids(markdown: str) -> list[str]:
    """The rule ids of a page's headings, in order."""
    return re.findall(r"^#+ .*\(([A-Z]{2}-[\d.]+)\)\s*$", markdown, re.MULTILINE)


@pytest.mark.parametrize("game", ["artus", "kings-and-castles", "lancaster"])
def test_the_rules_in_each_language(api: Client, game: str) -> None:
    base = f"{api.base}{API}/docs/rules/{game}"
    english = api.http.get(base + ".md", timeout=10)
    assert english.headers["Content-Language"] == "en"
    for lang, headers in (("ja", JA), ("zh-TW", ZH)):
        asked = api.http.get(f"{base}.md?lang={lang}", timeout=10)
        assert asked.headers["Content-Language"] == lang
        assert asked.text != english.text and _ids(asked.text) == _ids(english.text)
        assert len(_ids(english.text)) >= 8
        by_header = api.http.get(base + ".md", headers=headers, timeout=10)
        assert by_header.text == asked.text and by_header.headers["Content-Language"] == lang
        page = api.http.get(f"{api.base}/rules/{game}", headers=headers, timeout=10)
        assert page.status_code == 200 and f'<html lang="{lang}">' in page.text
        assert page.headers["Content-Language"] == lang
    # ?lang= wins over the header
    r = api.http.get(base + "?lang=en", headers=JA, timeout=10)
    assert r.headers["Content-Language"] == "en" and '<html lang="en">' in r.text


def test_the_pages_say_their_language(api: Client) -> None:
    for path in ("/", "/signin"):
        r = api.http.get(api.base + path, headers=JA, timeout=10)
        assert r.status_code == 200 and '<html lang="ja">' in r.text
        assert "Accept-Language" in r.headers["Vary"]
        assert '<script type="module" src="/assets/i18n.js"></script>' in r.text
        assert '<html lang="en">' in api.http.get(api.base + path, timeout=10).text
    words = api.http.get(api.base + "/i18n/zh-TW.json", timeout=10)
    assert words.status_code == 200 and words.json()["messages"]["Docs"] == "文件"
    assert "Content-Security-Policy" in words.headers
    assert api.http.get(api.base + "/i18n/fr.json", timeout=10).status_code == 404


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("languages")) as found:
        yield found


def _sign_in(stack: Stack, email: str) -> str:
    before = len(stack.inbox.to(email))
    r = requests.post(stack.base + API + "/auth/email", json={"email": email}, timeout=10)
    assert r.status_code == 202, r.text
    code = code_in(stack.inbox.wait_for(email, before + 1))
    body = {"code": code, "name": "Kiku"}
    r = requests.post(stack.base + API + "/auth/email/verify", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def test_the_accounts_locale_comes_before_accept_language(stack: Stack) -> None:
    token = _sign_in(stack, "kiku@example.com")
    auth = {"Authorization": f"Bearer {token}"}

    def patch(locale: Any) -> requests.Response:
        body = {"locale": locale}
        return requests.patch(stack.base + API + "/me", json=body, headers=auth, timeout=10)

    def missing(headers: dict[str, str]) -> requests.Response:
        path = stack.base + API + "/games/nosuchgame"
        return requests.get(path, headers={**auth, **headers}, timeout=10)

    refused = patch("zh-Hant")  # the contract's tags only
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request"
    assert patch("zh-TW").status_code == 200
    r = missing(JA)
    assert r.headers["Content-Language"] == "zh-TW"
    assert r.json()["error"]["message"] == "找不到：沒有這個遊戲或頁面。"  # noqa: RUF001
    me = requests.get(stack.base + API + "/me", headers=auth, timeout=10)
    assert me.json()["locale"] == "zh-TW" and me.headers["Content-Language"] == "zh-TW"
    assert patch("ja").status_code == 200
    assert missing({}).headers["Content-Language"] == "ja"
    assert patch(None).status_code == 200  # no choice: the browser's language again
    assert missing(ZH).headers["Content-Language"] == "zh-TW"
    assert missing({}).headers["Content-Language"] == "en"
    # a write by the cookie without the page's CSRF value, refused before any resource
    cookie = {"Cookie": f"chronicle_session={token}", **JA}
    r = requests.patch(stack.base + API + "/me", json={"name": "K"}, headers=cookie, timeout=10)
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_failed"
    assert r.json()["error"]["message"].startswith("ページの安全確認")
    assert r.headers["Content-Language"] == "ja"
