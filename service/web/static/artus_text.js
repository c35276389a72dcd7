// Artus in words, for the text view (reader.js): whose turn and the round, your hand, the
// scores, the round table seat by seat (its value, its band, the carpet, who sits there), the
// King and the princes with their rings, and the cards played.  Only what the view holds.
import { cardName, colourName, figName, princeName, rulesWords } from "./artus.js";
import { N_, t, tn } from "./i18n.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { red: "R", yellow: "Y", green: "G", blue: "B" };
const BAND = { crown: N_("the King's seat"), red: N_("red"), yellow: N_("yellow"), green: N_("green") };
const PHASE = { placement: N_("placing knights"), play: N_("playing cards"), draw: N_("drawing"), over: N_("over") };
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
/** A seat's value said in words (a screen reader may skip a minus sign). */
const signed = (x) => (x > 0 ? `+${x}` : x < 0 ? t("minus {n}", { n: String(-x) }) : "0");
// figName (artus.js): "red-k1": Red's knight 1; "silver-2": the silver prince 2 (the King, while crowned).
const cardColour = (id) => id.split("/")[0];
const cardWords = (id, own) => `${cardName(id)}${cardColour(id) !== own ? ` (${colourName(cardColour(id))})` : ""}`;

function sections(s, c) {
  const me = c.you;
  const own = me != null ? s.colours[me] : null;
  const hand = me != null ? s.hand || (s.hands && s.hands[me]) : null;
  const res = c.view && c.view.result;
  const parts = [];
  parts.push(
    part(
      "reader-round",
      t("The round"),
      list([
        t("Round {round} of {rounds}, {phase}; {rules}.", { round: s.round, rounds: s.rounds, phase: PHASE[s.phase] ? t(PHASE[s.phase]) : s.phase, rules: rulesWords(s.rules) }),
        t("The King: {prince}, on seat {seat}.", { prince: princeName(s.king), seat: String(s.king_seat) }),
        t("Rings left in the supply: {n}.", { n: s.ring_supply }),
        ...(s.phase === "play" && s.plays_left != null ? [t("Cards still to play this turn: {n}.", { n: s.plays_left })] : []),
        ...(s.phase === "draw" && s.draws_left != null ? [t("Cards still to draw this turn: {n}.", { n: s.draws_left })] : []),
      ]),
    ),
  );
  if (hand) {
    parts.push(
      part(
        "reader-hand",
        t("Your hand ({count})", { count: hand.length }),
        list(
          hand.map((id) => cardWords(id, own)),
          t("No cards in your hand."),
        ),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      t("Scores"),
      dataTable(
        res ? t("Final points, cards in hand and piles left") : t("Points, cards in hand and piles left"),
        [t("Player"), t("Colour"), res ? t("Final points") : t("Points"), t("Cards in hand"), t("Knight pile"), t("King pile")],
        s.colours.map((col, i) => [
          `${c.names[i]}${i === me ? t(" (you)") : ""}`,
          `${colourName(col)} (${LETTER[col] || "?"})`,
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
        t("Every hand (revealed)"),
        list(s.hands.map((h, i) => `${c.names[i]}: ${and(h.map((id) => cardWords(id, s.colours[i]))) || t("no cards")}`)),
      ),
    );
  }
  const princes = Object.keys(s.rings).sort();
  parts.push(
    part(
      "reader-figures",
      t("The King and the princes"),
      list(
        princes.map((f) => {
          const r = s.rings[f] || 0;
          const seat = s.seats.indexOf(f);
          return tn("{figure}: {count} ring, on seat {seat} (value {value}).", "{figure}: {count} rings, on seat {seat} (value {value}).", r, {
            figure: cap(figName(f, s)),
            seat: String(seat),
            value: signed(s.values[seat]),
          });
        }),
      ),
    ),
  );
  const rows = s.values.map((v, i) => [
    String(i),
    signed(v),
    `${BAND[s.zones[i]] ? t(BAND[s.zones[i]]) : s.zones[i]}${s.carpet.includes(i) ? t(", carpet") : ""}`,
    s.seats[i] ? figName(s.seats[i], s) : t("empty"),
  ]);
  parts.push(
    part(
      "reader-board",
      t("The round table, seat by seat"),
      html`<p>${t("Seats run clockwise from 0; a knight scores the value of the seat it leaves.")}</p>${dataTable(
        t("The 29 seats: value, band and who sits there"),
        [t("Seat"), t("Value"), t("Band"), t("Who sits there")],
        rows,
        { cls: "reader-seats" },
      )}`,
    ),
  );
  if (s.played.length) {
    parts.push(
      part(
        "reader-played",
        t("Cards played ({count}), latest first", { count: s.played.length }),
        list(s.played.slice(-8).reverse().map((id) => cardWords(id, null))),
      ),
    );
  }
  return parts;
}

/** The kinds of move, a group each: placing, drawing, and each card to play. */
function groupOf(a, s) {
  if (a.type === "place_knight") return t("Place a knight");
  if (a.type === "draw") return t("Draw a card");
  if (a.type === "play") return t("Play {card}", { card: cardWords(a.card, s.colours[s.seat] || null) });
  return cap(a.type.replaceAll("_", " "));
}

/** @type {import("./common.js").TextView} */
export default { sections, groupOf };
