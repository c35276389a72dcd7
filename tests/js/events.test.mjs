// The log in words (describeEvent) over real events of every type, as their owner, another
// seat and a spectator receive them (tests/web/test_texts.py checks that no internal id shows;
// this checks what the words must say, and what they must not).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GAMES, NAMES, client, fixture } from "./support.mjs";

const { fallbackEvent } = await client("common.js");
const { cardName } = await client("artus.js");

/** The context describeEvent gets on the table page (table.js) for an event sample. */
const ctx = (s) => ({ names: NAMES.slice(0, s.n), you: s.you, view: { version: s.event.version, state: s.state } });

/** The colours a seat plays, as each game's view says. */
function coloursOf(game, s, seat) {
  if (game === "artus") return [s.colours[seat]];
  if (game === "lancaster") return s.players.filter((p) => p.seat === seat).map((p) => p.colour);
  return Object.keys(s.seats).filter((col) => s.seats[col] === seat);
}

for (const game of GAMES) {
  const fx = fixture(game);
  const r = (await client(fx.module)).default;

  describe(`${game}: describeEvent`, () => {
    test("the fixture holds every event type the game declares, for every kind of viewer", () => {
      for (const viewer of ["owner", "other", "spectator"]) {
        const seen = new Set(fx.events.filter((s) => s.viewer === viewer).map((s) => s.type));
        assert.deepEqual(fx.eventTypes.filter((t) => !seen.has(t)), [], viewer);
      }
    });

    test("every event is a sentence of its own (not the fallback for unknown events)", () => {
      for (const s of fx.events) {
        const text = r.describeEvent(s.event, ctx(s));
        // a string: the pages escape it (html``), so a name with markup is shown, not run
        assert.equal(typeof text, "string", s.type);
        assert.match(text, /^[A-Z0-9'‘"]/, `${s.type}: ${text}`);
        assert.match(text, /[.!]$/, `${s.type}: ${text}`);
        assert.doesNotMatch(text, /\[object|\bundefined\b|\bNaN\b/, `${s.type}: ${text}`);
        assert.notEqual(text, fallbackEvent(s.event, ctx(s)), `${s.type} has no words of its own`);
      }
    });

    test("an event about a seat names its player (or the colour of its pieces)", () => {
      const about = fx.events.filter((s) => s.event.seat != null);
      assert.ok(about.length > 0);
      for (const s of about) {
        const text = r.describeEvent(s.event, ctx(s)).toLowerCase();
        const who = [NAMES[s.event.seat], ...coloursOf(game, s.state, s.event.seat)].map((x) => x.toLowerCase());
        assert.ok(who.some((x) => text.includes(x)), `${s.type} (seat ${s.event.seat}, ${who}): ${text}`);
      }
    });

    test("the words change with the event: no two event types read the same", () => {
      const byText = new Map();
      for (const s of fx.events) {
        const text = r.describeEvent(s.event, ctx(s));
        const other = byText.get(text);
        assert.ok(!other || other === s.type, `${other} and ${s.type}: ${text}`);
        byText.set(text, s.type);
      }
    });
  });
}

// What only its owner may read stays out of the others' words; the owner reads it.
describe("redacted events: the words say only what the data holds", () => {
  const samples = (game, type) => fixture(game).events.filter((s) => s.type === type);

  test("artus: a drawn card is named to its owner only", async () => {
    const r = (await client("artus.js")).default;
    const drawn = samples("artus", "CardDrawn");
    for (const s of drawn) {
      const text = r.describeEvent(s.event, ctx(s));
      const name = cardName(s.full.card);
      if (s.viewer === "owner") assert.ok(text.includes(name), text);
      else assert.ok(!text.includes(name), `${s.viewer}: ${text}`);
    }
    assert.ok(drawn.some((s) => s.viewer !== "owner"));
  });

  test("kings-and-castles: taxes show a seat only its own colours' amounts", async () => {
    const r = (await client("kings_and_castles.js")).default;
    const taxes = samples("kings-and-castles", "TaxCollected");
    let hidden = 0;
    for (const s of taxes) {
      const text = r.describeEvent(s.event, ctx(s));
      for (const [col, n] of Object.entries(s.full.amounts)) {
        const mine = col in s.event.data.amounts;
        assert.equal(text.includes(`${col} +${n}`), mine, `${s.viewer} ${col}: ${text}`);
        if (!mine) hidden++;
      }
    }
    assert.ok(hidden > 0, "some amounts are someone else's");
  });

  test("lancaster: a secret vote and a favour's gold or squires are the voter's own", async () => {
    const r = (await client("lancaster.js")).default;
    const votes = samples("lancaster", "VoteCommitted").filter((s) => s.viewer !== "owner");
    assert.ok(votes.length > 0);
    for (const s of votes) {
      const text = r.describeEvent(s.event, ctx(s));
      assert.doesNotMatch(text, new RegExp(`\\b${s.full.tile}\\b`), `${s.viewer}: ${text}`);
    }
    let goods = 0;
    for (const s of samples("lancaster", "FavourTaken")) {
      const gains = s.full.gains || {};
      if (!gains.gold && !gains.squires) continue;
      goods++;
      const text = r.describeEvent(s.event, ctx(s));
      // the owner reads "+1 gold, +1 squire"; the others only "+2 gold or squires"
      const exact = /\+\d+ gold(?! or squires)|\+\d+ squires?\b/.test(text);
      assert.equal(exact, s.viewer === "owner", `${s.viewer}: ${text}`);
    }
    assert.ok(goods > 0, "a favour of gold or squires was taken");
  });
});
