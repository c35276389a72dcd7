// Artus: the round table of 29 seats (values and colour bands turn with the King), every
// figure, the rings (crowns), the scoring cards and the seat's own hand.
import { cap, deco, eventWords, lastOf, legalKeys, mark, phaseIn, piece, signed, swatch, tip } from "./common.js";
import { N_, t, tn } from "./i18n.js";
import { html, svg } from "./ui.js";

const PLAYER = {
  red: { fill: "#c8372d", text: "#fff", letter: "R" },
  yellow: { fill: "#f0c419", text: "#222", letter: "Y" },
  green: { fill: "#27803f", text: "#fff", letter: "G" },
  blue: { fill: "#2b6cb0", text: "#fff", letter: "B" },
};
const ZONE = {
  crown: { fill: "#6b4fa0", pattern: "" },
  red: { fill: "#e8817a", pattern: "url(#hatch)" },
  yellow: { fill: "#f3d77a", pattern: "url(#dots)" },
  green: { fill: "#8cc79a", pattern: "" },
};
const CARDS = {
  "K1-5B": N_("Knight 1-5 ⇄"),
  "K3-6": N_("Knight 3-6"),
  "K2-5": N_("Knight 2-5"),
  "K7-9": N_("Knight 7-9"),
  "K1-3": N_("Knight 1-3"),
  "K2-4": N_("Knight 2-4"),
  "K4-7": N_("Knight 4-7"),
  "K5-8": N_("Knight 5-8"),
  "M4-8": N_("King move 4-8 (silver, bronze)"),
  "M1-7S": N_("King move 1-7 (silver)"),
  "M1-7B": N_("King move 1-7 (bronze)"),
  "M1-5B": N_("King move 1-5 ⇄ (silver, bronze)"),
  RS: N_("Ring (silver)"),
  RB: N_("Ring (bronze)"),
  RX1: N_("Ring (silver or bronze)"),
  RX2: N_("Ring (silver or bronze)"),
  "S-all": N_("Scoring: all your knights"),
  "S-neg": N_("Scoring: all your knights, negated"),
  "S-gyr": N_("Scoring: green + yellow + red (or −15)"),
  "S-carpet": N_("Scoring: two on the carpet (or −25)"),
  "S-red": N_("Scoring: three on red (or −50)"),
  "S-choice": N_("Scoring: your choice"),
};
const N = 29;

export const cardName = (id) => (CARDS[id.split("/")[1]] ? t(CARDS[id.split("/")[1]]) : id);
const cardColour = (id) => id.split("/")[0];
/** The colours of the players, the princes and the bands, in the page's language. */
const COLOURS = { red: N_("red"), yellow: N_("yellow"), green: N_("green"), blue: N_("blue"), silver: N_("silver"), bronze: N_("bronze") };
export const colourName = (col) => (COLOURS[col] ? t(COLOURS[col]) : col);
const figColour = (f) => f.split("-")[0];
const isKnight = (f) => /-k\d+$/.test(f);
/** A figure in words: "red-k1" is "Red's knight 1", "silver-2" the silver prince 2 (or the
 *  King, while he wears the crown). */
export const princeName = (f) => t("the {colour} prince {n}", { colour: colourName(f.split("-")[0]), n: f.split("-")[1] || "" }).trim();
export const figName = (f, s) => {
  if (!f) return "";
  if (isKnight(f)) return t("{colour}'s knight {n}", { colour: cap(colourName(figColour(f))), n: f.split("-k")[1] });
  return s && f === s.king ? t("the King ({prince})", { prince: princeName(f) }) : princeName(f);
};
const seatOf = (s, f) => s.seats.indexOf(f);

function pos(i, r) {
  const a = ((-90 + (i * 360) / N) * Math.PI) / 180;
  return [300 + r * Math.cos(a), 300 + r * Math.sin(a)];
}

function band(i, r1, r2) {
  const h = 180 / N;
  const a0 = ((-90 + (i * 360) / N - h) * Math.PI) / 180;
  const a1 = ((-90 + (i * 360) / N + h) * Math.PI) / 180;
  const p = (a, r) => `${(300 + r * Math.cos(a)).toFixed(1)} ${(300 + r * Math.sin(a)).toFixed(1)}`;
  return `M${p(a0, r1)} A${r1} ${r1} 0 0 1 ${p(a1, r1)} L${p(a1, r2)} A${r2} ${r2} 0 0 0 ${p(a0, r2)} Z`;
}

function figure(f, s, x, y, moved, legal) {
  if (isKnight(f)) {
    const p = PLAYER[figColour(f)] || { fill: "#6b6b6b", text: "#fff", letter: "?" };
    const words = t("{figure}, on seat {seat} ({value})", { figure: figName(f, s), seat: String(seatOf(s, f)), value: signed(s.values[seatOf(s, f)]) });
    return svg`<g class="fig knight${mark(moved, "moved")}" ${piece(`fig:${f}`, legal, `${p.letter}${f.split("-k")[1]}: ${words}`)}>${tip(words)}
      <circle cx="${x}" cy="${y}" r="22" class="hit"/>
      <circle cx="${x}" cy="${y}" r="15" fill="${p.fill}" stroke="#111" stroke-width="1.5"/>
      <text x="${x}" y="${y + 5}" text-anchor="middle" class="fig-t" fill="${p.text}">${p.letter}${f.split("-k")[1]}</text></g>`;
  }
  const silver = f.startsWith("silver");
  const king = f === s.king;
  const rings = s.rings[f] || 0;
  const fill = silver ? "#d9dde3" : "#c98a4b";
  const words = tn("{figure}, {count} ring, on seat {seat}", "{figure}, {count} rings, on seat {seat}", rings, { figure: cap(figName(f, s)), seat: String(seatOf(s, f)) });
  const shown = `${silver ? "S" : "B"}${f.slice(-1)}`;
  return svg`<g class="fig prince${king ? " king" : ""}${mark(moved, "moved")}" ${piece(`fig:${f}`, legal, `${shown}: ${words}`)}>${tip(words)}
    <circle cx="${x}" cy="${y}" r="22" class="hit"/>
    ${king
      ? svg`<path d="M${x - 17} ${y + 10} L${x - 17} ${y - 8} L${x - 9} ${y} L${x} ${y - 14} L${x + 9} ${y} L${x + 17} ${y - 8} L${x + 17} ${y + 10} Z" fill="#f2c14e" stroke="#5a3d00" stroke-width="2"/>`
      : svg`<rect x="${x - 13}" y="${y - 13}" width="26" height="26" transform="rotate(45 ${x} ${y})" fill="${fill}" stroke="#333" stroke-width="1.5"/>`}
    <text x="${x}" y="${y + 5}" text-anchor="middle" class="fig-t" fill="#222">${shown}</text>
    ${Array.from({ length: rings }, (_, k) => svg`<circle cx="${x - (rings - 1) * 4 + k * 8}" cy="${y + 21}" r="3.2" fill="#f2c14e" stroke="#5a3d00"/>`)}
  </g>`;
}

/** What the last event touched: the seats it left and reached, and the figures it moved. */
function touched(e) {
  const t = { seats: new Set(), from: new Set(), figs: new Set() };
  if (!e) return t;
  const d = e.data || {};
  if (e.type === "KnightPlaced") {
    t.seats.add(d.seat);
    t.figs.add(d.knight);
  }
  for (const m of (e.type === "CardPlayed" && d.moves) || []) {
    t.from.add(m.from);
    t.seats.add(m.to);
    t.figs.add(m.figure);
  }
  return t;
}

function board(s, c) {
  const last = touched(lastOf(c));
  const legal = legalKeys(c, keysOf, s);
  const seats = [];
  for (let i = 0; i < N; i++) {
    const z = ZONE[s.zones[i]] || ZONE.green;
    const carpet = s.carpet.includes(i);
    const [tx, ty] = pos(i, 262);
    const [fx, fy] = pos(i, 212);
    const [nx, ny] = pos(i, 288);
    const v = s.values[i];
    const zone = ZONES[s.zones[i]] ? t(ZONES[s.zones[i]]) : "";
    const where = [zone, carpet ? t("on the carpet") : ""].filter(Boolean).map((x) => t(", ") + x).join("");
    const who = s.seats[i] ? t(": {figure}", { figure: figName(s.seats[i], s) }) : t(", empty");
    const words = t("Seat {seat}, value {value}", { seat: String(i), value: signed(v) }) + where + who;
    seats.push(svg`<g class="seat${mark(last.seats.has(i))}${mark(last.from.has(i), "last-from")}" data-seat="${i}">
      <path d="${band(i, 242, 282)}" fill="${z.fill}" stroke="#fff" stroke-width="1" ${deco}/>
      ${z.pattern ? svg`<path d="${band(i, 242, 282)}" fill="${z.pattern}" class="pat" ${deco}/>` : ""}
      <text x="${tx}" y="${ty + 5}" text-anchor="middle" class="val" ${deco}>${i === s.king_seat ? "♔" : signed(v)}</text>
      <text x="${nx}" y="${ny + 3}" text-anchor="middle" class="seat-no" ${deco}>${i}</text>
      <circle cx="${fx}" cy="${fy}" r="19" class="ring${carpet ? " carpet" : ""}" ${deco}/>
      <path d="${band(i, 170, 296)}" class="slot" ${piece(`seat:${i}`, legal, words)}>${tip(words)}</path>
      ${s.seats[i] ? figure(s.seats[i], s, fx, fy, last.figs.has(s.seats[i]), legal) : ""}
    </g>`);
  }
  const n = c.names;
  const me = c.you;
  const hand = me != null ? s.hand || (s.hands && s.hands[me]) : null;
  return html`<div class="artus-wrap"><svg viewBox="0 0 600 600" class="artus" role="group" aria-label="${t("the round table")}">
    <defs ${deco}>
      <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#8a1f17" stroke-width="1.4" opacity=".45"/></pattern>
      <pattern id="dots" width="6" height="6" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="1.1" fill="#7a5a00" opacity=".5"/></pattern>
    </defs>
    <circle cx="300" cy="300" r="240" class="table-top" ${deco}/>
    <circle cx="300" cy="300" r="120" class="plate" ${deco}/>
    ${seats}
    <text x="300" y="268" text-anchor="middle" class="centre-big">${t("Round {round}/{rounds}", { round: s.round, rounds: s.rounds })}</text>
    <text x="300" y="296" text-anchor="middle" class="centre">${rulesWords(s.rules)} · ${phaseWords(s)}</text>
    <text x="300" y="322" text-anchor="middle" class="centre">${t("King: {prince}, seat {seat}", { prince: princeName(s.king), seat: String(s.king_seat) })}</text>
    <text x="300" y="346" text-anchor="middle" class="centre">${t("rings in supply: {n}", { n: s.ring_supply })}</text>
    ${s.to_act.length ? svg`<text x="300" y="372" text-anchor="middle" class="centre">${t("to act: {names}", { names: s.to_act.map((x) => n[x]).join(t(", ")) })}</text>` : ""}
  </svg>
  ${hand
    ? html`<section class="artus-hand" aria-labelledby="hand-h"><h2 id="hand-h">${t("Your hand ({count})", { count: hand.length })}</h2>${hand.length ? html`<ul class="hand">${handCards(hand, legal)}</ul>` : html`<p class="muted">${t("empty")}</p>`}${piles(s, c, legal)}</section>`
    : ""}</div>`;
}

/** The seat's own draw piles: each a control when a move draws from it (after a card). */
function piles(s, c, legal) {
  const mine = c.you != null && s.piles ? s.piles[c.you] : null;
  if (!mine) return "";
  return html`<ul class="hand artus-piles">${Object.entries(mine).map(([p, k]) => {
    const shown = cap(tn("{pile}: {count} card", "{pile}: {count} cards", k, { pile: pileName(p) }));
    return html`<li><span class="card-chip pile-chip" ${piece(`pile:${p}`, legal, shown)} title="${t("Draw a card from your {pile}", { pile: pileName(p) })}">${shown}</span></li>`;
  })}</ul>`;
}

const PHASES = { setup: N_("setting up"), placement: N_("placing knights"), play: N_("playing cards"), draw: N_("drawing"), over: N_("over") };
const phaseWords = (s) => t(phaseIn(PHASES)(s));
const ZONES = { crown: N_("the King's seat"), red: N_("red band"), yellow: N_("yellow band"), green: N_("green band") };
const PILES = { knight: N_("knight pile"), king: N_("king pile") };
const PILE_CARDS = { knight: N_("knight cards"), king: N_("king cards") };
/** A draw pile's name ("knight pile", "king pile"), in the page's language. */
export const pileName = (p) => (PILES[p] ? t(PILES[p]) : t("{pile} pile", { pile: p }));
const RULES = { basic: N_("basic rules"), advanced: N_("advanced rules") };
/** The rules played ("basic rules"), in the page's language. */
export const rulesWords = (r) => (RULES[r] ? t(RULES[r]) : t("{rules} rules", { rules: r }));

/** A card in words, for its tooltip: what it does, and whose it is. */
const CARD_HELP = {
  K: N_("Move one of your knights that many seats (⇄: either way) and score the seat it leaves."),
  M: N_("Move the King or a prince that many seats; a prince scores the seat he leaves."),
  R: N_("A ring for a prince: who sits beside him scores."),
  S: N_("Score your knights as the card says."),
};
const cardTip = (id) => {
  const help = CARD_HELP[(id.split("/")[1] || "")[0]];
  return `${t("{colour} card: {card}.", { colour: cap(colourName(cardColour(id))), card: cardName(id) })} ${help ? t(help) : "."}`;
};

/** Cards as list items; the seat's own hand (``legal``: the keys the legal moves use) keyed,
 *  each card a control when a move plays it.  Its name is its visible text, letter first. */
function handCards(cards, legal) {
  return cards.map((id) => {
    const shown = `${(PLAYER[cardColour(id)] || {}).letter || "?"} ${cardName(id)}`;
    return html`<li><span class="card-chip c-${cardColour(id)}" ${legal ? piece(`card:${id}`, legal, shown) : ""} title="${cardTip(id)}">
      <span class="chip-letter">${shown.split(" ")[0]}</span> ${cardName(id)}</span></li>`;
  });
}

function details(s, c) {
  const me = c.you;
  const hands = s.hands; // full view (finished game or replay)
  const res = c.view && c.view.result;
  return html`<div class="artus-details">
    <table class="mini">
      <thead><tr><th>${t("Player")}</th><th>${t("Colour")}</th><th>${res ? t("Final points") : t("Points")}</th><th>${t("Cards in hand")}</th><th>${t("Piles left")}</th></tr></thead>
      <tbody>${s.colours.map(
        (col, i) => html`<tr class="${s.to_act.includes(i) ? "acting" : ""}">
          <td>${c.names[i]}${i === me ? t(" (you)") : ""}</td>
          <td>${swatch(col, PLAYER[col].letter)} ${colourName(col)} (${PLAYER[col].letter})</td>
          <td class="num">${res ? res.scores[i] : s.scores[i]}</td>
          <td class="num">${s.hand_sizes[i]}</td>
          <td>${Object.entries(s.piles[i]).map(([p, k]) => t("{cards}: {count}", { cards: PILE_CARDS[p] ? t(PILE_CARDS[p]) : `${p} cards`, count: k })).join(" · ")}</td></tr>`,
      )}</tbody>
    </table>
    ${hands && me == null
      ? html`<h2>${t("Every hand (revealed)")}</h2>${hands.map((h, i) => html`<p>${c.names[i]}:</p><ul class="hand">${handCards(h, null)}</ul>`)}`
      : ""}
    ${s.played.length
      ? html`<h2>${t("Cards played ({count})", { count: s.played.length })}</h2><p class="muted small">${t("latest first")}</p><ul class="played">${handCards(s.played.slice(-8).reverse(), null)}</ul>`
      : ""}
    <p class="legend"><span class="lg z-red">${t("red −15…−1 (hatched)")}</span> <span class="lg z-yellow">${t("yellow 0 (dotted)")}</span> <span class="lg z-green">${t("green +1…+10")}</span> <span class="lg carpet-lg">${t("carpet seat (circled)")}</span></p>
  </div>`;
}

function describeAction(a, c) {
  const s = c.view.state;
  if (a.type === "place_knight") return t("Place a knight on seat {seat} ({value})", { seat: String(a.seat), value: signed(s.values[a.seat]) });
  if (a.type === "draw") return t("Draw a card from your {pile}", { pile: pileName(a.pile) });
  if (a.type !== "play") return `${a.type.replaceAll("_", " ")}`;
  const card = cardName(a.card);
  const back = a.direction === "ccw";
  /** "move <figure> <n> seats[ backwards]" */
  const move = (f) =>
    back
      ? tn("move {figure} {count} seat backwards", "move {figure} {count} seats backwards", a.steps, { figure: figName(f, s) })
      : tn("move {figure} {count} seat", "move {figure} {count} seats", a.steps, { figure: figName(f, s) });
  if (a.knight && a.steps != null) {
    const from = seatOf(s, a.knight);
    const then = t("(leaves seat {seat}, scores {value})", { seat: String(from), value: signed(s.values[from]) });
    return t("{card}: {move} {then}", { card, move: move(a.knight), then });
  }
  if (a.option === "move" || (a.figure && a.steps != null)) {
    const from = seatOf(s, a.figure);
    const then = a.figure === s.king ? t("(no score)") : t("(scores {value})", { value: signed(s.values[from]) });
    return t("{card}: {move} {then}", { card, move: move(a.figure), then });
  }
  if (a.prince) return t("{card}: a ring for {prince} (scores {value})", { card, prince: figName(a.prince, s), value: signed(s.values[seatOf(s, a.prince)]) });
  if (a.option === "score") return t("{card}: score {knight} ({value})", { card, knight: figName(a.knight, s), value: signed(s.values[seatOf(s, a.knight)]) });
  if (a.knights)
    return a.knights.length
      ? t("{card}: score {knights}", { card, knights: a.knights.map((k) => figName(k, s)).join(t(", ")) })
      : t("{card}: take the penalty", { card });
  return `${card}`;
}

function keysOf(a) {
  const k = [];
  if (a.type === "place_knight") k.push(`seat:${a.seat}`);
  if (a.card) k.push(`card:${a.card}`);
  for (const f of [a.knight, a.figure, a.prince]) if (f) k.push(`fig:${f}`);
  for (const f of a.knights || []) k.push(`fig:${f}`);
  if (a.type === "draw") k.push(`pile:${a.pile}`);
  return k;
}

function gameEvent(e, c, d, w) {
  switch (e.type) {
    case "GameStarted": {
      const sizes = (d.hand_sizes || []).filter((x) => x != null);
      const dealt = !sizes.length
        ? ""
        : sizes.every((x) => x === sizes[0])
          ? t(" ({count} each)", { count: sizes[0] })
          : ` (${sizes.join(t(", "))})`;
      const knights = d.knights_per_player ? t("; {count} knights each", { count: d.knights_per_player }) : "";
      return t("The cards were dealt{dealt}{knights}.", { dealt, knights });
    }
    case "KnightPlaced":
      return t("{who} placed {knight} on seat {seat}.", { who: w, knight: figName(d.knight), seat: String(d.seat) });
    case "CardPlayed": {
      const s = { king: d.king };
      const moves = (d.moves || []).map(
        (m) =>
          m.displaced
            ? t("{figure} was pushed from seat {from} to {to}", { figure: figName(m.figure, s), from: String(m.from), to: String(m.to) })
            : t("{figure} went from seat {from} to {to}", { figure: figName(m.figure, s), from: String(m.from), to: String(m.to) }),
      );
      const bits = [t("{who} played {card}", { who: w, card: cardName(d.card) })];
      if (moves.length) bits.push(moves.join(t(", ")));
      for (const [prince, n] of Object.entries(d.rings || {})) bits.push(tn("{prince} now has {count} ring", "{prince} now has {count} rings", n, { prince: princeName(prince) }));
      if (d.penalty != null) bits.push(t("a penalty of {n}", { n: String(d.penalty) }));
      bits.push(t("{value} points", { value: signed(d.points || 0) }));
      if (d.crowned) bits.push(t("{prince} is crowned King", { prince: princeName(d.crowned) }));
      if (d.table_turned) bits.push(t("the table turns"));
      return t("{list}.", { list: bits.join(t("; ")) });
    }
    case "CardDrawn":
      return d.card
        ? t("{who} drew from the {pile} ({card}).", { who: w, pile: pileName(d.pile), card: cardName(d.card) })
        : t("{who} drew from the {pile}.", { who: w, pile: pileName(d.pile) });
    default:
      return null;
  }
}

/** @type {import("./common.js").Renderer} */
export default {
  board,
  details,
  describeAction,
  describeEvent: eventWords(gameEvent),
  keysOf,
  phase: (s) => t("round {round}/{rounds}, {phase}", { round: s.round, rounds: s.rounds, phase: phaseWords(s) }),
  scores: (s) => Object.fromEntries(s.scores.map((x, i) => [i, x])),
  seatBadge: (seat, s) => {
    const col = s.colours[seat];
    return col ? swatch(col, PLAYER[col].letter) : "";
  },
  get clickHint() {
    return t("click a seat, a figure or a card");
  },
};
