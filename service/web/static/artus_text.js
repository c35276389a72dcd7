// Artus in words, for the text view (reader.js): whose turn and the round, your hand, the
// scores, the round table seat by seat (its value, its band, the carpet, who sits there), the
// King and the princes with their rings, and the cards played.  Only what the view holds.
import { cardName } from "./artus.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { red: "R", yellow: "Y", green: "G", blue: "B" };
const BAND = { crown: "the King's seat", red: "red", yellow: "yellow", green: "green" };
const PHASE = { placement: "placing knights", play: "playing cards", draw: "drawing", over: "over" };
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const signed = (x) => (x > 0 ? `+${x}` : x < 0 ? `minus ${-x}` : "0");

const isKnight = (f) => /-k\d+$/.test(f);
const princeName = (f) => `the ${f.split("-")[0]} prince ${f.split("-")[1] || ""}`.trim();
/** "red-k1": Red's knight 1; "silver-2": the silver prince 2 (the King, while crowned). */
function figName(f, s) {
  if (!f) return "";
  if (isKnight(f)) return `${cap(f.split("-")[0])}'s knight ${f.split("-k")[1]}`;
  return f === s.king ? `the King (${princeName(f)})` : princeName(f);
}
const cardColour = (id) => id.split("/")[0];
const cardWords = (id, own) => `${cardName(id)}${cardColour(id) !== own ? ` (${cardColour(id)})` : ""}`;

function sections(s, c) {
  const me = c.you;
  const own = me != null ? s.colours[me] : null;
  const hand = me != null ? s.hand || (s.hands && s.hands[me]) : null;
  const res = c.view && c.view.result;
  const parts = [];
  parts.push(
    part(
      "reader-round",
      "The round",
      list([
        `Round ${s.round} of ${s.rounds}, ${PHASE[s.phase] || s.phase}; ${s.rules} rules.`,
        `The King: ${princeName(s.king)}, on seat ${s.king_seat}.`,
        `Rings left in the supply: ${s.ring_supply}.`,
        ...(s.phase === "play" && s.plays_left != null ? [`Cards still to play this turn: ${s.plays_left}.`] : []),
        ...(s.phase === "draw" && s.draws_left != null ? [`Cards still to draw this turn: ${s.draws_left}.`] : []),
      ]),
    ),
  );
  if (hand) {
    parts.push(
      part(
        "reader-hand",
        `Your hand (${hand.length})`,
        list(hand.map((id) => cardWords(id, own)), "No cards in your hand."),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      "Scores",
      dataTable(
        res ? "Final points, cards in hand and piles left" : "Points, cards in hand and piles left",
        ["Player", "Colour", res ? "Final points" : "Points", "Cards in hand", "Knight pile", "King pile"],
        s.colours.map((col, i) => [
          `${c.names[i]}${i === me ? " (you)" : ""}`,
          `${col} (${LETTER[col] || "?"})`,
          String(res ? res.scores[i] : s.scores[i]),
          String(s.hand_sizes[i]),
          String((s.piles[i] || {}).knight ?? 0),
          String((s.piles[i] || {}).king ?? 0),
        ]),
      ),
    ),
  );
  if (s.hands && me == null) {
    parts.push(
      part(
        "reader-hands",
        "Every hand (revealed)",
        list(s.hands.map((h, i) => `${c.names[i]}: ${and(h.map((id) => cardWords(id, s.colours[i]))) || "no cards"}`)),
      ),
    );
  }
  const princes = Object.keys(s.rings).sort();
  parts.push(
    part(
      "reader-figures",
      "The King and the princes",
      list(
        princes.map((f) => {
          const r = s.rings[f] || 0;
          return `${cap(figName(f, s))}: ${r} ${r === 1 ? "ring" : "rings"}, on seat ${s.seats.indexOf(f)} (value ${signed(s.values[s.seats.indexOf(f)])}).`;
        }),
      ),
    ),
  );
  const rows = s.values.map((v, i) => [
    String(i),
    signed(v),
    `${BAND[s.zones[i]] || s.zones[i]}${s.carpet.includes(i) ? ", carpet" : ""}`,
    s.seats[i] ? figName(s.seats[i], s) : "empty",
  ]);
  parts.push(
    part(
      "reader-board",
      "The round table, seat by seat",
      html`<p>Seats run clockwise from 0; a knight scores the value of the seat it leaves.</p>${dataTable(
        "The 29 seats: value, band and who sits there",
        ["Seat", "Value", "Band", "Who sits there"],
        rows,
        { cls: "reader-seats" },
      )}`,
    ),
  );
  if (s.played.length) {
    parts.push(
      part(
        "reader-played",
        `Cards played (${s.played.length}), latest first`,
        list(s.played.slice(-8).reverse().map((id) => cardWords(id, null))),
      ),
    );
  }
  return parts;
}

/** The kinds of move, a group each: placing, drawing, and each card to play. */
function groupOf(a, s) {
  if (a.type === "place_knight") return "Place a knight";
  if (a.type === "draw") return "Draw a card";
  if (a.type === "play") return `Play ${cardWords(a.card, s.colours[s.seat] || null)}`;
  return cap(a.type.replaceAll("_", " "));
}

/** @type {import("./common.js").TextView} */
export default { sections, groupOf };
