// The text view's sections (artus_text.js, kings_and_castles_text.js, lancaster_text.js) over
// real views: every seat's, the spectator's, during the game and at its end.  They say the
// view's hand and scores, and nothing of another seat's secrets: the view is already redacted
// by the server, and the text must use only it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GAMES, HOSTILE, NAMES, client, context, dom, fixture } from "./support.mjs";

const { cardName } = await client("artus.js");

/** The sections of a view, parsed: by id, their words, and the rows of their first table. */
function read(text, v, c) {
  const parts = text.sections(v.state, c);
  assert.ok(Array.isArray(parts) && parts.length > 2);
  const el = dom(parts.join(""));
  const ids = [...el.querySelectorAll("section[id]")].map((s) => s.id);
  assert.deepEqual(ids.filter((x, i) => ids.indexOf(x) !== i), [], "section ids are unique");
  for (const s of el.querySelectorAll("section")) {
    assert.ok(s.querySelector(`#${s.id}-h`), `${s.id} is named by its heading`);
  }
  const section = (id) => el.querySelector(`#${id}`);
  const rows = (id) =>
    [...(section(id)?.querySelectorAll("tbody tr") || [])].map((tr) => {
      const cells = {};
      for (const td of tr.querySelectorAll("td")) cells[td.getAttribute("data-label")] = td.textContent.trim();
      return { head: tr.querySelector("th").textContent.trim(), ...cells };
    });
  const said = (id) => (section(id)?.textContent || "").replace(/\s+/g, " ").trim();
  return { el, section, rows, said, all: el.textContent.replace(/\s+/g, " ") };
}

const views = (fx) => fx.tables.flatMap((t) => t.views.map((v) => ({ t, v, c: context(t, v), who: `v${t.version} ${t.status} you=${v.you}` })));

describe("artus: the text view", async () => {
  const fx = fixture("artus");
  const text = (await client(fx.text)).default;

  test("a seat reads its own hand, card by card; a spectator has none", () => {
    for (const { t, v, c, who } of views(fx)) {
      const x = read(text, v, c);
      const hand = v.you == null ? null : v.state.hand || v.state.hands[v.you];
      if (!hand) {
        assert.equal(x.section("reader-hand"), null, who);
        continue;
      }
      assert.equal(hand.length, v.state.hand_sizes[v.you]);
      const items = [...x.section("reader-hand").querySelectorAll("li")].map((li) => li.textContent);
      assert.equal(items.length, hand.length, who);
      hand.forEach((id, i) => assert.ok(items[i].startsWith(cardName(id)), `${who}: ${items[i]}`));
      assert.match(x.said("reader-hand"), new RegExp(`^Your hand \\(${hand.length}\\)`));
      if (t.status !== "finished") assert.ok(v.state.hand, `${who}: a seat's view holds its own hand`);
    }
  });

  test("the scores are the view's points (the result's at the end)", () => {
    for (const { t, v, c, who } of views(fx)) {
      const rows = read(text, v, c).rows("reader-scores");
      assert.equal(rows.length, t.n, who);
      rows.forEach((row, i) => {
        const pts = t.result ? t.result.scores[i] : v.state.scores[i];
        assert.equal(row[t.result ? "Final points" : "Points"], String(pts), `${who} seat ${i}`);
        assert.equal(row["Cards in hand"], String(v.state.hand_sizes[i]));
        assert.ok(row.head.startsWith(NAMES[i]), row.head);
        assert.equal(row.head.endsWith("(you)"), i === v.you);
      });
    }
  });

  test("another seat's hidden cards never show; the end shows every hand to the spectator", () => {
    let hidden = 0;
    for (const { t, v, c, who } of views(fx)) {
      const x = read(text, v, c);
      const seen = JSON.stringify(v.state);
      const other = (i) => i !== v.you;
      for (const [i, hand] of t.full.hands.entries()) {
        for (const id of hand) {
          if (!other(i) || seen.includes(`"${id}"`)) continue;
          hidden++;
          assert.ok(!x.all.includes(`${cardName(id)} (${id.split("/")[0]})`), `${who}: ${id}`);
        }
      }
      const revealed = x.section("reader-hands");
      assert.equal(revealed != null, t.status === "finished" && v.you == null, who);
      if (revealed) assert.equal(revealed.querySelectorAll("li").length, t.n);
    }
    assert.ok(hidden > 0, "some cards were hidden from some seat");
  });
});

describe("kings-and-castles: the text view", async () => {
  const fx = fixture("kings-and-castles");
  const text = (await client(fx.text)).default;

  test("a seat reads its colours' armies and households; a spectator has none", () => {
    for (const { v, c, who } of views(fx)) {
      const x = read(text, v, c);
      const mine = v.state.your_colours;
      assert.equal(x.section("reader-hand") != null, mine.length > 0, who);
      for (const col of mine) {
        const h = x.said(`reader-army-${col}`);
        const army = v.state.armies[col].length;
        const household = v.state.households[col].length;
        assert.ok(h.includes(`army of ${army}, household of ${household}`), `${who}: ${h}`);
        assert.equal(x.section(`reader-army-${col}`).querySelectorAll("li").length, army);
      }
    }
  });

  test("money: exact for the seat's colours, the last digit for the others, all at the end", () => {
    let digits = 0;
    for (const { t, v, c, who } of views(fx)) {
      const rows = read(text, v, c).rows("reader-scores");
      assert.equal(rows.length, Object.keys(v.state.seats).length);
      for (const row of rows) {
        const col = row.head.split(" ")[0];
        const money = t.full.money[col];
        if (t.result) {
          const cell = row["Final money (the player's total)"];
          assert.ok(cell.startsWith(`${t.result.details.money_by_colour[col]} (`), `${who} ${col}: ${cell}`);
        } else if (v.state.your_colours.includes(col)) {
          assert.equal(row.Money, `${money} (exact)`, `${who} ${col}`);
        } else {
          digits++;
          assert.equal(row.Money, `ends in ${money % 10} (last digit)`, `${who} ${col}`);
        }
        assert.equal(row["Tax markers"], String(v.state.tax_markers[col]));
      }
    }
    assert.ok(digits > 0, "some seat did not know another's money");
  });
});

describe("lancaster: the text view", async () => {
  const fx = fixture("lancaster");
  const text = (await client(fx.text)).default;
  const fullOf = (t, seat) => t.full.players.find((p) => p.seat === seat);

  test("a seat reads what is behind its own screen; the others' screens stay hidden", () => {
    let screens = 0;
    for (const { t, v, c, who } of views(fx)) {
      const x = read(text, v, c);
      assert.equal(x.section("reader-hand") != null, v.you != null, who);
      if (v.you != null) {
        const me = fullOf(t, v.you);
        assert.ok(x.said("reader-hand").includes(`Behind your screen: ${me.gold} gold and ${me.squires} squires.`), who);
      }
      for (const row of x.rows("reader-scores")) {
        const p = v.state.players.find((q) => row.head.startsWith(NAMES[q.seat]));
        // the view decides: a seat's own screen, every screen in the 2-player game and at the end
        const open = p.gold != null;
        assert.equal(open, t.status === "finished" || p.seat === v.you || t.n === 2, `${who} seat ${p.seat}`);
        if (!open) screens++;
        assert.equal(row.Gold, open ? String(fullOf(t, p.seat).gold) : "hidden", `${who} seat ${p.seat}`);
        assert.equal(row.Squires, open ? String(fullOf(t, p.seat).squires) : "hidden", `${who} seat ${p.seat}`);
        assert.equal(row[t.result ? "Final points" : "Power"].split(" ")[0], String(t.result ? t.result.scores[p.seat] : p.power));
      }
    }
    assert.ok(screens > 0);
  });

  test("a secret vote is said to the voter only, until the votes are revealed", () => {
    for (const { v, c, who } of views(fx)) {
      const x = read(text, v, c);
      const vote = v.state.vote;
      const said = x.said("reader-parliament");
      assert.equal(said.includes("Your secret vote"), Boolean(vote && vote.mine), who);
      const others = NAMES.filter((n, i) => i !== v.you && said.includes(`${n} voted`));
      if (!(vote && vote.votes)) assert.deepEqual(others, [], who);
    }
  });
});

for (const game of GAMES) {
  describe(`${game}: every page part over every view`, async () => {
    const fx = fixture(game);
    const r = (await client(fx.module)).default;
    const text = (await client(fx.text)).default;

    test("a player's name with markup is shown as text, never run", () => {
      for (const { t, v } of views(fx)) {
        const c = context(t, v, NAMES.map(() => HOSTILE));
        for (const out of [r.board(v.state, c), r.details(v.state, c), ...text.sections(v.state, c)]) {
          assert.doesNotMatch(String(out), /<script|<img|&amp;amp;amp;/i); // escaped once, not twice
        }
        const shown = dom(`${text.sections(v.state, c).join("")}${r.details(v.state, c)}`).textContent;
        assert.ok(shown.includes(HOSTILE), "the name reads as typed");
      }
    });

    test("the phase is said in words, and the result has a cell for every column", () => {
      for (const { t, v, c, who } of views(fx)) {
        const phase = r.phase(v.state, c);
        assert.equal(typeof phase, "string");
        assert.doesNotMatch(phase, /_|\bundefined\b|\bNaN\b/, `${who}: ${phase}`);
        if (t.result && r.result) {
          const res = r.result(t.result, c);
          for (let seat = 0; seat < t.n; seat++) assert.equal(res.row(seat).length, res.columns.length);
        }
      }
    });
  });
}
