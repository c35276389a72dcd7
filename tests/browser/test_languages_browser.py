"""The players' languages in Chromium: a Japanese browser gets the pages in Japanese (`<html
lang>`, the header's marked words, the catalog's words in the lobby, the rules page), the
language menu switches to Traditional Chinese and keeps the choice over a reload, and the rules
page links the same rules in the other languages.  A whole game in each language:
tests/browser/test_languages_play.py."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Console

DESKTOP = {"width": 1280, "height": 800}


def test_a_japanese_browser_and_the_language_menu(
    browser: Any, console: Console, server_url: str
) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="ja-JP")
    page = console.watch(ctx.new_page(), "languages")
    try:
        page.goto(server_url + "/")
        page.wait_for_selector("#lang select")
        assert page.get_attribute("html", "lang") == "ja"
        assert page.inner_text('a[href="/docs/"]') == "ドキュメント"
        page.wait_for_selector("#catalog .game-card .game-about")
        artus = page.locator(".game-card", has_text="Artus")
        assert "円卓" in artus.locator(".game-about").inner_text()  # the catalog's words
        page.select_option("#lang select", "zh-TW")
        page.wait_for_function("() => document.documentElement.lang === 'zh-TW'")
        page.wait_for_selector("#lang select")
        assert page.inner_text('a[href="/docs/"]') == "文件"
        assert page.evaluate("() => localStorage.getItem('chronicle.lang')") == "zh-TW"
        # the API follows the choice too (the page's requests say it as Accept-Language)
        page.wait_for_selector("#catalog .game-card .game-about")
        artus = page.locator(".game-card", has_text="Artus")
        assert "圓桌" in artus.locator(".game-about").inner_text()
        page.reload()
        page.wait_for_function("() => document.documentElement.lang === 'zh-TW'")
        assert page.eval_on_selector("#lang select", "s => s.value") == "zh-TW"
        # the rules page, by the browser's language, with links to the other two
        page.goto(server_url + "/rules/lancaster")
        assert page.get_attribute("html", "lang") == "ja"
        assert page.inner_text("#toc-h") == "目次"
        page.click('.langs a[hreflang="zh-TW"]')
        page.wait_for_url("**/rules/lancaster?lang=zh-TW")
        assert page.get_attribute("html", "lang") == "zh-TW"
        assert page.locator("#LA-2\\.4").inner_text().startswith("議會")
    finally:
        ctx.close()
