// i18n.js: a language tag is matched as the server matches Accept-Language, a word is its
// catalogue's (English when it has none), {name} placeholders are filled with numbers written
// the language's way, and plurals follow Intl.PluralRules (English one/other, Japanese one form).
import assert from "node:assert/strict";
import { test } from "node:test";
import { client } from "./support.mjs";

const { supported, browserLanguage, load, t, tn, formatNumber, formatDate } = await client("i18n.js");

/** Serve `messages` as the catalogue i18n.js fetches (/i18n/<lang>.json). */
function serving(messages) {
  globalThis.fetch = async () => ({ ok: true, json: async () => ({ messages }) });
}

test("tags are matched as the server matches them", () => {
  assert.equal(supported("ja-JP"), "ja");
  assert.equal(supported("zh-Hant-HK"), "zh-TW");
  assert.equal(supported("zh"), "zh-TW");
  assert.equal(supported("zh-CN"), null);
  assert.equal(supported("fr"), null);
  assert.equal(browserLanguage(["zh-CN", "fr", "ja"]), "ja");
  assert.equal(browserLanguage(["de"]), "en");
});

test("words, numbers and plurals in Japanese, English underneath", async () => {
  serving({ Docs: "ドキュメント", "{count} card": ["カード{count}枚"] });
  await load("ja");
  assert.equal(t("Docs"), "ドキュメント");
  assert.equal(t("Not translated {n}", { n: 3 }), "Not translated 3"); // the English key
  assert.equal(tn("{count} card", "{count} cards", 1), "カード1枚");
  assert.equal(tn("{count} card", "{count} cards", 12000), "カード12,000枚");
  assert.equal(formatNumber(1234.5), "1,234.5");
  assert.match(formatDate(Date.UTC(2026, 11, 7, 12), { year: "numeric", timeZone: "UTC" }), /2026年/);
  await load("en");
  assert.equal(t("Docs"), "Docs");
  assert.equal(tn("{count} card", "{count} cards", 1), "1 card");
  assert.equal(tn("{count} card", "{count} cards", 2), "2 cards");
});
