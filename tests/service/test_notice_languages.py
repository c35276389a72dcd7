# ruff: noqa: RUF001  (the Japanese and Chinese texts use full-width punctuation)
"""The words of notices in each language (``service.notice_text``, ``service.digest``,
``service.invitations``): moments and dates written by Babel in the account's language and time
zone, a Traditional Chinese reminder, a Japanese digest and invitation, the HTML part's
``lang``, and English as it was for an account with no locale."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import redis

from service import digest, invitations, notice_text
from service.accounts import Account, Accounts
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore
from service.redis_store import RedisEventStore

# 2026-12-08 08:30 UTC: 09:30 in Paris, 17:30 in Tokyo
MOMENT = int(datetime(2026, 12, 8, 8, 30, tzinfo=UTC).timestamp() * 1000)


def test_a_moment_is_written_in_the_accounts_language_and_time_zone() -> None:
    assert notice_text.when(MOMENT, "Asia/Tokyo", "ja") == "2026/12/08 17:30 (Asia/Tokyo)"
    assert (
        notice_text.when(MOMENT, "Asia/Taipei", "zh-TW") == "2026年12月8日 下午4:30 (Asia/Taipei)"
    )
    english = notice_text.when(MOMENT, "Europe/Paris")
    assert english.startswith("Dec 8, 2026, 9:30") and english.endswith("AM (Europe/Paris)")
    assert notice_text.when(MOMENT, None, "ja").endswith("8:30 (UTC)")  # no zone: UTC
    assert notice_text.day("2026-12-08", "ja") == "2026年12月8日火曜日"
    assert notice_text.day("2026-12-08", "zh-TW") == "2026年12月8日 星期二"


def test_the_language_is_the_accounts_locale_else_english() -> None:
    assert notice_text.language("ja") == "ja"
    assert notice_text.language("zh-TW") == "zh-TW"
    assert notice_text.language(None) == "en"
    assert notice_text.language("fr") == "en"


def test_a_reminder_in_traditional_chinese() -> None:
    ch = Chronicle(MemoryEventStore(), NoJobs())
    gid = ch.create(None, "artus", [{"name": "Bob"}, {"name": "Ann"}], None, None)["id"]
    cur = ch.current(gid)
    subject, lines, link = notice_text.notice_lines(
        ch, cur, 1, notice_text.REMINDER, "https://p.x", MOMENT, "Asia/Taipei", "zh-TW"
    )
    assert subject == "你在 Artus 的時間快用完了"
    moment = "2026年12月8日 下午4:30 (Asia/Taipei)"
    assert lines == [f"你和 Bob 的這局 Artus 中，你的回合將在 {moment} 截止。"]
    text, page = notice_text.message(subject, lines, link, "zh-TW")
    assert f"打開牌桌：https://p.x/play/{gid}" in text and "取消訂閱" in text
    assert page.startswith('<!doctype html>\n<html lang="zh-TW">') and ">打開牌桌</a>" in page
    # the same notice for an account with no locale: English, as it always was
    subject, lines, _ = notice_text.notice_lines(
        ch, cur, 1, notice_text.REMINDER, "https://p.x", MOMENT, "Asia/Taipei"
    )
    assert subject == "Your time in Artus runs out soon"
    assert lines[0].startswith("Your turn in Artus with Bob ends at Dec 8, 2026")
    assert '<html lang="en">' in notice_text.message(subject, lines, link)[1]


def test_a_digest_in_japanese_says_its_date_and_counts() -> None:
    ann = Account("acct_ann", "Ann", "ann@example.com", 0, locale="ja")
    listed = [("Artusであなたの手番です", ["一行目"], "https://p.x/play/g1")]
    subject, text, page = digest.message(ann, listed, "2026-12-08")
    assert subject == "Chronicle のまとめ：1件のゲーム"
    assert text.startswith("Annさん、こんにちは。\n\n2026年12月8日火曜日のまとめです。")
    assert "卓を開く：https://p.x/play/g1" in text and "「配信停止」" in text
    assert '<html lang="ja">' in page and "<h3>Artusであなたの手番です</h3>" in page
    assert digest.message(ann, listed * 3, "2026-12-08")[0] == "Chronicle のまとめ：3件のゲーム"
    bob = Account("acct_bob", "Bob", "bob@example.com", 0)
    assert digest.message(bob, listed, "2026-12-08")[0] == "Your Chronicle digest: 1 game"
    two = digest.message(bob, listed * 2, "2026-12-08")
    assert two[0] == "Your Chronicle digest: 2 games"
    assert "Your digest of Tuesday, December 8, 2026." in two[1]


def test_an_invitation_in_japanese(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    ch = Chronicle(RedisEventStore(r), NoJobs(), accounts=Accounts(r))
    players: list[dict[str, Any]] = [{"name": "Bob"}, {"name": "Cy"}, {"name": None, "open": True}]
    gid = ch.create(None, "artus", players, None, None)["id"]
    cur = ch.current(gid)
    subject, said, link = invitations.lines(ch, cur, 2, "acct_x", 3, "https://p.x", "ja")
    assert subject == "ホストからArtusへの招待が届きました"
    assert said == ["ホストが、Bob、Cyと遊ぶArtusのゲームにあなたを招待しています（3番席）。"]
    assert link.startswith(f"https://p.x/join/{gid}#invitation=")
