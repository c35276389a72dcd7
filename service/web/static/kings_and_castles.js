// Kings and Castles: a schematic map of the 5 countries and 32 territories (the counter on each,
// castles, ports/gates/flags), the succession track with crowns and the current King, every
// colour's army and household, the bag, and money (exact for the seat's own colours, the last
// digit for the others, as the tax track shows it).
import { cap, deco, eventWords, lastOf, legalKeys, mark, phaseIn, piece, swatch, tip } from "./common.js";
import { N_, t, tn } from "./i18n.js";
import { html, svg } from "./ui.js";

const COL = {
  green: { fill: "#27803f", text: "#fff", letter: "G" },
  blue: { fill: "#2b6cb0", text: "#fff", letter: "B" },
  teal: { fill: "#137b7b", text: "#fff", letter: "T" },
  pink: { fill: "#b3427f", text: "#fff", letter: "P" },
  black: { fill: "#222", text: "#fff", letter: "X" },
};
const UNIT = { knight: ["K", 3, N_("knight"), N_("knights")], men_at_arms: ["M", 2, N_("men at arms"), N_("men at arms")], archers: ["A", 1, N_("archers"), N_("archers")] };
const COLOURS = { green: N_("green"), blue: N_("blue"), teal: N_("teal"), pink: N_("pink"), black: N_("enemy") };
/** A colour in the page's language (black: the enemy's). */
export const colourWord = (colour) => (COLOURS[colour] ? t(COLOURS[colour]) : colour);
const COUNTRY = {
  Scotland: { box: [330, 14, 250, 194] },
  Ireland: { box: [16, 160, 254, 290] },
  Wales: { box: [280, 226, 222, 250] },
  England: { box: [512, 214, 372, 268] },
  France: { box: [512, 492, 372, 150] },
};
const AT = {
  Inverness: [398, 66], Perth: [512, 66], Stirling: [398, 120], Edinburgh: [512, 120],
  Dumfries: [398, 174], Berwick: [512, 174],
  Durham: [580, 262], York: [700, 262], Chester: [580, 320], Lincoln: [700, 320],
  Bristol: [580, 380], London: [715, 384], Winchester: [640, 442], Canterbury: [820, 432],
  Caernarfon: [338, 274], Montgomery: [446, 294], Cardigan: [338, 334], Brecon: [446, 360],
  Pembroke: [338, 400], Llandaff: [446, 432],
  Carrickfergus: [206, 208], Galway: [80, 240], Dublin: [206, 282], Limerick: [80, 322],
  Waterford: [206, 362], Cork: [80, 410],
  Calais: [826, 540], Rouen: [706, 540], Caen: [586, 540], Angers: [586, 606],
  Poitiers: [706, 610], Bordeaux: [826, 610],
};
// symbols and adjacency (board data; drawn, never used for rules: the server decides)
export const SYM = {
  Canterbury: "P", Winchester: "P", Bristol: "P", York: "P", Chester: "G", Durham: "G",
  Berwick: "G", Dumfries: "G", Edinburgh: "P", Perth: "F", Inverness: "F",
  Llandaff: "P", Pembroke: "P", Brecon: "G", Cardigan: "F", Montgomery: "G", Caernarfon: "F",
  Dublin: "P", Waterford: "P", Cork: "P", Galway: "F", Carrickfergus: "F",
  Calais: "PF", Rouen: "P", Caen: "P", Angers: "F", Poitiers: "F", Bordeaux: "P",
};
const ADJ = [
  ["London", "Canterbury"], ["London", "Winchester"], ["London", "Bristol"], ["London", "Lincoln"],
  ["Canterbury", "Winchester"], ["Winchester", "Bristol"], ["Bristol", "Lincoln"], ["Bristol", "Chester"],
  ["Lincoln", "Chester"], ["Lincoln", "York"], ["Chester", "York"], ["York", "Durham"],
  ["Berwick", "Edinburgh"], ["Berwick", "Dumfries"], ["Dumfries", "Edinburgh"], ["Dumfries", "Stirling"],
  ["Edinburgh", "Stirling"], ["Stirling", "Perth"], ["Stirling", "Inverness"], ["Perth", "Inverness"],
  ["Llandaff", "Pembroke"], ["Llandaff", "Brecon"], ["Pembroke", "Brecon"], ["Pembroke", "Cardigan"],
  ["Brecon", "Cardigan"], ["Brecon", "Montgomery"], ["Cardigan", "Montgomery"], ["Cardigan", "Caernarfon"],
  ["Montgomery", "Caernarfon"],
  ["Dublin", "Waterford"], ["Dublin", "Limerick"], ["Dublin", "Galway"], ["Dublin", "Carrickfergus"],
  ["Waterford", "Cork"], ["Waterford", "Limerick"], ["Cork", "Limerick"], ["Limerick", "Galway"],
  ["Galway", "Carrickfergus"],
  ["Calais", "Rouen"], ["Rouen", "Caen"], ["Rouen", "Angers"], ["Caen", "Angers"], ["Angers", "Poitiers"],
  ["Poitiers", "Bordeaux"],
];

const COUNTRY_NAMES = { England: N_("England"), Scotland: N_("Scotland"), Wales: N_("Wales"), Ireland: N_("Ireland"), France: N_("France") };
/** A country's name in the page's language (the territories keep their names, as the rules do). */
export const countryName = (name) => (COUNTRY_NAMES[name] ? t(COUNTRY_NAMES[name]) : name);
/** A counter id <colour>-<type>-<n> as {colour, type, points, short, name, unit}: ``unit`` is
 *  its kind in words without the colour ("knight (3)"), ``name`` with it ("enemy knight (3)"). */
export function counter(id) {
  const [colour, type, n] = id.split("-");
  const c = COL[colour] || { letter: "?" };
  const col = colourWord(colour);
  if (type === "mercenary") {
    const unit = t("mercenary ({n})", { n });
    return { colour, type, points: +n, short: `${c.letter}$${n}`, unit, name: t("{colour} {unit}", { colour: col, unit }) };
  }
  if (type === "castle") {
    const unit = t("castle (+{n})", { n });
    return { colour, type, points: +n, short: `${c.letter}♜${n}`, unit, name: t("{colour} {unit}", { colour: col, unit }) };
  }
  const u = UNIT[type] || ["?", 0, String(type).replaceAll("_", " ")];
  const unit = `${UNIT[type] ? t(u[2]) : u[2]} (${u[1]})`;
  return { colour, type, points: u[1], short: `${c.letter}${u[0]}`, unit, name: t("{colour} {unit}", { colour: col, unit }) };
}

/** Counters in words, the same kinds counted: "2 knights, 1 men at arms, enemy archers (1)". */
export function countersWords(ids, own) {
  const groups = new Map();
  for (const id of ids || []) {
    const k = counter(id);
    const plain = k.colour === own && UNIT[k.type];
    const key = plain ? k.type : k.name;
    groups.set(key, (groups.get(key) || 0) + 1);
  }
  return [...groups]
    .map(([key, n]) => (UNIT[key] ? t("{count} {units}", { count: n, units: t(n === 1 ? UNIT[key][2] : UNIT[key][3]) }) : n > 1 ? `${n} × ${key}` : key))
    .join(t(", "));
}

/** A counter on the map: a named picture (the army's counters, the ones a move picks, are
 *  the HTML chips of the details). */
function chip(id, x, y, moved = false) {
  const k = counter(id);
  const c = COL[k.colour] || COL.black;
  return svg`<g class="chip${mark(moved, "moved")}" ${piece(null, null, `${k.short}: ${k.name}`)}>${tip(cap(k.name))}
    <rect x="${x - 17}" y="${y - 10}" width="34" height="20" rx="4" fill="${c.fill}" stroke="#000" stroke-width="1"/>
    <text x="${x}" y="${y + 4}" text-anchor="middle" class="ctr-t" fill="${c.text}">${k.short}</text></g>`;
}

/** What the last event touched: territories, track squares, and the counter that moved in. */
function touched(e) {
  const t = { terr: new Set(), sq: new Set(), moved: new Set() };
  if (!e) return t;
  const d = e.data || {};
  if (e.type === "TerritoryCaptured") {
    t.terr.add(d.target);
    t.moved.add(d.stays);
  }
  if (e.type === "CastlePlaced") {
    t.terr.add(d.territory);
    t.moved.add(d.counter);
  }
  if (e.type === "RouenOccupied") {
    t.terr.add("Rouen");
    t.moved.add(d.counter);
  }
  if (e.type === "CrownPlaced") t.sq.add(d.square);
  return t;
}

function board(s, c) {
  const last = touched(lastOf(c));
  const legal = legalKeys(c, keysOf, s);
  const rows = Math.ceil(s.track.length / 12);
  const H = 650 + rows * 78;
  const countries = Object.entries(COUNTRY).map(([name, { box }]) => {
    const [x, y, w, h] = box;
    const mandated = s.mandated_country === name;
    const attacked = s.countries_attacked.includes(name);
    return svg`<g><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="18" class="country${mandated ? " mandated" : ""}" ${deco}/>
      <text x="${x + 12}" y="${y + 20}" class="country-name">${countryName(name)}${mandated ? ` · ${t("must be attacked")}` : ""}${attacked && !mandated ? ` · ${t("attacked")}` : ""}</text></g>`;
  });
  const adj = ADJ.map(([a, b]) => svg`<line x1="${AT[a][0]}" y1="${AT[a][1]}" x2="${AT[b][0]}" y2="${AT[b][1]}" class="adj" ${deco}/>`);
  const terrs = Object.entries(s.territories).map(([name, ter]) => {
    const [x, y] = AT[name] || [0, 0];
    const sym = SYM[name] || "";
    const words = [sym.includes("P") ? t("port") : "", sym.includes("G") ? t("gate") : "", sym.includes("F") ? t("flag") : ""].filter(Boolean);
    const glyphs = `${sym.includes("P") ? "⚓" : ""}${sym.includes("G") ? "⊓" : ""}${sym.includes("F") ? "⚑" : ""}`;
    const holder = ter.holder ? counter(ter.holder) : null;
    const castle = ter.castle ? counter(ter.castle) : null;
    const defence = (holder ? holder.points : 0) + (castle ? castle.points : 0);
    const about = [
      t("{territory}, town value {value}", { territory: name, value: ter.town_value }),
      holder ? t("held by {counter}, defence {defence}", { counter: holder.name, defence }) : t("empty"),
      castle ? castle.name : "",
      ...words,
    ].filter(Boolean).join(t(", "));
    return svg`<g class="t${mark(last.terr.has(name))}">
      <rect x="${x - 50}" y="${y - 23}" width="100" height="46" rx="7" class="terr" ${piece(`terr:${name}`, legal, about)}>${tip(about)}</rect>
      <text x="${x - 45}" y="${y - 9}" class="t-name" ${deco}>${name}</text>
      <text x="${x - 45}" y="${y + 12}" class="t-sym" ${deco}>${"●".repeat(ter.town_value)} ${glyphs}</text>
      ${ter.holder ? chip(ter.holder, x + 28, y + 8, last.moved.has(ter.holder)) : ""}
      ${castle ? svg`<g class="chip${mark(last.moved.has(ter.castle), "moved")}" ${piece(null, null, `+${castle.points}: ${castle.name}`)}>${tip(cap(castle.name))}<rect x="${x - 16}" y="${y - 1}" width="22" height="19" rx="2" fill="#6b6b6b" stroke="#111"/><text x="${x - 5}" y="${y + 13}" text-anchor="middle" class="ctr-t" fill="#fff">+${castle.points}</text></g>` : ""}
    </g>`;
  });
  const track = s.track.map((q, i) => {
    const x = 14 + (i % 12) * 73;
    const y = 652 + Math.floor(i / 12) * 78;
    const crown = q.crown ? COL[q.crown] : null;
    const crowned = q.crown ? (q.turned ? t("{colour} crown (turned: that reign is over)", { colour: colourWord(q.crown) }) : t("{colour} crown", { colour: colourWord(q.crown) })) : t("no crown");
    const about =
      t("Square {square}: {king}, bonus {bonus}, attacks {country}", { square: q.square, king: q.king, bonus: q.bonus, country: countryName(q.country) }) +
      t(", ") +
      crowned +
      (q.square === s.square ? t(", ") + t("the current square") : "");
    return svg`<g class="sq${mark(last.sq.has(q.square))}">
      <rect x="${x}" y="${y}" width="70" height="72" rx="6" class="track-sq${q.square === s.square ? " current" : ""}${q.turned ? " turned" : ""}" ${piece(`sq:${q.square}`, legal, about)}>${tip(about)}</rect>
      <g ${deco}><text x="${x + 4}" y="${y + 13}" class="tr-b">${q.square}</text>
      <text x="${x + 66}" y="${y + 13}" text-anchor="end" class="tr-t">+${q.bonus}</text>
      <text x="${x + 4}" y="${y + 27}" class="tr-t">${q.king.replace(" (Part ", " ").replace(")", "").slice(0, 14)}</text>
      <text x="${x + 4}" y="${y + 40}" class="tr-t">${countryName(q.country)}</text></g>
      ${crown ? svg`<g class="crown${mark(last.sq.has(q.square), "moved")}" ${piece(null, null, `${crown.letter}: ${t("{colour} crown", { colour: colourWord(q.crown) })}`)}>${tip(cap(t("{colour} crown on square {square}", { colour: colourWord(q.crown), square: q.square })))}<path d="M${x + 20} ${y + 66} l0 -14 l8 6 l7 -10 l7 10 l8 -6 l0 14 z" fill="${crown.fill}" stroke="#000" opacity="${q.turned ? 0.45 : 1}"/><text x="${x + 35}" y="${y + 64}" text-anchor="middle" class="ctr-t" fill="${crown.text}">${crown.letter}</text></g>` : ""}
    </g>`;
  });
  return svg`<svg viewBox="0 0 900 ${H}" class="kc" role="group" aria-label="${t("the map and the succession track")}">
    <rect x="0" y="0" width="900" height="${H}" class="sea" ${deco}/>
    ${countries}${adj}${terrs}
    <text x="20" y="474" class="country-name">${t("Bag: {count} counters", { count: s.bag_size })}</text>
    <text x="20" y="492" class="country-name">${t("Destroyed: {count}", { count: s.destroyed.length })}</text>
    <text x="20" y="514" class="tr-b">${s.king ? t("King: {king} (square {square})", { king: colourWord(s.king), square: s.square }) : t("setting up")}</text>
    <text x="20" y="600" class="tr-t">${t("Counters: K knight 3, M men at arms 2, A archers 1,")}</text><text x="20" y="614" class="tr-t">${t("$n mercenary n; letter = colour, X = enemy")}</text>
    <text x="20" y="534" class="tr-t">${t("⚓ port, ⊓ gate: where players invade")}</text><text x="20" y="550" class="tr-t">${t("⚑ flag: where enemies invade · ● town value")}</text><text x="20" y="566" class="tr-t">${t("grey +n: a castle")}</text>
    <text x="14" y="644" class="country-name">${t("Succession track")}</text>
    ${track}
  </svg>`;
}

function money(s, colour) {
  if (s.money && s.money[colour] != null) return html`<span class="money">${s.money[colour]}</span> <span class="muted">${t("(exact)")}</span>`;
  return html`<span class="money">…${s.money_digit[colour]}</span> <span class="muted">${t("(last digit)")}</span>`;
}

/** Counters as list items, each a chip with its letters; ``legal`` (the acting colour's army:
 *  the keys the legal moves use) makes the ones a move uses controls. */
function counters(ids, legal) {
  return html`<ul class="counters">${ids.map((id) => {
    const k = counter(id);
    return html`<li><span class="ctr c-${k.colour}" ${piece(legal ? `ctr:${id}` : null, legal, `${k.short}: ${k.name}`)} title="${k.name}">${k.short}</span></li>`;
  })}</ul>`;
}

function details(s, c) {
  const mine = s.your_colours || [];
  const colours = Object.keys(s.seats).sort(
    (a, b) => mine.includes(b) - mine.includes(a) || s.seats[a] - s.seats[b],
  );
  const legal = legalKeys(c, keysOf, s);
  return html`<div class="kc-details">
    <p>${t("Phase:")} <b>${phaseWords(s)}</b>${s.draw_needed ? ` · ${t("{count} counters to draw", { count: s.draw_needed })}` : ""}${s.countries_attacked.length ? ` · ${t("attacked: {countries}", { countries: s.countries_attacked.map(countryName).join(t(", ")) })}` : ""}</p>
    <div class="kc-cols">${colours.map((col) => {
      const seat = s.seats[col];
      const mine = (s.your_colours || []).includes(col);
      return html`<div class="kc-col${mine ? " mine" : ""}">
        <h2 class="kc-h">${swatch(col, COL[col].letter)} ${colourWord(col)} · ${c.names[seat]}${mine ? t(" (you)") : ""}${s.king === col ? ` · ${t("King")}` : ""}</h2>
        <p>${t("Money:")} ${money(s, col)} · ${t("tax markers: {count}", { count: s.tax_markers[col] })}</p>
        <p class="muted">${t("Army ({count})", { count: (s.armies[col] || []).length })}</p>${counters(s.armies[col] || [], s.acting_colour === col ? legal : null)}
        <p class="muted">${t("Household ({count})", { count: (s.households[col] || []).length })}</p>${counters(s.households[col] || [], null)}
      </div>`;
    })}</div>
    <p class="legend">${t("Counters: the colour's letter (G green, B blue, T teal, P pink, X enemy), then K knight (strength 3) · M men at arms (2) · A archers (1) · $n mercenary (n) · ♜n castle (+n). Point at a counter for its name.")}</p>
  </div>`;
}

/** The phases in words (the text view says them too). */
export const PHASES = {
  forming: N_("forming armies"), crowns: N_("placing crowns"), bonus: N_("drawing the bonus"), occupy_rouen: N_("occupying Rouen"),
  attacks: N_("attacks"), castles: N_("castles"), tax: N_("taxation"), refill: N_("refilling the army"), over: N_("over"),
};
export const phaseWords = (s) => t(phaseIn(PHASES)(s));

function drawWords(a) {
  const h = a.household || {};
  const parts = [];
  if (h.knight) parts.push(t("{count} {units}", { count: h.knight, units: t(h.knight > 1 ? "knights" : "knight") }));
  if (h.men_at_arms) parts.push(t("{count} {units}", { count: h.men_at_arms, units: t("men at arms") }));
  if (h.archers) parts.push(t("{count} {units}", { count: h.archers, units: t("archers") }));
  const home = parts.length ? t("{counters} from the household", { counters: parts.join(t(", ")) }) : t("nothing from the household");
  return t("{household}, {count} from the bag", { household: home, count: a.bag });
}

const defenceOf = (t) => (t.holder ? counter(t.holder).points : 0) + (t.castle ? counter(t.castle).points : 0);

function describeAction(a, c) {
  const s = c.view.state;
  const own = s.acting_colour;
  const unit = (id) => (counter(id).colour === own ? counter(id).unit : counter(id).name);
  switch (a.type) {
    case "place_crown": {
      const q = s.track.find((x) => x.square === a.square) || {};
      return t("Place a crown on square {square} ({king}, bonus {bonus}, {country})", { square: a.square, king: q.king, bonus: q.bonus, country: countryName(q.country) });
    }
    case "draw":
      return t("Draw: {counters}", { counters: drawWords(a) });
    case "refill":
      return t("Refill: {counters}", { counters: drawWords(a) });
    case "occupy_rouen":
      return t("Occupy Rouen with {unit}", { unit: unit(a.counter) });
    case "attack": {
      const ter = s.territories[a.target] || {};
      const pts = a.counters.reduce((n, id) => n + counter(id).points, 0);
      const held = !ter.holder
        ? t("empty")
        : ter.castle
          ? t("held by {counter} and a castle (+{points}), defence {defence}", { counter: counter(ter.holder).name, points: counter(ter.castle).points, defence: defenceOf(ter) })
          : t("held by {counter}, defence {defence}", { counter: counter(ter.holder).name, defence: defenceOf(ter) });
      return t("Attack {territory} ({held}) with {units} = {strength}", { territory: a.target, held, units: a.counters.map(unit).join(" + "), strength: pts });
    }
    case "end_attacks":
      return t("End the attacks");
    case "place_castle":
      return t("Place {castle} in {territory}", { castle: unit(a.counter), territory: a.territory });
    case "end_castles":
      return t("Place no more castles");
    case "tax":
      return t("Collect taxes (spend a tax marker)");
    case "no_tax":
      return t("Do not collect taxes");
    default:
      return a.type.replaceAll("_", " ");
  }
}

/** The kinds of move, for the grouped list (a group per kind, attacks by target). */
const KINDS = {
  place_crown: N_("Crowns"), draw: N_("Draw counters"), refill: N_("Refill the army"), occupy_rouen: N_("Occupy Rouen"),
  attack: N_("Attacks"), end_attacks: N_("End the attacks"), place_castle: N_("Castles"), end_castles: N_("Castles"),
  tax: N_("Taxes"), no_tax: N_("Taxes"),
};
function groupOf(a) {
  const kind = KINDS[a.type] ? t(KINDS[a.type]) : cap(a.type.replaceAll("_", " "));
  if (a.type === "attack") return [kind, t("on {territory}", { territory: a.target })];
  if (a.type === "place_castle") return [kind, t("in {territory}", { territory: a.territory })];
  return [kind];
}

/** Board first: the units a move is made of, for picking them one by one after the territory. */
const partsOf = (a) => (a.type === "attack" ? a.counters.map((x) => `ctr:${x}`) : []);
function partName(key, s) {
  const id = key.replace(/^ctr:/, "");
  const k = counter(id);
  return k.colour === (s && s.acting_colour) ? cap(k.unit) : cap(k.name);
}
function partLabel(key) {
  const id = key.replace(/^ctr:/, "");
  return counter(id).short;
}
function partsSummary(picked, target, s) {
  const ter = (s.territories || {})[target] || {};
  const pts = picked.reduce((n, k) => n + counter(k.replace(/^ctr:/, "")).points, 0);
  return t("strength {strength} against defence {defence}", { strength: pts, defence: defenceOf(ter) });
}

function keysOf(a) {
  const k = [];
  if (a.square != null) k.push(`sq:${a.square}`);
  if (a.target) k.push(`terr:${a.target}`);
  if (a.territory) k.push(`terr:${a.territory}`);
  if (a.type === "occupy_rouen") k.push("terr:Rouen");
  if (a.counter) k.push(`ctr:${a.counter}`);
  for (const x of a.counters || []) k.push(`ctr:${x}`);
  return k;
}

function gameEvent(e, c, d, w) {
  const by = d.colour ? t("{who}, with {colour},", { who: w, colour: colourWord(d.colour) }) : w;
  switch (e.type) {
    case "EnemiesPlaced":
      return tn("Enemy units were placed in {count} territory.", "Enemy units were placed in {count} territories.", Object.keys(d.placements || {}).length);
    case "CountersDrawn": {
      const home = (d.household || []).length ? t("{counters} from the household", { counters: countersWords(d.household, d.colour) }) : t("nothing from the household");
      const bag = d.bag && d.bag.length ? t(" and {counters} from the bag", { counters: countersWords(d.bag, d.colour) }) : "";
      const back = d.returned && d.returned.length ? t("; {count} destroyed counters went back into the bag", { count: d.returned.length }) : "";
      return t("{who} drew {household}{bag}{back}.", { who: by, household: home, bag, back });
    }
    case "BagRefilled":
      return t("The bag was empty: {count} destroyed counters went back into it.", { count: (d.returned || []).length });
    case "CrownPlaced":
      return t("{who} placed a {colour} crown on square {square}.", { who: w, colour: colourWord(d.colour), square: d.square });
    case "RouenOccupied":
      return t("{who} occupied Rouen with {unit}.", { who: by, unit: counter(d.counter).unit });
    case "TerritoryCaptured": {
      const att = d.attacker && d.attacker !== d.colour ? t(" ({colour}'s army)", { colour: colourWord(d.attacker) }) : "";
      const args = { who: by, territory: d.target, defender: counter(d.defender).name, units: countersWords(d.counters, d.attacker || d.colour), army: att, stays: counter(d.stays).name };
      return d.castle
        ? t("{who} took {territory} from {defender} and its castle with {units}{army}; the {stays} stays there.", args)
        : t("{who} took {territory} from {defender} with {units}{army}; the {stays} stays there.", args);
    }
    case "AttacksEnded":
      return t("{who} ended the attacks.", { who: w });
    case "CastlePlaced":
      return t("{who} placed a castle (+{points}) in {territory}.", { who: by, points: counter(d.counter).points, territory: d.territory });
    case "CastlesEnded":
      return t("{who} placed no more castles.", { who: w });
    case "TaxDeclined":
      return t("{who} did not collect taxes.", { who: w });
    case "TaxCollected": {
      const amounts = Object.entries(d.amounts || {}).map(([col, n]) => `${colourWord(col)} +${n}`);
      return amounts.length
        ? t("{who} collected taxes ({amounts}); the tax track moved.", { who: by, amounts: amounts.join(t(", ")) })
        : t("{who} collected taxes; the tax track moved.", { who: by });
    }
    case "TurnEnded":
      return d.next ? t("Square {square} is over; square {next} begins.", { square: d.square, next: d.next }) : t("Square {square} is over.", { square: d.square });
    case "FinalTaxCollected":
      return t("Final taxation: {money}.", { money: Object.entries(d.money || {}).map(([col, m]) => `${colourWord(col)} ${m}`).join(t(", ")) });
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
  groupOf,
  partsOf,
  partName,
  partLabel,
  partsSummary,
  result: (res, c) => {
    // KC-9: most money wins; a seat with two colours (2 players) scores both.
    const money = (res.details && res.details.money_by_colour) || {};
    const seats = (c.view.state && c.view.state.seats) || {};
    return {
      columns: [t("Money by colour"), t("Total money")],
      row: (seat) => [
        Object.entries(money)
          .filter(([col]) => seats[col] === seat)
          .map(([col, m]) => `${colourWord(col)} ${m}`)
          .join(" + ") || t("none"),
        res.scores[seat],
      ],
    };
  },
  get resultUnit() {
    return t("money");
  },
  phase: (s) => (s.square ? t("square {square}/{last}, {phase}", { square: s.square, last: s.last_square, phase: phaseWords(s) }) : phaseWords(s)),
  seatBadge: (seat, s) =>
    Object.entries(s.seats)
      .filter(([, x]) => x === seat)
      .map(([col]) => swatch(col, COL[col].letter)),
  get clickHint() {
    return t("click a territory, a counter or a track square");
  },
};
