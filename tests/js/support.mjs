// What the web client's node tests share: the fixtures (real views made by the engine:
// tests/js/make_fixtures.py), a DOM for the few functions that need one (happy-dom), the
// client's modules loaded as the browser loads them, and plain text from the markup they make.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { Window } from "happy-dom";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// CHRONICLE_JS_STATIC: another copy of the client (a changed one, to see a test fail)
export const STATIC = process.env.CHRONICLE_JS_STATIC || path.join(ROOT, "service/web/static");
const FIXTURES = process.env.CHRONICLE_JS_FIXTURES || path.join(ROOT, ".cache/js-fixtures");
export const GAMES = ["artus", "kings-and-castles", "lancaster"];

// reader.plain() and ui.morph() use the page's document; the renderers and texts do not.
const window = new Window({ url: "http://localhost/" });
globalThis.document = /** @type {any} */ (window.document);
after(() => window.happyDOM.close());

/** A module of the client, by its file name ("artus.js"). */
export const client = (file) => import(path.join(STATIC, file));

/** A game's fixture, its views put back in place of their indexes. */
export function fixture(game) {
  const file = path.join(FIXTURES, `${game}.json`);
  if (!fs.existsSync(file)) {
    throw new Error(`no ${file}: run .venv/bin/python tests/js/make_fixtures.py (scripts/test_web.sh does)`);
  }
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  const st = (i) => doc.states[i];
  for (const s of [...doc.events, ...doc.moves]) s.state = st(s.state);
  for (const t of doc.tables) {
    t.full = st(t.full);
    for (const v of t.views) v.state = st(v.state);
  }
  return doc;
}

/** The seats' names in the tests: plain ones, a bot's, and one a browser would run if it were
 *  not escaped. */
export const NAMES = ["Alice", "Bot (greedy)", "Carol", "Dave", "Erin"];
export const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>&amp;`;

/** A renderer's context for a table's view, as table.js builds it. */
export function context(t, v, names = NAMES) {
  return {
    names: names.slice(0, t.n),
    you: v.you,
    status: t.status,
    actions: v.actions,
    view: { version: t.version, status: t.status, state: v.state, result: t.result, to_act: t.to_act },
  };
}

/** Markup parsed in a fresh element (to query it). */
export function dom(raw) {
  const el = document.createElement("div");
  el.innerHTML = String(raw);
  return el;
}

/** The words a reader hears: the text of the markup, spaces folded. */
export const words = (raw) => dom(raw).textContent.replace(/\s+/g, " ").trim();
