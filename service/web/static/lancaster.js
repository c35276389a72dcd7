// Lancaster: the nine counties with their nobles and knights, every castle, the conflicts,
// parliament's two law rows and the vote, each player's screen (gold and squires: the seat's
// own, or everyone's with 2 players) and every player's public track.
import { cap, deco, eventWords, idWords, lastOf, legalKeys, mark, phaseIn, piece, swatch, tip } from "./common.js";
import { N_, t, tn } from "./i18n.js";
import { html, svg } from "./ui.js";

const COL = {
  red: { fill: "#c8372d", text: "#fff", letter: "R" },
  blue: { fill: "#2b6cb0", text: "#fff", letter: "B" },
  green: { fill: "#27803f", text: "#fff", letter: "G" },
  yellow: { fill: "#f0c419", text: "#222", letter: "Y" },
  purple: { fill: "#7b4fb0", text: "#fff", letter: "P" },
};
/** The laws' texts (English keys: lawText says them in the page's language). */
export const LAWS = {
  L1: N_("Most gold: upgrade one deployed knight."),
  L2: N_("Most squires: a strength-1 knight from reserve to court."),
  L3: N_("3 power per 2 counties occupied."),
  L4: N_("Buy vote markers, 1 gold each."),
  L5: N_("Pay 1 squire + 1 gold for 3 power, repeatable."),
  L6: N_("Build 1 extension per 2 conflicts with a knight."),
  L7: N_("1 squire per deployed strength-2 knight."),
  L8: N_("Squire + marker + gold per 2 conflicts with a knight."),
  L9: N_("No deployed strength-2 knight: upgrade one knight."),
  L10: N_("Swap a deployed strength-3 knight for your 4."),
  L11: N_("5 power per 3 extensions."),
  L12: N_("3 power per conflict with a knight."),
  L13: N_("8 power per 3 counties with a knight."),
  L14: N_("5 power if all three strength-1 knights are deployed."),
  L15: N_("A new knight per 3 nobles at your table."),
  L16: N_("Buy power, 1 gold each."),
  L17: N_("4 power if your strength-4 knight is deployed."),
  L18: N_("1 power per noble at your table."),
};
export const SPACES = ["treasury", "squire_hall", "council", "barracks", "training_yard", "chapel"];
/** A law's text in the page's language. */
export const lawText = (id) => (LAWS[id] ? t(LAWS[id]) : "");
const SPACE_NAMES = {
  treasury: N_("Treasury +1 gold"), squire_hall: N_("Squire hall +1 squire"), council: N_("Council +1 marker"),
  barracks: N_("Barracks: 2 squires → knight"), training_yard: N_("Training yard: 1 squire → upgrade"), chapel: N_("Chapel +1 power"),
};
const spaceName = (sp) => (SPACE_NAMES[sp] ? t(SPACE_NAMES[sp]) : spaceWords(sp));
const SHORT = { treasury: N_("treasury"), squire_hall: N_("squires"), council: N_("council"), barracks: N_("barracks"), training_yard: N_("training"), chapel: N_("chapel") };
const FAVOUR = { upgrade: N_("upgrade a knight"), goods: N_("2 gold or squires"), noble: N_("a noble") };
const SPACE_WORDS = {
  treasury: N_("treasury"), squire_hall: N_("squire hall"), council: N_("council"), barracks: N_("barracks"),
  training_yard: N_("training yard"), chapel: N_("chapel"),
};
/** A castle space's name ("squire hall"), in the page's language. */
export const spaceWords = (sp) => (SPACE_WORDS[sp] ? t(SPACE_WORDS[sp]) : idWords(sp));
const COLOURS = { red: N_("red"), blue: N_("blue"), green: N_("green"), yellow: N_("yellow"), purple: N_("purple") };
/** A player's colour in the page's language. */
export const colourName = (col) => (COLOURS[col] ? t(COLOURS[col]) : col);

export const knightColour = (k) => k.split("-")[0];
const strength = (k) => Number(k.split("-")[1][0]);
const NTH = { b: N_("{colour}'s knight of strength {strength}, second"), c: N_("{colour}'s knight of strength {strength}, third") };
/** A knight in words: "red-2b" is "Red's knight of strength 2, second" (there are two). */
export const kName = (k) =>
  t(NTH[k.split("-")[1].slice(1)] || N_("{colour}'s knight of strength {strength}"), { colour: cap(colourName(knightColour(k))), strength: String(strength(k)) });
/** A reward's kinds ("gold", "new knight"), in the page's language. */
export const REWARD_WORDS = {
  gold: N_("gold"), squires: N_("squires"), vote_markers: N_("vote markers"), markers: N_("vote markers"), power: N_("power"),
  new_knight: N_("new knight"), upgrade: N_("knight upgrade"), extension: N_("extension"), pay_squires: N_("squires paid"),
};
export const rewardWord = (k) => (REWARD_WORDS[k] ? t(REWARD_WORDS[k]) : idWords(k));
const reward = (r) =>
  Object.entries(r || {})
    .map(([k, v]) => t("{count} {reward}", { count: v, reward: rewardWord(k) }))
    .join(t(", "));
/** A King's favour tile in words. */
export const favourWords = (tile) => (FAVOUR[String(tile).split("-")[0]] ? t(FAVOUR[String(tile).split("-")[0]]) : idWords(tile));

/** A knight on the board: a named picture, its letters first, and a control when a move
 *  uses it there (an upgrade; the court's knights a move places are the details' chips). */
function kchip(k, x, y, moved, legal) {
  const c = COL[knightColour(k)] || { fill: "#6b6b6b", text: "#fff", letter: "?" };
  return svg`<g class="chip${mark(moved, "moved")}" ${piece(`knight:${k}`, legal, `${c.letter}${strength(k)}: ${kName(k)}`)}>${tip(kName(k))}
    <circle cx="${x}" cy="${y}" r="12" fill="${c.fill}" stroke="#000"/>
    <text x="${x}" y="${y + 4}" text-anchor="middle" class="kn-t" fill="${c.text}">${c.letter}${strength(k)}</text></g>`;
}

/** What the last event touched: counties, conflicts, castle spaces, laws, and the knight. */
function touched(e) {
  const t = { keys: new Set(), knight: null };
  if (!e) return t;
  const d = e.data || {};
  if (d.knight && e.type.startsWith("KnightPlaced")) t.knight = d.knight;
  if (e.type === "KnightPlacedInCounty" || e.type === "CountyRewarded") t.keys.add(`county:${d.county}`);
  if (e.type === "KnightPlacedInConflict" || e.type === "ConflictResolved") t.keys.add(`conflict:${d.conflict}`);
  if (e.type === "KnightPlacedInCastle") t.keys.add(`space:${knightColour(d.knight)}:${d.space}`);
  if (e.type === "VoteCommitted" || e.type === "VotesRevealed" || e.type === "LawUsed" || e.type === "LawTookEffect") t.keys.add(`law:${d.law}`);
  return t;
}

function board(s, c) {
  const last = touched(lastOf(c));
  const legal = legalKeys(c, keysOf, s);
  const was = (key) => mark(last.keys.has(key));
  const letters = Object.keys(s.counties);
  const counties = letters.map((L, i) => {
    const x = 10 + (i % 3) * 143;
    const y = 34 + Math.floor(i / 3) * 104;
    const ct = s.counties[L];
    const occ = ct.occupant;
    const about =
      t("{name} (county {letter}): a knight needs strength {min}; reward {reward}; {count} nobles left", { name: ct.name, letter: L, min: ct.min, reward: reward(ct.reward), count: ct.nobles_left }) +
      (occ ? t("; held by {knight} with {count} squires", { knight: kName(occ.knight), count: occ.squires }) : "");
    return svg`<g class="cty${was(`county:${L}`)}">
      <rect x="${x}" y="${y}" width="137" height="98" rx="8" class="county" ${piece(`county:${L}`, legal, about)}>${tip(about)}</rect>
      <g ${deco}><text x="${x + 6}" y="${y + 16}" class="c-name">${L} · ${ct.name}</text>
      <text x="${x + 6}" y="${y + 31}" class="c-sub">${t("min {min}", { min: ct.min })} · ${reward(ct.reward)}</text>
      <text x="${x + 6}" y="${y + 46}" class="c-sub">${t("nobles left: {nobles}", { nobles: "♦".repeat(ct.nobles_left) || t("none") })}</text></g>
      ${occ ? svg`${kchip(occ.knight, x + 22, y + 72, occ.knight === last.knight, legal)}<text x="${x + 40}" y="${y + 76}" class="c-sub" ${deco}>${occ.squires ? tn("+{count} squire = {total}", "+{count} squires = {total}", occ.squires, { total: strength(occ.knight) + occ.squires }) : `= ${strength(occ.knight)}`}</text>` : ""}
    </g>`;
  });
  const cfAbout = (cf, row) =>
    t(row === "upper" ? N_("Conflict {n} (upper row): France has strength {france}, England {england}; power for the 1st, 2nd, 3rd space: {power}") : N_("Conflict {n} (lower row): France has strength {france}, England {england}; power for the 1st, 2nd, 3rd space: {power}"), {
      n: cf.n,
      france: cf.france,
      england: cf.strengths.reduce((a, b) => a + b, 0),
      power: cf.power.join(t(", ")),
    });
  const card = (cf, x, y, row) => svg`<g class="cfg${was(`conflict:${cf.n}`)}">
      <rect x="${x}" y="${y}" width="210" height="92" rx="8" class="cf" ${piece(`conflict:${cf.n}`, legal, cfAbout(cf, row))}>${tip(cfAbout(cf, row))}</rect>
      <text x="${x + 6}" y="${y + 16}" class="c-name" ${deco}>${t("Conflict {n} · France {france}", { n: cf.n, france: cf.france })}</text>
      <text x="${x + 6}" y="${y + 31}" class="c-sub" ${deco}>${t("power {power} · England {england}", { power: cf.power.join(" / "), england: cf.strengths.reduce((a, b) => a + b, 0) })}</text>
      ${[0, 1, 2].map((i) => {
        const stack = cf.spaces[i] || [];
        return svg`<rect x="${x + 6 + i * 68}" y="${y + 40}" width="62" height="46" rx="5" class="space" ${deco}/>
          <text x="${x + 10 + i * 68}" y="${y + 52}" class="c-sub">${i + 1}.${stack.length ? ` = ${cf.strengths[i]}` : ""}</text>
          ${stack.map((k, j) => kchip(k, x + 20 + i * 68 + j * 18, y + 70, k === last.knight, legal))}`;
      })}
    </g>`;
  const upper = s.conflicts.upper.map((cf, i) => card(cf, 450 + i * 220, 34, "upper"));
  const lower = s.conflicts.lower.map((cf, i) => card(cf, 450 + i * 220, 148, "lower"));
  const votingOn = s.phase === "vote" && s.vote ? s.vote.law : null;
  const lawAbout = (id, cls) =>
    t(cls === "debate" ? N_("Law {n} (under debate): {text}") : N_("Law {n} (in force): {text}"), { n: id.replace(/^L/, ""), text: lawText(id) });
  const law = (id, x, y, cls) => svg`<g class="lw${was(`law:${id}`)}">
      <rect x="${x}" y="${y}" width="140" height="62" rx="6" class="law ${cls}${id === votingOn ? " voting" : ""}" ${piece(`law:${id}`, legal, lawAbout(id, cls))}>${tip(lawAbout(id, cls))}</rect>
      <text x="${x + 6}" y="${y + 15}" class="l-id">${t("Law {n}", { n: id.replace(/^L/, "") })}${id === votingOn ? ` · ${t("voting")}` : ""}</text>
      <g ${deco}>${wrap(lawText(id), 25).map((line, i) => svg`<text x="${x + 6}" y="${y + 29 + i * 12}" class="l-t">${line}</text>`)}</g>
    </g>`;
  const current = s.laws.current.map((id, i) => law(id, 450 + i * 146, 274, "current"));
  const debate = s.laws.debate.map((id, i) => law(id, 450 + i * 146, 360, "debate"));
  const colours = Object.keys(s.castles);
  const castleRows = colours.map((col, r) => {
    const y = 368 + r * 44;
    const owner = s.players.find((p) => p.colour === col || p.ally === col);
    const built = owner && owner.colour === col ? owner.extensions : [];
    return svg`<g>
      <text x="10" y="${y + 20}" class="c-sub">${COL[col].letter} ${colourName(col)}${owner && owner.ally === col ? t(" (ally)") : ""}</text>
      ${SPACES.map((sp, i) => {
        const k = s.castles[col][sp];
        const ext = built.includes(sp);
        const about = t("{colour}'s castle, {space}", { colour: cap(colourName(col)), space: spaceName(sp) }) + (ext ? t(", extension built") : "") + (k ? t(": {knight}", { knight: kName(k) }) : "");
        return svg`<rect x="${84 + i * 58}" y="${y}" width="54" height="36" rx="4" class="space${ext ? " ext" : ""}${was(`space:${col}:${sp}`)}" ${piece(`space:${col}:${sp}`, legal, about)}>${tip(about)}</rect>
          <text x="${86 + i * 58}" y="${y + 11}" class="c-sub" ${deco}>${t(SHORT[sp])}</text>
          ${ext ? svg`<text x="${86 + i * 58}" y="${y + 31}" class="c-sub" ${deco}>${t("ext ✓")}</text>` : ""}
          ${k ? kchip(k, 124 + i * 58, y + 23, k === last.knight, legal) : ""}`;
      })}
    </g>`;
  });
  const H = Math.max(460, 380 + colours.length * 44 + 10);
  const vote = s.vote;
  return svg`<svg viewBox="0 0 900 ${H}" class="la" role="group" aria-label="${t("the board of Lancaster")}">
    <rect width="900" height="${H}" class="bg" ${deco}/>
    <text x="10" y="22" class="h">${t("Counties")}</text>
    ${counties}
    <text x="450" y="22" class="h">${t("Conflicts (upper row) · deck {count}", { count: s.conflicts.deck })}</text>
    ${upper}
    <text x="450" y="142" class="h">${lower.length ? t("Lower row") : ""}</text>
    ${lower}
    <text x="450" y="266" class="h">${t("Parliament: current laws")}</text>
    ${current}
    <text x="450" y="352" class="h">${t("Laws under debate")}${vote ? ` · ${t("committed: {names}", { names: vote.committed.map((x) => c.names[x]).join(t(", ")) || t("nobody yet") })}` : ""}</text>
    ${debate}
    <text x="10" y="360" class="h">${t("Castles")}</text>
    ${castleRows}
  </svg>`;
}

function wrap(text, n) {
  // a text without spaces (Japanese, Chinese): lines of n/2 characters (each is twice as wide)
  if (!text.includes(" ")) return (text.match(new RegExp(`.{1,${Math.ceil(n / 2)}}`, "gu")) || []).slice(0, 3);
  const out = [];
  let line = "";
  for (const w of text.split(" ")) {
    if ((line + " " + w).trim().length > n) {
      out.push(line.trim());
      line = w;
    } else line += " " + w;
  }
  if (line.trim()) out.push(line.trim());
  return out.slice(0, 3);
}

/** Knights as chips with their letters; ``legal`` (the seat's own: the keys the legal moves
 *  use) makes the ones a move places controls. */
function knightList(ks, legal) {
  if (!ks.length) return html`<span class="muted">${t("none")}</span> `;
  return html`${ks.map((k) => {
    const shown = `${COL[knightColour(k)].letter}${strength(k)}`;
    return html`<span class="swatch c-${knightColour(k)}" ${piece(legal ? `knight:${k}` : null, legal, `${shown}: ${kName(k)}`)} title="${kName(k)}">${shown}</span> `;
  })}`;
}

function details(s, c) {
  const me = c.you;
  const legal = legalKeys(c, keysOf, s);
  const vote = s.vote;
  return html`<div class="la-details">
    <p>${t("Round")} <b>${s.round}</b>/5 · ${phaseWords(s)} · ${t("start player: {name}", { name: c.names[s.start] })} · ${t("order: {names}", { names: s.order.map((x) => c.names[x]).join(" → ") })}
      · ${t("King's favour face up: {tiles}", { tiles: s.favour.face_up.map(favourWords).join(t(", ")) || t("none") })}</p>
    ${vote && me != null
      ? html`<p class="secret">${t("Vote on")} <b>${lawName(vote.law)}</b> (${lawText(vote.law)}):
          ${vote.mine ? t("your secret vote: {tile} + {count} markers (hidden from the others until all have voted)", { tile: voteWord(vote.mine.tile), count: vote.mine.markers }) : t("choose yes or no and how many markers; nobody sees it until all have voted.")}</p>`
      : ""}
    ${vote && vote.votes ? html`<p>${t("Votes: {votes}", { votes: Object.entries(vote.votes).map(([x, v]) => t("{name}: {tile} with {count} markers", { name: c.names[x], tile: voteWord(v.tile), count: v.markers })).join(" · ") })}</p>` : ""}
    <div class="la-players">${s.players.map((p) => {
      const mine = p.seat === me;
      const screen = p.gold != null
        ? html`${t("gold")} <b>${p.gold}</b> · ${t("squires")} <b>${p.squires}</b>`
        : html`<span class="muted">${t("gold and squires behind the screen")}</span>`;
      return html`<div class="la-player${mine ? " mine" : ""}">
        <h2 class="la-h">${swatch(p.colour, COL[p.colour].letter)} ${c.names[p.seat]}${mine ? t(" (you)") : ""}${p.ally ? html` · ${t("ally")} ${swatch(p.ally, COL[p.ally].letter)}` : ""}</h2>
        <p>${t("power")} <b>${p.power}</b>${c.view && c.view.result ? html` · ${t("final points")} <b>${c.view.result.scores[p.seat]}</b>` : ""} · ${t("vote markers {count}", { count: p.markers })} · ${t("nobles {names}", { names: p.nobles.map((L) => (s.counties[L] ? s.counties[L].name : L)).join(t(", ")) || t("none") })}</p>
        <p>${mine ? html`<span class="secret">${t("Your screen:")} ${screen}</span>` : screen}</p>
        <p class="small">${t("extensions: {names}", { names: p.extensions.map(spaceWords).join(t(", ")) || t("none") })} · ${t("{count} left to build", { count: p.extension_pile })}</p>
        <p class="small">${t("court:")} ${knightList(p.knights.court, mine ? legal : null)} ${t("reserve:")} ${knightList(p.knights.reserve, null)}</p>
        ${p.ally_knights ? html`<p class="small">${t("ally court:")} ${knightList(p.ally_knights.court, mine ? legal : null)} ${t("reserve:")} ${knightList(p.ally_knights.reserve, null)}</p>` : ""}
      </div>`;
    })}</div>
    ${s.prisoners.length ? html`<p>${t("Prisoners:")} ${knightList(s.prisoners, me != null ? legal : null)}</p>` : ""}
  </div>`;
}

/** The phases in words (the text view says them too). */
export const PHASES = {
  start: N_("building the first extension"), placement: N_("placing knights"), vote: N_("parliament votes"),
  laws: N_("laws take effect"), counties: N_("county rewards"), castle: N_("castle rewards"), conflicts: N_("conflicts"), over: N_("over"),
};
export const phaseWords = (s) => t(phaseIn(PHASES)(s));

const lawName = (id) => t("law {n}", { n: String(id).replace(/^L/, "") });
const VOTES = { yes: N_("yes"), no: N_("no") };
/** A vote tile ("yes", "no") in the page's language. */
export const voteWord = (tile) => (VOTES[tile] ? t(VOTES[tile]) : String(tile));
const BUY = {
  L4: N_("Buy {count} vote markers (1 gold each)"),
  L5: N_("Buy {count} times 3 power (1 squire and 1 gold each time)"),
  L16: N_("Buy {count} power (1 gold each)"),
};

function describeAction(a, c) {
  const s = c.view.state;
  const ct = (L) => `${s.counties[L].name} (${L})`;
  switch (a.type) {
    case "build_start_extension":
      return t("Build your first extension on the {space}", { space: spaceWords(a.space) });
    case "place_county":
      return a.squires
        ? tn("Send {knight} to {county} with {count} squire", "Send {knight} to {county} with {count} squires", a.squires, { knight: kName(a.knight), county: ct(a.county) })
        : t("Send {knight} to {county}", { knight: kName(a.knight), county: ct(a.county) });
    case "place_castle":
      return t("Put {knight} in the castle: {space}", { knight: kName(a.knight), space: spaceName(a.space) });
    case "place_conflict":
      return t("Send {knight} to conflict {n}", { knight: kName(a.knight), n: a.conflict });
    case "take_favour": {
      const g = a.goods || a.choice;
      const ch = g && typeof g === "object" ? t("{gold} gold, {squires} squires", { gold: g.gold || 0, squires: g.squires || 0 }) : g;
      // two face-up tiles of a kind are two moves: the tile's number tells them apart
      const n = String(a.tile).split("-")[1];
      const noble = a.noble && s.counties[a.noble] ? t(" from {county}", { county: ct(a.noble) }) : "";
      const tile = n ? t("King's favour tile {n}:", { n }) : t("King's favour:");
      return `${tile} ${favourWords(a.tile)}${noble}${a.knight ? ` (${kName(a.knight)})` : ""}${ch != null ? ` (${ch})` : ""}`;
    }
    case "vote":
      return tn("Vote {tile} on {law} with {count} marker (secret)", "Vote {tile} on {law} with {count} markers (secret)", a.markers, {
        tile: voteWord(a.tile).toUpperCase(),
        law: lawName(a.law),
      });
    case "county_reward": {
      const take =
        a.take === "noble"
          ? t("take the noble")
          : a.take === "reward"
            ? t("take the reward ({reward})", { reward: reward(s.counties[a.county].reward) })
            : a.take === "both"
              ? t("take both for 3 gold")
              : a.take;
      return `${ct(a.county)}: ${take}${a.knight ? t(", upgrade {knight}", { knight: kName(a.knight) }) : ""}`;
    }
    case "choose_start_player":
      return t("Make {name} the start player", { name: c.names[a.seat] });
    case "castle_reward":
      return t("Castle reward: {space}", { space: spaceName(a.source) }) + (a.knight ? t(" (upgrade {knight})", { knight: kName(a.knight) }) : "");
    case "ransom":
      return t("Ransom {knight} ({gold} gold)", { knight: kName(a.knight), gold: strength(a.knight) });
    case "upgrade":
      return t("Upgrade {knight}", { knight: kName(a.knight) });
    case "buy": {
      const law = s.pending && s.pending.law;
      return BUY[law] ? t(BUY[law], { count: a.count }) : t("Buy {count} with the law in force", { count: a.count });
    }
    case "pass":
      return t("Pass");
    default:
      return idWords(a.type);
  }
}

function keysOf(a, s) {
  const k = [];
  const me = s && s.players && s.you != null ? s.players[s.you].colour : null;
  if (a.knight) k.push(`knight:${a.knight}`);
  if (a.county) k.push(`county:${a.county}`);
  if (a.conflict != null) k.push(`conflict:${a.conflict}`);
  if (a.type === "vote") k.push(`law:${a.law}`);
  if (a.type === "place_castle") k.push(`space:${knightColour(a.knight)}:${a.space}`);
  if (a.type === "build_start_extension" && me) k.push(`space:${me}:${a.space}`);
  if (a.type === "castle_reward" && me) k.push(`space:${me}:${a.source}`);
  return k;
}

const GAIN_WORDS = {
  gold: [N_("{sign}{count} gold"), N_("{sign}{count} gold")],
  squires: [N_("{sign}{count} squire"), N_("{sign}{count} squires")],
  markers: [N_("{sign}{count} vote marker"), N_("{sign}{count} vote markers")],
  power: [N_("{sign}{count} power"), N_("{sign}{count} power")],
  goods: [N_("{sign}{count} gold or squire"), N_("{sign}{count} gold or squires")],
};

/** A gains record in words (see domain/games/lancaster/__init__.py). */
function gains(g, c) {
  const county = (L) => {
    const ct = c && c.view && c.view.state && c.view.state.counties && c.view.state.counties[L];
    return ct ? `${ct.name}` : t("county {letter}", { letter: L });
  };
  return Object.entries(g || {})
    .map(([k, v]) => {
      if (k === "upgrade" && Array.isArray(v)) return t("{knight} became strength {strength}", { knight: kName(v[0]), strength: strength(v[1]) });
      if (k === "recruit") return t("recruited {knights}", { knights: [].concat(v).map(kName).join(t(", ")) });
      if (k === "build") return t("built {spaces}", { spaces: [].concat(v).map((x) => t("the {space}", { space: spaceWords(x) })).join(t(", ")) });
      if (k === "noble") return t("the noble of {county}", { county: county(v) });
      if (k === "noble_removed") return t("the noble of {county} left the game", { county: county(v) });
      if (typeof v === "number") {
        const sign = v > 0 ? "+" : "";
        if (!GAIN_WORDS[k]) return `${sign}${v} ${idWords(k)}`;
        return t(GAIN_WORDS[k][Math.abs(v) === 1 ? 0 : 1], { sign, count: String(v) });
      }
      return `${idWords(k)} ${[].concat(v).map(idWords).join(", ")}`;
    })
    .join(t(", ")) || t("nothing");
}

const OUTCOME = { won: N_("won"), first_loss: N_("lost (first loss)"), second_loss: N_("lost again: its knights are taken prisoner") };
const TAKE = { noble: N_("the noble"), reward: N_("the reward"), both: N_("the noble and the reward") };

function gameEvent(e, c, d, w) {
  const laws = (ids) => (ids || []).map(lawName).join(t(", "));
  const nm = (x) => c.names[x] || t("seat {n}", { n: Number(x) + 1 });
  switch (e.type) {
    case "GameSetUp":
      return t("The board was set: {current} in force, {debate} under debate; conflicts {conflicts}.", { current: laws(d.current), debate: laws(d.debate), conflicts: d.conflicts.join(t(", ")) });
    case "StartExtensionBuilt":
      return t("{who} built an extension on the {space}.", { who: w, space: spaceWords(d.space) });
    case "KnightPlacedInCounty": {
      const args = { who: w, knight: kName(d.knight), county: d.county };
      const sent = d.squires
        ? tn("{who} sent {knight} to county {county} with {count} squire", "{who} sent {knight} to county {county} with {count} squires", d.squires, args)
        : t("{who} sent {knight} to county {county}", args);
      return `${sent}${d.expelled ? t(", expelling {knight}", { knight: kName(d.expelled) }) : ""}${t(".")}`;
    }
    case "KnightPlacedInCastle":
      return t("{who} put {knight} in the castle ({space}).", { who: w, knight: kName(d.knight), space: spaceWords(d.space) });
    case "KnightPlacedInConflict":
      return d.favour
        ? t("{who} sent {knight} to conflict {n} and earns a King's favour.", { who: w, knight: kName(d.knight), n: d.conflict })
        : t("{who} sent {knight} to conflict {n}.", { who: w, knight: kName(d.knight), n: d.conflict });
    case "FavourTaken":
      return t("{who} took a King's favour ({tile}): {gains}.", { who: w, tile: favourWords(d.tile), gains: gains(d.gains, c) });
    case "VoteCommitted":
      return t("{who} voted on {law} (secret).", { who: w, law: lawName(d.law) });
    case "VotesRevealed": {
      const votes = Object.entries(d.votes || {})
        .map(([x, v]) => tn("{name}: {tile} with {count} marker", "{name}: {tile} with {count} markers", v.markers, { name: nm(x), tile: voteWord(v.tile) }))
        .join(t(", "));
      const args = { law: lawName(d.law), yes: d.yes, no: d.no };
      const said = d.approved ? t("Votes on {law}: {yes} yes, {no} no; approved", args) : t("Votes on {law}: {yes} yes, {no} no; rejected", args);
      return `${said}${d.dropped ? t(" ({law} leaves)", { law: lawName(d.dropped) }) : ""}${t(".")}${votes ? ` ${t("{list}.", { list: votes })}` : ""}`;
    }
    case "LawOpened":
      return t("{law} takes effect.", { law: cap(lawName(d.law)) });
    case "LawUsed":
      return t("{who} used {law}: {gains}.", { who: w, law: lawName(d.law), gains: gains(d.gains, c) });
    case "LawPassed":
      return t("{who} passed on {law}.", { who: w, law: lawName(d.law) });
    case "LawTookEffect":
      return t("{law}: {effects}.", {
        law: cap(lawName(d.law)),
        effects: Object.entries(d.effects || {}).map(([x, g]) => `${nm(x)} ${gains(g, c)}`).join(t("; ")) || t("no effect"),
      });
    case "CountyRewarded":
      return t("{who} took {take} from county {county}: {gains}.", { who: w, take: TAKE[d.take] ? t(TAKE[d.take]) : d.take, county: d.county, gains: gains(d.gains, c) });
    case "StartPlayerChosen":
      return t("{who} made {name} the start player.", { who: w, name: nm(d.start) });
    case "CastleRewardTaken":
      return t("{who} took the {space} reward: {gains}.", { who: w, space: spaceWords(d.source), gains: gains(d.gains, c) });
    case "CastlePassed":
      return t("{who} took no more castle rewards.", { who: w });
    case "CastleFinished":
      return tn("{who} finished the castle ({count} vote marker).", "{who} finished the castle ({count} vote markers).", d.markers, { who: w });
    case "ConflictResolved": {
      const outcome = OUTCOME[d.outcome] ? t(OUTCOME[d.outcome]) : d.won ? t("won") : t("lost");
      const power = Object.entries(d.power || {}).map(([x, p]) => t("{name} +{power} power", { name: nm(x), power: p })).join(t(", ")) || t("no power");
      return t("Conflict {n} (France {france}, England {england}): {outcome}; {power}.", { n: d.conflict, france: d.france, england: d.strength, outcome, power });
    }
    case "KnightRansomed":
      return t("{who} ransomed {knight} for {gold} gold.", { who: w, knight: kName(d.knight), gold: d.gold });
    case "PrisonersLost":
      return t("Prisoners went back to the reserve: {knights}.", { knights: (d.knights || []).map(kName).join(t(", ")) });
    case "RoundEnded":
      return t("Round {round} is over.", { round: d.round });
    case "RoundStarted":
      return t("Round {round}: conflicts {conflicts}; {laws} under debate.", { round: d.round, conflicts: d.conflicts.join(t(", ")), laws: laws(d.laws) });
    default:
      return null;
  }
}

/** LA-3: the final score's categories, as ``result.details`` holds them per seat. */
function result(res, c) {
  const d = res.details || {};
  const row = (seat) => d[seat] || d[String(seat)] || {};
  const pair = (n, pts) => `${n} → ${pts}`;
  return {
    columns: [t("Power"), t("Knights"), t("Extensions"), t("Nobles"), t("Total points")],
    row: (seat) => {
      const r = row(seat);
      return [
        r.power_in_play,
        pair(r.knight_strength, r.knight_strength_points),
        pair(r.extensions, r.extension_points),
        pair(r.nobles, r.noble_points),
        r.total != null ? r.total : res.scores[seat],
      ];
    },
    note:
      t("Power: won during the game. “7 → 4”: the count (knight strength, extensions built, nobles at the table), then the points it earned. Ties: most squires, then most gold.") +
      " " +
      Object.keys(d)
        .map((x) => t("{name}: {squires} squires, {gold} gold", { name: c.names[x] || x, squires: row(x).squires, gold: row(x).gold }))
        .join(" · "),
  };
}

/** @type {import("./common.js").Renderer} */
export default {
  board,
  details,
  describeAction,
  describeEvent: eventWords(gameEvent),
  keysOf,
  result,
  phase: (s) => t("round {round}/5, {phase}", { round: s.round, phase: phaseWords(s) }),
  // during the game a player's power (LA-3 adds the final awards to it: the result's total)
  scores: (s) => Object.fromEntries(s.players.map((p) => [p.seat, p.power])),
  get scoreUnit() {
    return t("power");
  },
  seatBadge: (seat, s) => {
    const p = s.players[seat];
    return p ? swatch(p.colour, COL[p.colour].letter) : "";
  },
  get clickHint() {
    return t("click a county, a conflict, a castle space, a law or a knight");
  },
};
