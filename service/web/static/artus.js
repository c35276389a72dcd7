// Artus: the round table of 29 seats (values and colour bands turn with the King), every
// figure, the rings (crowns), the scoring cards and the seat's own hand.
import { cap, deco, eventWords, lastOf, legalKeys, mark, phaseIn, piece, signed, swatch, tip } from "./common.js";
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
  "K1-5B": "Knight 1-5 ⇄",
  "K3-6": "Knight 3-6",
  "K2-5": "Knight 2-5",
  "K7-9": "Knight 7-9",
  "K1-3": "Knight 1-3",
  "K2-4": "Knight 2-4",
  "K4-7": "Knight 4-7",
  "K5-8": "Knight 5-8",
  "M4-8": "King move 4-8 (silver, bronze)",
  "M1-7S": "King move 1-7 (silver)",
  "M1-7B": "King move 1-7 (bronze)",
  "M1-5B": "King move 1-5 ⇄ (silver, bronze)",
  RS: "Ring (silver)",
  RB: "Ring (bronze)",
  RX1: "Ring (silver or bronze)",
  RX2: "Ring (silver or bronze)",
  "S-all": "Scoring: all your knights",
  "S-neg": "Scoring: all your knights, negated",
  "S-gyr": "Scoring: green + yellow + red (or −15)",
  "S-carpet": "Scoring: two on the carpet (or −25)",
  "S-red": "Scoring: three on red (or −50)",
  "S-choice": "Scoring: your choice",
};
const N = 29;

export const cardName = (id) => CARDS[id.split("/")[1]] || id;
const cardColour = (id) => id.split("/")[0];
const figColour = (f) => f.split("-")[0];
const isKnight = (f) => /-k\d+$/.test(f);
/** A figure in words: "red-k1" is "Red's knight 1", "silver-2" the silver prince 2 (or the
 *  King, while he wears the crown). */
const princeName = (f) => `the ${f.split("-")[0]} prince ${f.split("-")[1] || ""}`.trim();
const figName = (f, s) => {
  if (!f) return "";
  if (isKnight(f)) return `${cap(figColour(f))}'s knight ${f.split("-k")[1]}`;
  return s && f === s.king ? `the King (${princeName(f)})` : princeName(f);
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
    const words = `${figName(f, s)}, on seat ${seatOf(s, f)} (${signed(s.values[seatOf(s, f)])})`;
    return svg`<g class="fig knight${mark(moved, "moved")}" ${piece(`fig:${f}`, legal, `${p.letter}${f.split("-k")[1]}: ${words}`)}>${tip(words)}
      <circle cx="${x}" cy="${y}" r="22" class="hit"/>
      <circle cx="${x}" cy="${y}" r="15" fill="${p.fill}" stroke="#111" stroke-width="1.5"/>
      <text x="${x}" y="${y + 5}" text-anchor="middle" class="fig-t" fill="${p.text}">${p.letter}${f.split("-k")[1]}</text></g>`;
  }
  const silver = f.startsWith("silver");
  const king = f === s.king;
  const rings = s.rings[f] || 0;
  const fill = silver ? "#d9dde3" : "#c98a4b";
  const words = `${cap(figName(f, s))}, ${rings} ${rings === 1 ? "ring" : "rings"}, on seat ${seatOf(s, f)}`;
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
    const zone = { crown: "the King's seat", red: "red band", yellow: "yellow band", green: "green band" }[s.zones[i]] || "";
    const words = `Seat ${i}, value ${signed(v)}${zone ? `, ${zone}` : ""}${carpet ? ", on the carpet" : ""}${s.seats[i] ? `: ${figName(s.seats[i], s)}` : ", empty"}`;
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
  return html`<div class="artus-wrap"><svg viewBox="0 0 600 600" class="artus" role="group" aria-label="the round table">
    <defs ${deco}>
      <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#8a1f17" stroke-width="1.4" opacity=".45"/></pattern>
      <pattern id="dots" width="6" height="6" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="1.1" fill="#7a5a00" opacity=".5"/></pattern>
    </defs>
    <circle cx="300" cy="300" r="240" class="table-top" ${deco}/>
    <circle cx="300" cy="300" r="120" class="plate" ${deco}/>
    ${seats}
    <text x="300" y="268" text-anchor="middle" class="centre-big">Round ${s.round}/${s.rounds}</text>
    <text x="300" y="296" text-anchor="middle" class="centre">${s.rules} rules · ${phaseWords(s)}</text>
    <text x="300" y="322" text-anchor="middle" class="centre">King: ${princeName(s.king)}, seat ${s.king_seat}</text>
    <text x="300" y="346" text-anchor="middle" class="centre">rings in supply: ${s.ring_supply}</text>
    ${s.to_act.length ? svg`<text x="300" y="372" text-anchor="middle" class="centre">to act: ${s.to_act.map((x) => n[x]).join(", ")}</text>` : ""}
  </svg>
  ${hand
    ? html`<section class="artus-hand" aria-labelledby="hand-h"><h2 id="hand-h">Your hand (${hand.length})</h2>${hand.length ? html`<ul class="hand">${handCards(hand, legal)}</ul>` : html`<p class="muted">empty</p>`}${piles(s, c, legal)}</section>`
    : ""}</div>`;
}

/** The seat's own draw piles: each a control when a move draws from it (after a card). */
function piles(s, c, legal) {
  const mine = c.you != null && s.piles ? s.piles[c.you] : null;
  if (!mine) return "";
  return html`<ul class="hand artus-piles">${Object.entries(mine).map(([p, k]) => {
    const shown = `${cap(p)} pile: ${k} ${k === 1 ? "card" : "cards"}`;
    return html`<li><span class="card-chip pile-chip" ${piece(`pile:${p}`, legal, shown)} title="${`Draw a card from your ${p} pile`}">${shown}</span></li>`;
  })}</ul>`;
}

const phaseWords = phaseIn({ placement: "placing knights", play: "playing cards", draw: "drawing", over: "over" });

/** A card in words, for its tooltip: what it does, and whose it is. */
const CARD_HELP = {
  K: "move one of your knights that many seats (⇄: either way) and score the seat it leaves",
  M: "move the King or a prince that many seats; a prince scores the seat he leaves",
  R: "a ring for a prince: who sits beside him scores",
  S: "score your knights as the card says",
};
const cardTip = (id) => `${cap(cardColour(id))} card: ${cardName(id)}. ${cap(CARD_HELP[(id.split("/")[1] || "")[0]] || "")}.`;

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
      <thead><tr><th>Player</th><th>Colour</th><th>${res ? "Final points" : "Points"}</th><th>Cards in hand</th><th>Piles left</th></tr></thead>
      <tbody>${s.colours.map(
        (col, i) => html`<tr class="${s.to_act.includes(i) ? "acting" : ""}">
          <td>${c.names[i]}${i === me ? " (you)" : ""}</td>
          <td>${swatch(col, PLAYER[col].letter)} ${col} (${PLAYER[col].letter})</td>
          <td class="num">${res ? res.scores[i] : s.scores[i]}</td>
          <td class="num">${s.hand_sizes[i]}</td>
          <td>${Object.entries(s.piles[i]).map(([p, k]) => `${p} cards: ${k}`).join(" · ")}</td></tr>`,
      )}</tbody>
    </table>
    ${hands && me == null
      ? html`<h2>Every hand (revealed)</h2>${hands.map((h, i) => html`<p>${c.names[i]}:</p><ul class="hand">${handCards(h, null)}</ul>`)}`
      : ""}
    ${s.played.length
      ? html`<h2>Cards played (${s.played.length})</h2><p class="muted small">latest first</p><ul class="played">${handCards(s.played.slice(-8).reverse(), null)}</ul>`
      : ""}
    <p class="legend"><span class="lg z-red">red −15…−1 (hatched)</span> <span class="lg z-yellow">yellow 0 (dotted)</span> <span class="lg z-green">green +1…+10</span> <span class="lg carpet-lg">carpet seat (ring)</span></p>
  </div>`;
}

function describeAction(a, c) {
  const s = c.view.state;
  if (a.type === "place_knight") return `Place a knight on seat ${a.seat} (${signed(s.values[a.seat])})`;
  if (a.type === "draw") return `Draw a card from your ${a.pile} pile`;
  if (a.type !== "play") return `${a.type.replaceAll("_", " ")}`;
  const name = cardName(a.card);
  const dir = a.direction === "ccw" ? " backwards" : "";
  const seats = (n) => `${n} ${n === 1 ? "seat" : "seats"}`;
  if (a.knight && a.steps != null) {
    const from = seatOf(s, a.knight);
    return `${name}: move ${figName(a.knight, s)} ${seats(a.steps)}${dir} (leaves seat ${from}, scores ${signed(s.values[from])})`;
  }
  if (a.option === "move" || (a.figure && a.steps != null)) {
    const from = seatOf(s, a.figure);
    const pts = a.figure === s.king ? "no score" : `scores ${signed(s.values[from])}`;
    return `${name}: move ${figName(a.figure, s)} ${seats(a.steps)}${dir} (${pts})`;
  }
  if (a.prince) return `${name}: a ring for ${figName(a.prince, s)} (scores ${signed(s.values[seatOf(s, a.prince)])})`;
  if (a.option === "score") return `${name}: score ${figName(a.knight, s)} (${signed(s.values[seatOf(s, a.knight)])})`;
  if (a.knights) return a.knights.length ? `${name}: score ${a.knights.map((k) => figName(k, s)).join(", ")}` : `${name}: take the penalty`;
  return `${name}`;
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
          ? ` (${sizes[0]} each)`
          : ` (${sizes.join(", ")})`;
      const knights = d.knights_per_player ? `; ${d.knights_per_player} knights each` : "";
      return `The cards were dealt${dealt}${knights}.`;
    }
    case "KnightPlaced":
      return `${w} placed ${figName(d.knight)} on seat ${d.seat}.`;
    case "CardPlayed": {
      const s = { king: d.king };
      const moves = (d.moves || []).map(
        (m) => `${figName(m.figure, s)} ${m.displaced ? "was pushed" : "went"} from seat ${m.from} to ${m.to}`,
      );
      const bits = [`${w} played ${cardName(d.card)}`];
      if (moves.length) bits.push(moves.join(", "));
      for (const [prince, n] of Object.entries(d.rings || {})) bits.push(`${princeName(prince)} now has ${n === 1 ? "1 ring" : `${n} rings`}`);
      if (d.penalty != null) bits.push(`a penalty of ${d.penalty}`);
      bits.push(`${signed(d.points || 0)} points`);
      if (d.crowned) bits.push(`${princeName(d.crowned)} is crowned King`);
      if (d.table_turned) bits.push("the table turns");
      return bits.join("; ") + ".";
    }
    case "CardDrawn":
      return `${w} drew from the ${d.pile} pile${d.card ? ` (${cardName(d.card)})` : ""}.`;
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
  phase: (s) => `round ${s.round}/${s.rounds}, ${phaseWords(s)}`,
  scores: (s) => Object.fromEntries(s.scores.map((x, i) => [i, x])),
  seatBadge: (seat, s) => {
    const col = s.colours[seat];
    return col ? swatch(col, PLAYER[col].letter) : "";
  },
  clickHint: "click a seat, a figure or a card",
};
