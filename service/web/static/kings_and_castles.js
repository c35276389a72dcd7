// Kings and Castles: a schematic map of the 5 countries and 32 territories (the counter on each,
// castles, ports/gates/flags), the succession track with crowns and the current King, every
// colour's army and household, the bag, and money (exact for the seat's own colours, the last
// digit for the others, as the tax track shows it).
import { cap, deco, eventWords, lastOf, legalKeys, mark, phaseIn, piece, swatch, tip } from "./common.js";
import { html, svg } from "./ui.js";

const COL = {
  green: { fill: "#27803f", text: "#fff", letter: "G" },
  blue: { fill: "#2b6cb0", text: "#fff", letter: "B" },
  teal: { fill: "#137b7b", text: "#fff", letter: "T" },
  pink: { fill: "#b3427f", text: "#fff", letter: "P" },
  black: { fill: "#222", text: "#fff", letter: "X" },
};
const UNIT = { knight: ["K", 3, "knight", "knights"], men_at_arms: ["M", 2, "men at arms", "men at arms"], archers: ["A", 1, "archers", "archers"] };
const colourWord = (colour) => (colour === "black" ? "enemy" : colour);
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

/** A counter id <colour>-<type>-<n> as {colour, type, points, short, name, unit}: ``unit`` is
 *  its kind in words without the colour ("knight (3)"), ``name`` with it ("enemy knight (3)"). */
export function counter(id) {
  const [colour, type, n] = id.split("-");
  const c = COL[colour] || { letter: "?" };
  const col = colourWord(colour);
  if (type === "mercenary") return { colour, type, points: +n, short: `${c.letter}$${n}`, unit: `mercenary (${n})`, name: `${col} mercenary (${n})` };
  if (type === "castle") return { colour, type, points: +n, short: `${c.letter}♜${n}`, unit: `castle (+${n})`, name: `${col} castle (+${n})` };
  const u = UNIT[type] || ["?", 0, String(type).replaceAll("_", " ")];
  return { colour, type, points: u[1], short: `${c.letter}${u[0]}`, unit: `${u[2]} (${u[1]})`, name: `${col} ${u[2]} (${u[1]})` };
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
    .map(([key, n]) => (UNIT[key] ? `${n} ${n === 1 ? UNIT[key][2] : UNIT[key][3]}` : n > 1 ? `${n} × ${key}` : key))
    .join(", ");
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
      <text x="${x + 12}" y="${y + 20}" class="country-name">${name}${mandated ? " · must be attacked" : ""}${attacked && !mandated ? " · attacked" : ""}</text></g>`;
  });
  const adj = ADJ.map(([a, b]) => svg`<line x1="${AT[a][0]}" y1="${AT[a][1]}" x2="${AT[b][0]}" y2="${AT[b][1]}" class="adj" ${deco}/>`);
  const terrs = Object.entries(s.territories).map(([name, t]) => {
    const [x, y] = AT[name] || [0, 0];
    const sym = SYM[name] || "";
    const words = [sym.includes("P") ? "port" : "", sym.includes("G") ? "gate" : "", sym.includes("F") ? "flag" : ""].filter(Boolean);
    const glyphs = `${sym.includes("P") ? "⚓" : ""}${sym.includes("G") ? "⊓" : ""}${sym.includes("F") ? "⚑" : ""}`;
    const holder = t.holder ? counter(t.holder) : null;
    const castle = t.castle ? counter(t.castle) : null;
    const defence = (holder ? holder.points : 0) + (castle ? castle.points : 0);
    const about = `${name}, town value ${t.town_value}${holder ? `, held by ${holder.name}, defence ${defence}` : ", empty"}${castle ? `, ${castle.name}` : ""}${words.length ? ", " + words.join(", ") : ""}`;
    return svg`<g class="t${mark(last.terr.has(name))}">
      <rect x="${x - 50}" y="${y - 23}" width="100" height="46" rx="7" class="terr" ${piece(`terr:${name}`, legal, about)}>${tip(about)}</rect>
      <text x="${x - 45}" y="${y - 9}" class="t-name" ${deco}>${name}</text>
      <text x="${x - 45}" y="${y + 12}" class="t-sym" ${deco}>${"●".repeat(t.town_value)} ${glyphs}</text>
      ${t.holder ? chip(t.holder, x + 28, y + 8, last.moved.has(t.holder)) : ""}
      ${castle ? svg`<g class="chip${mark(last.moved.has(t.castle), "moved")}" ${piece(null, null, `+${castle.points}: ${castle.name}`)}>${tip(cap(castle.name))}<rect x="${x - 16}" y="${y - 1}" width="22" height="19" rx="2" fill="#6b6b6b" stroke="#111"/><text x="${x - 5}" y="${y + 13}" text-anchor="middle" class="ctr-t" fill="#fff">+${castle.points}</text></g>` : ""}
    </g>`;
  });
  const track = s.track.map((q, i) => {
    const x = 14 + (i % 12) * 73;
    const y = 652 + Math.floor(i / 12) * 78;
    const crown = q.crown ? COL[q.crown] : null;
    const about = `Square ${q.square}: ${q.king}, bonus ${q.bonus}, attacks ${q.country}${q.crown ? `, ${q.crown} crown${q.turned ? " (turned: that reign is over)" : ""}` : ", no crown"}${q.square === s.square ? ", the current square" : ""}`;
    return svg`<g class="sq${mark(last.sq.has(q.square))}">
      <rect x="${x}" y="${y}" width="70" height="72" rx="6" class="track-sq${q.square === s.square ? " current" : ""}${q.turned ? " turned" : ""}" ${piece(`sq:${q.square}`, legal, about)}>${tip(about)}</rect>
      <g ${deco}><text x="${x + 4}" y="${y + 13}" class="tr-b">${q.square}</text>
      <text x="${x + 66}" y="${y + 13}" text-anchor="end" class="tr-t">+${q.bonus}</text>
      <text x="${x + 4}" y="${y + 27}" class="tr-t">${q.king.replace(" (Part ", " ").replace(")", "").slice(0, 14)}</text>
      <text x="${x + 4}" y="${y + 40}" class="tr-t">${q.country}</text></g>
      ${crown ? svg`<g class="crown${mark(last.sq.has(q.square), "moved")}" ${piece(null, null, `${crown.letter}: ${q.crown} crown`)}>${tip(`${cap(q.crown)} crown on square ${q.square}`)}<path d="M${x + 20} ${y + 66} l0 -14 l8 6 l7 -10 l7 10 l8 -6 l0 14 z" fill="${crown.fill}" stroke="#000" opacity="${q.turned ? 0.45 : 1}"/><text x="${x + 35}" y="${y + 64}" text-anchor="middle" class="ctr-t" fill="${crown.text}">${crown.letter}</text></g>` : ""}
    </g>`;
  });
  return svg`<svg viewBox="0 0 900 ${H}" class="kc" role="group" aria-label="the map and the succession track">
    <rect x="0" y="0" width="900" height="${H}" class="sea" ${deco}/>
    ${countries}${adj}${terrs}
    <text x="20" y="474" class="country-name">Bag: ${s.bag_size} counters</text>
    <text x="20" y="492" class="country-name">Destroyed: ${s.destroyed.length}</text>
    <text x="20" y="514" class="tr-b">${s.king ? `King: ${s.king} (square ${s.square})` : "setting up"}</text>
    <text x="20" y="600" class="tr-t">Counters: K knight 3, M men at arms 2, A archers 1,</text><text x="20" y="614" class="tr-t">$n mercenary n; letter = colour, X = enemy</text>
    <text x="20" y="534" class="tr-t">⚓ port, ⊓ gate: where players invade</text><text x="20" y="550" class="tr-t">⚑ flag: where enemies invade · ● town value</text><text x="20" y="566" class="tr-t">grey +n: a castle</text>
    <text x="14" y="644" class="country-name">Succession track</text>
    ${track}
  </svg>`;
}

function money(s, colour) {
  if (s.money && s.money[colour] != null) return html`<span class="money">${s.money[colour]}</span> <span class="muted">(exact)</span>`;
  return html`<span class="money">…${s.money_digit[colour]}</span> <span class="muted">(last digit)</span>`;
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
    <p>Phase: <b>${phaseWords(s)}</b>${s.draw_needed ? ` · ${s.draw_needed} counters to draw` : ""}${s.countries_attacked.length ? ` · attacked: ${s.countries_attacked.join(", ")}` : ""}</p>
    <div class="kc-cols">${colours.map((col) => {
      const seat = s.seats[col];
      const mine = (s.your_colours || []).includes(col);
      return html`<div class="kc-col${mine ? " mine" : ""}">
        <h2 class="kc-h">${swatch(col, COL[col].letter)} ${col} · ${c.names[seat]}${mine ? " (you)" : ""}${s.king === col ? " · King" : ""}</h2>
        <p>Money: ${money(s, col)} · tax markers: ${s.tax_markers[col]}</p>
        <p class="muted">Army (${(s.armies[col] || []).length})</p>${counters(s.armies[col] || [], s.acting_colour === col ? legal : null)}
        <p class="muted">Household (${(s.households[col] || []).length})</p>${counters(s.households[col] || [], null)}
      </div>`;
    })}</div>
    <p class="legend">Counters: the colour's letter (G green, B blue, T teal, P pink, X enemy), then K knight (strength 3) · M men at arms (2) · A archers (1) · $n mercenary (n) · ♜n castle (+n). Point at a counter for its name.</p>
  </div>`;
}

const phaseWords = phaseIn({
    forming: "forming armies", crowns: "placing crowns", bonus: "drawing the bonus", occupy_rouen: "occupying Rouen",
    attacks: "attacks", castles: "castles", tax: "taxation", refill: "refilling the army", over: "over",
  });

function drawWords(a) {
  const h = a.household || {};
  const parts = [];
  if (h.knight) parts.push(`${h.knight} ${h.knight > 1 ? "knights" : "knight"}`);
  if (h.men_at_arms) parts.push(`${h.men_at_arms} men at arms`);
  if (h.archers) parts.push(`${h.archers} archers`);
  const home = parts.length ? `${parts.join(", ")} from the household` : "nothing from the household";
  return `${home}, ${a.bag} from the bag`;
}

const defenceOf = (t) => (t.holder ? counter(t.holder).points : 0) + (t.castle ? counter(t.castle).points : 0);

function describeAction(a, c) {
  const s = c.view.state;
  const own = s.acting_colour;
  const unit = (id) => (counter(id).colour === own ? counter(id).unit : counter(id).name);
  switch (a.type) {
    case "place_crown": {
      const q = s.track.find((x) => x.square === a.square) || {};
      return `Place a crown on square ${a.square} (${q.king}, bonus ${q.bonus}, ${q.country})`;
    }
    case "draw":
      return `Draw: ${drawWords(a)}`;
    case "refill":
      return `Refill: ${drawWords(a)}`;
    case "occupy_rouen":
      return `Occupy Rouen with ${unit(a.counter)}`;
    case "attack": {
      const t = s.territories[a.target] || {};
      const pts = a.counters.reduce((n, id) => n + counter(id).points, 0);
      const held = t.holder ? `held by ${counter(t.holder).name}${t.castle ? ` and a castle (+${counter(t.castle).points})` : ""}, defence ${defenceOf(t)}` : "empty";
      return `Attack ${a.target} (${held}) with ${a.counters.map(unit).join(" + ")} = ${pts}`;
    }
    case "end_attacks":
      return "End the attacks";
    case "place_castle":
      return `Place ${unit(a.counter)} in ${a.territory}`;
    case "end_castles":
      return "Place no more castles";
    case "tax":
      return "Collect taxes (spend a tax marker)";
    case "no_tax":
      return "Do not collect taxes";
    default:
      return a.type.replaceAll("_", " ");
  }
}

/** The kinds of move, for the grouped list (a group per kind, attacks by target). */
const KINDS = {
  place_crown: "Crowns", draw: "Draw counters", refill: "Refill the army", occupy_rouen: "Occupy Rouen",
  attack: "Attacks", end_attacks: "End the attacks", place_castle: "Castles", end_castles: "Castles",
  tax: "Taxes", no_tax: "Taxes",
};
function groupOf(a) {
  const kind = KINDS[a.type] || cap(a.type.replaceAll("_", " "));
  if (a.type === "attack") return [kind, `on ${a.target}`];
  if (a.type === "place_castle") return [kind, `in ${a.territory}`];
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
  const t = (s.territories || {})[target] || {};
  const pts = picked.reduce((n, k) => n + counter(k.replace(/^ctr:/, "")).points, 0);
  return `strength ${pts} against defence ${defenceOf(t)}`;
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
  const by = d.colour ? `${w}, with ${d.colour},` : w;
  switch (e.type) {
    case "EnemiesPlaced":
      return `Enemy units were placed in ${Object.keys(d.placements || {}).length} territories.`;
    case "CountersDrawn": {
      const home = (d.household || []).length ? `${countersWords(d.household, d.colour)} from the household` : "nothing from the household";
      const bag = d.bag && d.bag.length ? ` and ${countersWords(d.bag, d.colour)} from the bag` : "";
      const back = d.returned && d.returned.length ? `; ${d.returned.length} destroyed counters went back into the bag` : "";
      return `${by} drew ${home}${bag}${back}.`;
    }
    case "BagRefilled":
      return `The bag was empty: ${(d.returned || []).length} destroyed counters went back into it.`;
    case "CrownPlaced":
      return `${w} placed a ${d.colour} crown on square ${d.square}.`;
    case "RouenOccupied":
      return `${by} occupied Rouen with ${counter(d.counter).unit}.`;
    case "TerritoryCaptured": {
      const att = d.attacker && d.attacker !== d.colour ? ` (${d.attacker}'s army)` : "";
      return `${by} took ${d.target} from ${counter(d.defender).name}${d.castle ? ` and its castle` : ""} with ${countersWords(d.counters, d.attacker || d.colour)}${att}; the ${counter(d.stays).name} stays there.`;
    }
    case "AttacksEnded":
      return `${w} ended the attacks.`;
    case "CastlePlaced":
      return `${by} placed a castle (+${counter(d.counter).points}) in ${d.territory}.`;
    case "CastlesEnded":
      return `${w} placed no more castles.`;
    case "TaxDeclined":
      return `${w} did not collect taxes.`;
    case "TaxCollected": {
      const amounts = Object.entries(d.amounts || {}).map(([col, n]) => `${col} +${n}`);
      return `${by} collected taxes${amounts.length ? ` (${amounts.join(", ")})` : ""}; the tax track moved.`;
    }
    case "TurnEnded":
      return `Square ${d.square} is over${d.next ? `; square ${d.next} begins` : ""}.`;
    case "FinalTaxCollected":
      return `Final taxation: ${Object.entries(d.money || {}).map(([col, m]) => `${col} ${m}`).join(", ")}.`;
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
      columns: ["Money by colour", "Total money"],
      row: (seat) => [
        Object.entries(money)
          .filter(([col]) => seats[col] === seat)
          .map(([col, m]) => `${col} ${m}`)
          .join(" + ") || "none",
        res.scores[seat],
      ],
    };
  },
  resultUnit: "money",
  phase: (s) => (s.square ? `square ${s.square}/${s.last_square}, ${phaseWords(s)}` : phaseWords(s)),
  seatBadge: (seat, s) =>
    Object.entries(s.seats)
      .filter(([, x]) => x === seat)
      .map(([col]) => swatch(col, COL[col].letter)),
  clickHint: "click a territory, a counter or a track square",
};
