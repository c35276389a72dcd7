// Kings and Castles in words, for the text view (reader.js): the square, the King and the
// phase, your colours' armies and households (your hand), money and tax markers (exact for
// your colours, the last digit for the others: what the view holds), the map country by
// country (each territory's town value, holder, castle, defence, port, gate or flag) and the
// succession track.
import { counter, countersWords, SYM } from "./kings_and_castles.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { green: "G", blue: "B", teal: "T", pink: "P" };
const COUNTRIES = ["England", "Scotland", "Wales", "Ireland", "France"];
const PHASE = {
  forming: "forming armies", crowns: "placing crowns", bonus: "drawing the bonus", occupy_rouen: "occupying Rouen",
  attacks: "attacks", castles: "castles", tax: "taxation", refill: "refilling the army", over: "over",
};
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const features = (name) => {
  const sym = SYM[name] || "";
  return and([sym.includes("P") ? "port" : "", sym.includes("G") ? "gate" : "", sym.includes("F") ? "flag" : ""]);
};
const defence = (t) => (t.holder ? counter(t.holder).points : 0) + (t.castle ? counter(t.castle).points : 0);

function money(s, col) {
  if (s.money && s.money[col] != null) return `${s.money[col]} (exact)`;
  return s.money_digit && s.money_digit[col] != null ? `ends in ${s.money_digit[col]} (last digit)` : "unknown";
}

function sections(s, c) {
  const mine = s.your_colours || [];
  const res = c.view && c.view.result;
  const colours = Object.keys(s.seats).sort((a, b) => mine.includes(b) - mine.includes(a) || s.seats[a] - s.seats[b]);
  const parts = [];
  parts.push(
    part(
      "reader-round",
      "The square",
      list([
        s.square ? `Square ${s.square} of ${s.last_square}: ${PHASE[s.phase] || s.phase}.` : `Setting up: ${PHASE[s.phase] || s.phase}.`,
        s.king ? `The King: ${s.king}.` : "No King yet.",
        ...(s.acting_colour ? [`Acting colour: ${s.acting_colour}${mine.includes(s.acting_colour) ? " (yours)" : ""}.`] : []),
        ...(s.mandated_country ? [`The King must attack ${s.mandated_country}.`] : []),
        ...(s.countries_attacked.length ? [`Attacked this square: ${and(s.countries_attacked)}.`] : []),
        ...(s.draw_needed ? [`Counters to draw: ${s.draw_needed}.`] : []),
        `In the bag: ${s.bag_size} counters; destroyed: ${s.destroyed.length}.`,
      ]),
    ),
  );
  if (mine.length) {
    parts.push(
      part(
        "reader-hand",
        "Your armies",
        mine.map((col) =>
          part(
            `reader-army-${col}`,
            `${cap(col)}: army of ${(s.armies[col] || []).length}, household of ${(s.households[col] || []).length}`,
            html`<p>Army: ${countersWords(s.armies[col] || [], col) || "none"}.</p>
              ${list((s.armies[col] || []).map((id) => cap(counter(id).name)), "No counters in the army.")}
              <p>Household: ${countersWords(s.households[col] || [], col) || "none"}.</p>`,
            4,
          ),
        ),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      res ? "Scores: final money" : "Money and colours",
      dataTable(
        "Each colour's player, money, tax markers, army and household",
        ["Colour", "Player", res ? "Final money (the player's total)" : "Money", "Tax markers", "Army", "Household"],
        colours.map((col) => [
          `${col} (${LETTER[col] || "?"})${s.king === col ? ", the King" : ""}`,
          `${c.names[s.seats[col]]}${mine.includes(col) ? " (you)" : ""}`,
          res ? `${((res.details || {}).money_by_colour || {})[col] ?? "?"} (${res.scores[s.seats[col]]})` : money(s, col),
          String(s.tax_markers[col]),
          mine.includes(col) ? String((s.armies[col] || []).length) : countersWords(s.armies[col] || [], null) || "none",
          String((s.households[col] || []).length),
        ]),
      ),
    ),
  );
  const byCountry = COUNTRIES.map((country) => {
    const names = Object.keys(s.territories).filter((n) => s.territories[n].country === country).sort();
    const notes = [s.mandated_country === country ? "the King must attack it" : "", s.countries_attacked.includes(country) ? "attacked" : ""].filter(Boolean);
    return part(
      `reader-${country.toLowerCase()}`,
      `${country}${notes.length ? ` (${notes.join(", ")})` : ""}`,
      dataTable(
        `${country}: ${names.length} territories`,
        ["Territory (port, gate, flag)", "Town value", "Held by", "Defence"],
        names.map((n) => {
          const t = s.territories[n];
          const f = features(n);
          return [
            `${n}${f ? ` (${f})` : ""}`,
            String(t.town_value),
            `${t.holder ? counter(t.holder).name : "empty"}${t.castle ? `, and a ${counter(t.castle).name}` : ""}`,
            String(defence(t)),
          ];
        }),
      ),
      4,
    );
  });
  parts.push(part("reader-board", "The map, country by country", byCountry));
  parts.push(
    part(
      "reader-track",
      "The succession track",
      dataTable(
        "Each square's king, bonus, country to attack and crown",
        ["Square", "King", "Bonus", "Attacks", "Crown"],
        s.track.map((q) => [
          `${q.square}${q.square === s.square ? " (now)" : ""}`,
          q.king,
          `+${q.bonus}`,
          q.country,
          q.crown ? `${q.crown}${q.turned ? " (turned: that reign is over)" : ""}` : "none",
        ]),
      ),
    ),
  );
  return parts;
}

// The moves are grouped by the renderer's groupOf (attacks by target, castles by territory).
/** @type {import("./common.js").TextView} */
export default { sections };
