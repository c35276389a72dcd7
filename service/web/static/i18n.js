// The players' languages in the browser (English, Japanese, Traditional Chinese): which one the
// page speaks, its words, and numbers, dates and plurals by the language's own rules (Intl).
//
// - The language: the person's choice (the switcher; kept in localStorage, and as the
//   account's `locale` when signed in, so the API answers in it too), else the browser's
//   (navigator.languages, matched as the server matches Accept-Language: zh-Hant/zh-HK are
//   zh-TW, Simplified Chinese is not), else English.  `<html lang>` says it.
// - The words: the client's gettext catalogue (service/translations/<locale>/LC_MESSAGES/
//   client.po, the same toolchain as the server's messages), compiled to JSON and served at
//   /i18n/<lang>.json.  A key is the English text; a word not translated is shown in English.
//   `t("Your turn")`, `t("{name} joined", { name })`, `tn("{count} card", "{count} cards", n)`.
// - Marked words: an element with `data-i18n="<English>"` gets its text in the page's
//   language (the static pages' few words: the header, "Loading…").
//
// Loaded by index.html and signin.html as its own module; the other modules import t() from it.
// The games' words (move texts, boards, the text view) are a second catalogue, client_games,
// served merged with this one.
import { api, session } from "./api.js";

export const LANGUAGES = ["en", "ja", "zh-TW"];
export const NAMES = { en: "English", ja: "日本語", "zh-TW": "繁體中文" };
const CHOICE = "chronicle.lang"; // localStorage: the switcher's choice on this browser

/** A mark for the catalogue's extraction (pybabel, keyword N_): the word itself.
 *  @param {string} key */
export const N_ = (key) => key;

// The static pages' marked words (data-i18n), listed so the catalogue holds them.
export const PAGE_WORDS = [N_("Docs"), N_("Loading…"), N_("Language"), N_("Chronicle: the lobby")];

/** One of ours for a language tag, or null: "ja-JP" -> "ja", "zh-Hant-HK" -> "zh-TW".
 *  @param {string | null | undefined} tag
 *  @returns {string | null} */
export function supported(tag) {
  if (!tag) return null;
  const t = tag.trim().replace(/_/g, "-").toLowerCase();
  if (t === "en" || t.startsWith("en-")) return "en";
  if (t === "ja" || t.startsWith("ja-")) return "ja";
  if (t === "zh") return "zh-TW";
  if (["zh-cn", "zh-sg", "zh-hans"].some((s) => t.startsWith(s))) return null;
  if (["zh-tw", "zh-hant", "zh-hk", "zh-mo"].some((s) => t.startsWith(s))) return "zh-TW";
  return null;
}

/** The browser's first language that is one of ours, else English.
 *  @param {readonly string[]} [tags] */
export function browserLanguage(tags = navigator.languages || [navigator.language]) {
  for (const tag of tags) {
    const found = supported(tag);
    if (found) return found;
  }
  return "en";
}

/** The person's choice kept on this browser, or null. */
function kept() {
  try {
    return supported(localStorage.getItem(CHOICE));
  } catch {
    return null; // storage refused (private mode)
  }
}

/** The page's language: the person's choice on this browser, else the account's (asked only
 *  when signed in), else the browser's. */
export async function language() {
  const chosen = kept();
  if (chosen) return chosen;
  if (session()) {
    try {
      const me = await api("/me", { tries: 1 });
      if (supported(me && me.locale)) return supported(me.locale);
    } catch {
      // signed out meanwhile, or the server busy: the browser's language
    }
  }
  return browserLanguage();
}

/** @type {{ lang: string, messages: Record<string, string | string[]> }} */
const loaded = { lang: "en", messages: {} };

/** The catalogue of `lang` (English needs none).
 *  @param {string} lang */
export async function load(lang) {
  loaded.lang = lang;
  loaded.messages = {};
  if (lang === "en") return;
  const res = await fetch(`/i18n/${encodeURIComponent(lang)}.json`, { credentials: "same-origin" });
  if (res.ok) loaded.messages = (await res.json()).messages || {};
}

/** `{name}` placeholders filled; numbers written the language's way.
 *  @param {string} text
 *  @param {Record<string, unknown>} [params] */
function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

/** A word in the page's language (the English key when it has no translation).
 *  @param {string} key
 *  @param {Record<string, unknown>} [params] */
export function t(key, params) {
  const found = loaded.messages[key];
  return fill(typeof found === "string" && found ? found : key, params);
}

/** A word with a count, by the language's plural rules (Intl.PluralRules): English has one
 *  and other; Japanese and Chinese have one form.
 *  @param {string} one
 *  @param {string} other
 *  @param {number} count
 *  @param {Record<string, unknown>} [params] */
export function tn(one, other, count, params) {
  const found = loaded.messages[one];
  const all = { count, ...(params || {}) };
  if (Array.isArray(found) && found.length) {
    const forms = new Intl.PluralRules(loaded.lang).resolvedOptions().pluralCategories;
    const order = ["zero", "one", "two", "few", "many", "other"].filter((c) => forms.includes(/** @type {any} */ (c)));
    const i = Math.max(0, order.indexOf(new Intl.PluralRules(loaded.lang).select(count)));
    return fill(found[Math.min(i, found.length - 1)] || other, all);
  }
  return fill(new Intl.PluralRules("en").select(count) === "one" ? one : other, all);
}

/** @param {number} n */
export const formatNumber = (n) => new Intl.NumberFormat(loaded.lang).format(n);

/** A moment (ms since the epoch, or a Date) in the language's way, in the browser's zone.
 *  @param {number | Date} when
 *  @param {Intl.DateTimeFormatOptions} [options] */
export const formatDate = (when, options = { dateStyle: "medium", timeStyle: "short" }) =>
  new Intl.DateTimeFormat(loaded.lang, options).format(when);

/** Every `data-i18n` element under `root` in the page's language.
 *  @param {ParentNode} [root] */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const key = el.getAttribute("data-i18n");
    if (key) el.textContent = t(key);
  }
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    const key = el.getAttribute("data-i18n-label");
    if (key) el.setAttribute("aria-label", t(key));
  }
}

/** Keep `lang` as the person's choice: on this browser, and as the account's locale when
 *  signed in (the API then answers in it); then show the page again in it.
 *  @param {string} lang */
export async function choose(lang) {
  if (!LANGUAGES.includes(lang)) return;
  try {
    localStorage.setItem(CHOICE, lang);
  } catch {
    // storage refused: the account's locale (if any) still keeps it
  }
  if (session()) {
    try {
      await api("/me", { method: "PATCH", body: { locale: lang } });
    } catch {
      // kept on this browser; the account keeps its former choice
    }
  }
  location.reload();
}

/** The switcher: a select of the three languages, each named in itself. */
export function switcher() {
  const label = document.createElement("label");
  label.className = "lang-switch";
  const words = document.createElement("span");
  words.className = "visually-hidden";
  words.textContent = t("Language");
  const select = document.createElement("select");
  select.setAttribute("aria-label", t("Language"));
  for (const code of LANGUAGES) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = NAMES[code];
    option.selected = code === loaded.lang;
    select.append(option);
  }
  select.addEventListener("change", () => choose(select.value));
  label.append(words, select);
  return label;
}

/** Set up the page: its language, `<html lang>`, the marked words and the switcher (in the
 *  header's `#lang`, when the page has one). */
export async function start() {
  const lang = await language();
  document.documentElement.lang = lang;
  try {
    await load(lang);
  } catch {
    loaded.messages = {}; // the words stay English; the page still works
  }
  translatePage();
  const slot = document.getElementById("lang");
  if (slot && !slot.firstChild) slot.append(switcher());
}

// A browser page sets itself up at once; the tests (node, no navigator) call what they test.
export const ready = typeof navigator === "undefined" || typeof location === "undefined" ? Promise.resolve() : start();
