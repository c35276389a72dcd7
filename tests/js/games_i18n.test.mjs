// The games' words in Japanese and Traditional Chinese: the move texts (describeAction), the
// log (describeEvent) and the text view (sections) over the real fixtures, with the catalogue
// the server serves (/i18n/<lang>.json: service/i18n.py client_json, the client and
// client_games domains merged, from the committed .mo files).  Each text is in the language:
// no English glue word is left, every placeholder is filled, and a few texts are exactly the
// rulebooks' words.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { GAMES, NAMES, client, context, dom, fixture } from "./support.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { load } = await client("i18n.js");

/** The catalogue the server serves for `lang` (the real one, not a copy). */
function served(lang) {
  const code = "import sys; from service.i18n import client_json; sys.stdout.buffer.write(client_json(sys.argv[1]))";
  return JSON.parse(execFileSync(path.join(ROOT, ".venv/bin/python"), ["-c", code, lang], { cwd: ROOT, encoding: "utf8" }));
}

/** Switch the page's language to `lang` with the served catalogue. */
async function speak(lang) {
  const doc = lang === "en" ? { messages: {} } : served(lang);
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => doc }));
  await load(lang);
}
after(() => speak("en"));

// Words only an English sentence has; names (the seats', the territories') are not checked.
const ENGLISH = /\b(the|with|from|and|of|on|to|your|seat|seats|knight|knights|card|cards|move|moves|gold|power|squires?|round|none|empty)\b/i;
// The Japanese rulebook of Kings and Castles names its units in English (its glossary).
const KEPT = [...NAMES, "Men-at-arms", "Mercenaries", "Archers", "Knight"];
const withoutNames = (text) => KEPT.reduce((s, n) => s.split(n).join(""), String(text));

const ctx = (s) => ({ names: NAMES.slice(0, s.n), you: s.you, view: { version: s.event.version, state: s.state } });
const movesOf = (fx) => [
  ...fx.tables.flatMap((t) => t.views.filter((v) => v.actions.length).map((v) => ({ t, v }))),
  ...fx.moves.map((m) => ({ t: { n: m.n, version: m.version, status: "active", result: null, to_act: [m.you], views: [] }, v: m })),
];

for (const lang of ["ja", "zh-TW"]) {
  describe(`the games in ${lang}`, () => {
    for (const game of GAMES) {
      const fx = fixture(game);
      test(`${game}: every move, event and text view section is in ${lang}`, async () => {
        await speak(lang);
        const r = (await client(fx.module)).default;
        const text = (await client(fx.text)).default;
        const said = [];
        for (const { t, v } of movesOf(fx)) for (const a of v.actions) said.push(["move", r.describeAction(a, context(t, v))]);
        for (const s of fx.events) said.push(["event", r.describeEvent(s.event, ctx(s))]);
        for (const t of fx.tables) {
          for (const v of t.views) {
            said.push(["view", dom(text.sections(v.state, context(t, v)).join("")).textContent]);
            // the board and its details: their words, labels and tooltips
            const el = dom(String(r.board(v.state, context(t, v))) + String(r.details(v.state, context(t, v))));
            said.push(["board", el.textContent]);
            for (const x of el.querySelectorAll("[aria-label], [title]")) said.push(["label", `${x.getAttribute("aria-label") || ""} ${x.getAttribute("title") || ""}`]);
          }
        }
        assert.ok(said.length > 50);
        for (const [kind, words] of said) {
          assert.doesNotMatch(withoutNames(words), ENGLISH, `${kind}: ${words}`);
          assert.doesNotMatch(words, /\{\w+\}|undefined|\[object/, `${kind}: ${words}`);
        }
      });
    }
  });
}

describe("a few move texts, word for word", () => {
  const artus = fixture("artus");
  const place = movesOf(artus).find(({ v }) => v.actions.some((a) => a.type === "place_knight"));

  test("Artus: placing a knight, in each language (the Chinese rulebook's 位子 and 騎士)", async () => {
    const r = (await client("artus.js")).default;
    const a = place.v.actions.find((x) => x.type === "place_knight");
    const c = context(place.t, place.v);
    const v = place.v.state.values[a.seat];
    const value = v > 0 ? `+${v}` : v < 0 ? `−${-v}` : "0";
    await speak("en");
    assert.equal(r.describeAction(a, c), `Place a knight on seat ${a.seat} (${value})`);
    await speak("ja");
    assert.equal(r.describeAction(a, c), `${a.seat}番の席に騎士を置く（${value}）`);
    await speak("zh-TW");
    assert.equal(r.describeAction(a, c), `把騎士放在第${a.seat}個位子（${value}）`);
    assert.equal(r.describeAction({ type: "draw", pile: "knight" }, c), "從你的騎士卡疊抽一張卡");
  });

  test("Kings and Castles and Lancaster: the Japanese rulebooks' words", async () => {
    const kc = (await client("kings_and_castles.js")).default;
    const la = (await client("lancaster.js")).default;
    const c = { names: NAMES, you: 0, view: { state: { acting_colour: "green", track: [], territories: {}, pending: null, counties: {} } } };
    await speak("ja");
    assert.equal(kc.describeAction({ type: "tax" }, c), "徴税する（税金マーカーを1個使う）");
    assert.equal(kc.describeAction({ type: "end_castles" }, c), "これ以上城を置かない");
    assert.equal(la.describeAction({ type: "upgrade", knight: "red-2b" }, c), "赤の兵力2の騎士駒、2個目を強化");
    await speak("zh-TW");
    assert.equal(kc.describeAction({ type: "tax" }, c), "徵稅（花費一個稅金標記）");
    assert.equal(la.describeAction({ type: "ransom", knight: "blue-3" }, c), "贖回藍色兵力3騎士（3金幣）");
    await speak("en");
    assert.equal(la.describeAction({ type: "ransom", knight: "blue-3" }, c), "Ransom Blue's knight of strength 3 (3 gold)");
  });
});
