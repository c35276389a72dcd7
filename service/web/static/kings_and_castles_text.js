// Kings and Castles in words, for the text view (reader.js): the square, the King and the
// phase, your colours' armies and households (your hand), money and tax markers (exact for
// your colours, the last digit for the others: what the view holds), the map country by
// country (each territory's town value, holder, castle, defence, port, gate or flag) and the
// succession track.
import { colourWord, counter, countersWords, countryName, PHASES, SYM } from "./kings_and_castles.js";
import { t } from "./i18n.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { green: "G", blue: "B", teal: "T", pink: "P" };
const COUNTRIES = ["England", "Scotland", "Wales", "Ireland", "France"];
const phase = (s) => (PHASES[s.phase] ? t(PHASES[s.phase]) : s.phase);
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const features = (name) => {
  const sym = SYM[name] || "";
  return and([sym.includes("P") ? t("port") : "", sym.includes("G") ? t("gate") : "", sym.includes("F") ? t("flag") : ""]);
};
const defence = (t) => (t.holder ? counter(t.holder).points : 0) + (t.castle ? counter(t.castle).points : 0);

function money(s, col) {
  if (s.money && s.money[col] != null) return t("{money} (exact)", { money: String(s.money[col]) });
  return s.money_digit && s.money_digit[col] != null ? t("ends in {digit} (last digit)", { digit: String(s.money_digit[col]) }) : t("unknown");
}

function sections(s, c) {
  const mine = s.your_colours || [];
  const res = c.view && c.view.result;
  const colours = Object.keys(s.seats).sort((a, b) => mine.includes(b) - mine.includes(a) || s.seats[a] - s.seats[b]);
  const parts = [];
  parts.push(
    part(
      "reader-round",
      t("The square"),
      list([
        s.square ? t("Square {square} of {last}: {phase}.", { square: s.square, last: s.last_square, phase: phase(s) }) : t("Setting up: {phase}.", { phase: phase(s) }),
        s.king ? t("The King: {king}.", { king: colourWord(s.king) }) : t("No King yet."),
        ...(s.acting_colour
          ? [mine.includes(s.acting_colour) ? t("Acting colour: {colour} (yours).", { colour: colourWord(s.acting_colour) }) : t("Acting colour: {colour}.", { colour: colourWord(s.acting_colour) })]
          : []),
        ...(s.mandated_country ? [t("The King must attack {country}.", { country: countryName(s.mandated_country) })] : []),
        ...(s.countries_attacked.length ? [t("Attacked this square: {countries}.", { countries: and(s.countries_attacked.map(countryName)) })] : []),
        ...(s.draw_needed ? [t("Counters to draw: {count}.", { count: s.draw_needed })] : []),
        t("In the bag: {count} counters; destroyed: {destroyed}.", { count: s.bag_size, destroyed: s.destroyed.length }),
      ]),
    ),
  );
  if (mine.length) {
    parts.push(
      part(
        "reader-hand",
        t("Your armies"),
        mine.map((col) =>
          part(
            `reader-army-${col}`,
            t("{colour}: army of {army}, household of {household}", { colour: cap(colourWord(col)), army: (s.armies[col] || []).length, household: (s.households[col] || []).length }),
            html`<p>${t("Army: {counters}.", { counters: countersWords(s.armies[col] || [], col) || t("none") })}</p>
              ${list(
                (s.armies[col] || []).map((id) => cap(counter(id).name)),
                t("No counters in the army."),
              )}
              <p>${t("Household: {counters}.", { counters: countersWords(s.households[col] || [], col) || t("none") })}</p>`,
            4,
          ),
        ),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      res ? t("Scores: final money") : t("Money and colours"),
      dataTable(
        t("Each colour's player, money, tax markers, army and household"),
        [t("Colour"), t("Player"), res ? t("Final money (the player's total)") : t("Money"), t("Tax markers"), t("Army"), t("Household")],
        colours.map((col) => [
          `${colourWord(col)} (${LETTER[col] || "?"})${s.king === col ? t(", the King") : ""}`,
          `${c.names[s.seats[col]]}${mine.includes(col) ? t(" (you)") : ""}`,
          res ? `${((res.details || {}).money_by_colour || {})[col] ?? "?"} (${res.scores[s.seats[col]]})` : money(s, col),
          String(s.tax_markers[col]),
          mine.includes(col) ? String((s.armies[col] || []).length) : countersWords(s.armies[col] || [], null) || t("none"),
          String((s.households[col] || []).length),
        ]),
      ),
    ),
  );
  const byCountry = COUNTRIES.map((country) => {
    const names = Object.keys(s.territories).filter((n) => s.territories[n].country === country).sort();
    const notes = [s.mandated_country === country ? t("the King must attack it") : "", s.countries_attacked.includes(country) ? t("attacked") : ""].filter(Boolean);
    return part(
      `reader-${country.toLowerCase()}`,
      `${countryName(country)}${notes.length ? ` (${notes.join(t(", "))})` : ""}`,
      dataTable(
        t("{country}: {count} territories", { country: countryName(country), count: names.length }),
        [t("Territory (port, gate, flag)"), t("Town value"), t("Held by"), t("Defence")],
        names.map((n) => {
          const ter = s.territories[n];
          const f = features(n);
          return [
            `${n}${f ? ` (${f})` : ""}`,
            String(ter.town_value),
            `${ter.holder ? counter(ter.holder).name : t("empty")}${ter.castle ? t(", and a {castle}", { castle: counter(ter.castle).name }) : ""}`,
            String(defence(ter)),
          ];
        }),
      ),
      4,
    );
  });
  parts.push(part("reader-board", t("The map, country by country"), byCountry));
  parts.push(
    part(
      "reader-track",
      t("The succession track"),
      dataTable(
        t("Each square's king, bonus, country to attack and crown"),
        [t("Square"), t("King"), t("Bonus"), t("Attacks"), t("Crown")],
        s.track.map((q) => [
          `${q.square}${q.square === s.square ? t(" (now)") : ""}`,
          q.king,
          `+${q.bonus}`,
          countryName(q.country),
          q.crown ? `${colourWord(q.crown)}${q.turned ? t(" (turned: that reign is over)") : ""}` : t("none"),
        ]),
      ),
    ),
  );
  return parts;
}

// The moves are grouped by the renderer's groupOf (attacks by target, castles by territory).
/** @type {import("./common.js").TextView} */
export default { sections };
