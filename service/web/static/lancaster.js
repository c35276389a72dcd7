// Lancaster: the nine counties with their nobles and knights, every castle, the conflicts,
// parliament's two law rows and the vote, each player's screen (gold and squires: the seat's
// own, or everyone's with 2 players) and every player's public track.
import { cap, deco, eventWords, idWords, lastOf, legalKeys, mark, phaseIn, piece, swatch, tip } from "./common.js";
import { html, svg } from "./ui.js";

const COL = {
  red: { fill: "#c8372d", text: "#fff", letter: "R" },
  blue: { fill: "#2b6cb0", text: "#fff", letter: "B" },
  green: { fill: "#27803f", text: "#fff", letter: "G" },
  yellow: { fill: "#f0c419", text: "#222", letter: "Y" },
  purple: { fill: "#7b4fb0", text: "#fff", letter: "P" },
};
export const LAWS = {
  L1: "Most gold: upgrade one deployed knight.",
  L2: "Most squires: a strength-1 knight from reserve to court.",
  L3: "3 power per 2 counties occupied.",
  L4: "Buy vote markers, 1 gold each.",
  L5: "Pay 1 squire + 1 gold for 3 power, repeatable.",
  L6: "Build 1 extension per 2 conflicts with a knight.",
  L7: "1 squire per deployed strength-2 knight.",
  L8: "Squire + marker + gold per 2 conflicts with a knight.",
  L9: "No deployed strength-2 knight: upgrade one knight.",
  L10: "Swap a deployed strength-3 knight for your 4.",
  L11: "5 power per 3 extensions.",
  L12: "3 power per conflict with a knight.",
  L13: "8 power per 3 counties with a knight.",
  L14: "5 power if all three strength-1 knights are deployed.",
  L15: "A new knight per 3 nobles at your table.",
  L16: "Buy power, 1 gold each.",
  L17: "4 power if your strength-4 knight is deployed.",
  L18: "1 power per noble at your table.",
};
export const SPACES = ["treasury", "squire_hall", "council", "barracks", "training_yard", "chapel"];
const SPACE_NAME = {
  treasury: "Treasury +1 gold", squire_hall: "Squire hall +1 squire", council: "Council +1 marker",
  barracks: "Barracks: 2 squires → knight", training_yard: "Training yard: 1 squire → upgrade", chapel: "Chapel +1 power",
};
const SHORT = { treasury: "treasury", squire_hall: "squires", council: "council", barracks: "barracks", training_yard: "training", chapel: "chapel" };
const FAVOUR = { upgrade: "upgrade a knight", goods: "2 gold or squires", noble: "a noble" };
const SPACE_WORDS = {
  treasury: "treasury", squire_hall: "squire hall", council: "council", barracks: "barracks",
  training_yard: "training yard", chapel: "chapel",
};
const spaceWords = (sp) => SPACE_WORDS[sp] || idWords(sp);

export const knightColour = (k) => k.split("-")[0];
const strength = (k) => Number(k.split("-")[1][0]);
const NTH = { b: ", second", c: ", third" };
/** A knight in words: "red-2b" is "Red's knight of strength 2, second" (there are two). */
const kName = (k) => `${cap(knightColour(k))}'s knight of strength ${strength(k)}${NTH[k.split("-")[1].slice(1)] || ""}`;
const REWARD_WORDS = {
  gold: "gold", squires: "squires", vote_markers: "vote markers", markers: "vote markers", power: "power",
  new_knight: "new knight", upgrade: "knight upgrade", extension: "extension", pay_squires: "squires paid",
};
const reward = (r) =>
  Object.entries(r || {})
    .map(([k, v]) => `${v} ${REWARD_WORDS[k] || idWords(k)}`)
    .join(", ");
const favourWords = (tile) => FAVOUR[String(tile).split("-")[0]] || idWords(tile);

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
    const about = `${ct.name} (county ${L}): a knight needs strength ${ct.min}; reward ${reward(ct.reward)}; ${ct.nobles_left} nobles left${occ ? `; held by ${kName(occ.knight)} with ${occ.squires} squires` : ""}`;
    return svg`<g class="cty${was(`county:${L}`)}">
      <rect x="${x}" y="${y}" width="137" height="98" rx="8" class="county" ${piece(`county:${L}`, legal, about)}>${tip(about)}</rect>
      <g ${deco}><text x="${x + 6}" y="${y + 16}" class="c-name">${L} · ${ct.name}</text>
      <text x="${x + 6}" y="${y + 31}" class="c-sub">min ${ct.min} · ${reward(ct.reward)}</text>
      <text x="${x + 6}" y="${y + 46}" class="c-sub">nobles left: ${"♦".repeat(ct.nobles_left) || "none"}</text></g>
      ${occ ? svg`${kchip(occ.knight, x + 22, y + 72, occ.knight === last.knight, legal)}<text x="${x + 40}" y="${y + 76}" class="c-sub" ${deco}>${occ.squires ? `+${occ.squires} squire${occ.squires > 1 ? "s" : ""} = ${strength(occ.knight) + occ.squires}` : `= ${strength(occ.knight)}`}</text>` : ""}
    </g>`;
  });
  const cfAbout = (cf, row) => `Conflict ${cf.n} (${row} row): France has strength ${cf.france}, England ${cf.strengths.reduce((a, b) => a + b, 0)}; power for the 1st, 2nd, 3rd space: ${cf.power.join(", ")}`;
  const card = (cf, x, y, row) => svg`<g class="cfg${was(`conflict:${cf.n}`)}">
      <rect x="${x}" y="${y}" width="210" height="92" rx="8" class="cf" ${piece(`conflict:${cf.n}`, legal, cfAbout(cf, row))}>${tip(cfAbout(cf, row))}</rect>
      <text x="${x + 6}" y="${y + 16}" class="c-name" ${deco}>Conflict ${cf.n} · France ${cf.france}</text>
      <text x="${x + 6}" y="${y + 31}" class="c-sub" ${deco}>power ${cf.power.join(" / ")} · England ${cf.strengths.reduce((a, b) => a + b, 0)}</text>
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
  const lawAbout = (id, cls) => `Law ${id.replace(/^L/, "")}${cls === "debate" ? " (under debate)" : " (in force)"}: ${LAWS[id] || ""}`;
  const law = (id, x, y, cls) => svg`<g class="lw${was(`law:${id}`)}">
      <rect x="${x}" y="${y}" width="140" height="62" rx="6" class="law ${cls}${id === votingOn ? " voting" : ""}" ${piece(`law:${id}`, legal, lawAbout(id, cls))}>${tip(lawAbout(id, cls))}</rect>
      <text x="${x + 6}" y="${y + 15}" class="l-id">Law ${id.replace(/^L/, "")}${id === votingOn ? " · voting" : ""}</text>
      <g ${deco}>${wrap(LAWS[id] || "", 25).map((line, i) => svg`<text x="${x + 6}" y="${y + 29 + i * 12}" class="l-t">${line}</text>`)}</g>
    </g>`;
  const current = s.laws.current.map((id, i) => law(id, 450 + i * 146, 274, "current"));
  const debate = s.laws.debate.map((id, i) => law(id, 450 + i * 146, 360, "debate"));
  const colours = Object.keys(s.castles);
  const castleRows = colours.map((col, r) => {
    const y = 368 + r * 44;
    const owner = s.players.find((p) => p.colour === col || p.ally === col);
    const built = owner && owner.colour === col ? owner.extensions : [];
    return svg`<g>
      <text x="10" y="${y + 20}" class="c-sub">${COL[col].letter} ${col}${owner && owner.ally === col ? " (ally)" : ""}</text>
      ${SPACES.map((sp, i) => {
        const k = s.castles[col][sp];
        const ext = built.includes(sp);
        const about = `${cap(col)}'s castle, ${SPACE_NAME[sp]}${ext ? ", extension built" : ""}${k ? `: ${kName(k)}` : ""}`;
        return svg`<rect x="${84 + i * 58}" y="${y}" width="54" height="36" rx="4" class="space${ext ? " ext" : ""}${was(`space:${col}:${sp}`)}" ${piece(`space:${col}:${sp}`, legal, about)}>${tip(about)}</rect>
          <text x="${86 + i * 58}" y="${y + 11}" class="c-sub" ${deco}>${SHORT[sp]}</text>
          ${ext ? svg`<text x="${86 + i * 58}" y="${y + 31}" class="c-sub" ${deco}>ext ✓</text>` : ""}
          ${k ? kchip(k, 124 + i * 58, y + 23, k === last.knight, legal) : ""}`;
      })}
    </g>`;
  });
  const H = Math.max(460, 380 + colours.length * 44 + 10);
  const vote = s.vote;
  return svg`<svg viewBox="0 0 900 ${H}" class="la" role="group" aria-label="the board of Lancaster">
    <rect width="900" height="${H}" class="bg" ${deco}/>
    <text x="10" y="22" class="h">Counties</text>
    ${counties}
    <text x="450" y="22" class="h">Conflicts (upper row) · deck ${s.conflicts.deck}</text>
    ${upper}
    <text x="450" y="142" class="h">${lower.length ? "Lower row" : ""}</text>
    ${lower}
    <text x="450" y="266" class="h">Parliament: current laws</text>
    ${current}
    <text x="450" y="352" class="h">Laws under debate${vote ? ` · committed: ${vote.committed.map((x) => c.names[x]).join(", ") || "nobody yet"}` : ""}</text>
    ${debate}
    <text x="10" y="360" class="h">Castles</text>
    ${castleRows}
  </svg>`;
}

function wrap(text, n) {
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
  if (!ks.length) return html`<span class="muted">none</span> `;
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
    <p>Round <b>${s.round}</b>/5 · ${phaseWords(s)} · start player: ${c.names[s.start]} · order: ${s.order.map((x) => c.names[x]).join(" → ")}
      · King's favour face up: ${s.favour.face_up.map(favourWords).join(", ") || "none"}</p>
    ${vote && me != null
      ? html`<p class="secret">Vote on <b>${lawName(vote.law)}</b> (${LAWS[vote.law] || ""}):
          ${vote.mine ? html`your secret vote: <b>${vote.mine.tile}</b> + ${vote.mine.markers} markers (hidden from the others until all have voted)` : "choose yes or no and how many markers; nobody sees it until all have voted."}</p>`
      : ""}
    ${vote && vote.votes ? html`<p>Votes: ${Object.entries(vote.votes).map(([x, v]) => `${c.names[x]}: ${v.tile} with ${v.markers} markers`).join(" · ")}</p>` : ""}
    <div class="la-players">${s.players.map((p) => {
      const mine = p.seat === me;
      const screen = p.gold != null
        ? html`gold <b>${p.gold}</b> · squires <b>${p.squires}</b>`
        : html`<span class="muted">gold and squires behind the screen</span>`;
      return html`<div class="la-player${mine ? " mine" : ""}">
        <h2 class="la-h">${swatch(p.colour, COL[p.colour].letter)} ${c.names[p.seat]}${mine ? " (you)" : ""}${p.ally ? html` · ally ${swatch(p.ally, COL[p.ally].letter)}` : ""}</h2>
        <p>power <b>${p.power}</b>${c.view && c.view.result ? html` · final points <b>${c.view.result.scores[p.seat]}</b>` : ""} · vote markers ${p.markers} · nobles ${p.nobles.map((L) => (s.counties[L] ? s.counties[L].name : L)).join(", ") || "none"}</p>
        <p>${mine ? html`<span class="secret">Your screen: ${screen}</span>` : screen}</p>
        <p class="small">extensions: ${p.extensions.map(spaceWords).join(", ") || "none"} · ${p.extension_pile} left to build</p>
        <p class="small">court: ${knightList(p.knights.court, mine ? legal : null)} reserve: ${knightList(p.knights.reserve, null)}</p>
        ${p.ally_knights ? html`<p class="small">ally court: ${knightList(p.ally_knights.court, mine ? legal : null)} reserve: ${knightList(p.ally_knights.reserve, null)}</p>` : ""}
      </div>`;
    })}</div>
    ${s.prisoners.length ? html`<p>Prisoners: ${knightList(s.prisoners, me != null ? legal : null)}</p>` : ""}
  </div>`;
}

const phaseWords = phaseIn({
    start: "building the first extension", placement: "placing knights", vote: "parliament votes",
    laws: "laws take effect", counties: "county rewards", castle: "castle rewards", conflicts: "conflicts", over: "over",
  });

const lawName = (id) => `law ${String(id).replace(/^L/, "")}`;
const BUY = { L4: "vote markers (1 gold each)", L5: "times 3 power (1 squire and 1 gold each time)", L16: "power (1 gold each)" };

function describeAction(a, c) {
  const s = c.view.state;
  const ct = (L) => `${s.counties[L].name} (${L})`;
  switch (a.type) {
    case "build_start_extension":
      return `Build your first extension on the ${spaceWords(a.space)}`;
    case "place_county":
      return `Send ${kName(a.knight)} to ${ct(a.county)}${a.squires ? ` with ${a.squires} squire${a.squires > 1 ? "s" : ""}` : ""}`;
    case "place_castle":
      return `Put ${kName(a.knight)} in the castle: ${SPACE_NAME[a.space] || spaceWords(a.space)}`;
    case "place_conflict":
      return `Send ${kName(a.knight)} to conflict ${a.conflict}`;
    case "take_favour": {
      const g = a.goods || a.choice;
      const ch = g && typeof g === "object" ? `${g.gold || 0} gold, ${g.squires || 0} squires` : g;
      // two face-up tiles of a kind are two moves: the tile's number tells them apart
      const n = String(a.tile).split("-")[1];
      const noble = a.noble && s.counties[a.noble] ? ` from ${ct(a.noble)}` : "";
      return `King's favour${n ? ` tile ${n}` : ""}: ${favourWords(a.tile)}${noble}${a.knight ? ` (${kName(a.knight)})` : ""}${ch != null ? ` (${ch})` : ""}`;
    }
    case "vote":
      return `Vote ${a.tile.toUpperCase()} on ${lawName(a.law)} with ${a.markers} marker${a.markers === 1 ? "" : "s"} (secret)`;
    case "county_reward":
      return `${ct(a.county)}: take ${{ noble: "the noble", reward: `the reward (${reward(s.counties[a.county].reward)})`, both: "both for 3 gold" }[a.take] || a.take}${a.knight ? `, upgrade ${kName(a.knight)}` : ""}`;
    case "choose_start_player":
      return `Make ${c.names[a.seat]} the start player`;
    case "castle_reward":
      return `Castle reward: ${SPACE_NAME[a.source] || spaceWords(a.source)}${a.knight ? ` (upgrade ${kName(a.knight)})` : ""}`;
    case "ransom":
      return `Ransom ${kName(a.knight)} (${strength(a.knight)} gold)`;
    case "upgrade":
      return `Upgrade ${kName(a.knight)}`;
    case "buy": {
      const law = s.pending && s.pending.law;
      return `Buy ${a.count} ${BUY[law] || "with the law in force"}`;
    }
    case "pass":
      return "Pass";
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

const GAIN_WORDS = { gold: ["gold", "gold"], squires: ["squire", "squires"], markers: ["vote marker", "vote markers"], power: ["power", "power"], goods: ["gold or squire", "gold or squires"] };

/** A gains record in words (see domain/games/lancaster/__init__.py). */
function gains(g, c) {
  const county = (L) => {
    const ct = c && c.view && c.view.state && c.view.state.counties && c.view.state.counties[L];
    return ct ? `${ct.name}` : `county ${L}`;
  };
  return Object.entries(g || {})
    .map(([k, v]) => {
      if (k === "upgrade" && Array.isArray(v)) return `${kName(v[0])} became strength ${strength(v[1])}`;
      if (k === "recruit") return `recruited ${[].concat(v).map(kName).join(", ")}`;
      if (k === "build") return `built ${[].concat(v).map((x) => `the ${spaceWords(x)}`).join(", ")}`;
      if (k === "noble") return `the noble of ${county(v)}`;
      if (k === "noble_removed") return `the noble of ${county(v)} left the game`;
      if (typeof v === "number") {
        const [one, many] = GAIN_WORDS[k] || [idWords(k), idWords(k)];
        return `${v > 0 ? "+" : ""}${v} ${Math.abs(v) === 1 ? one : many}`;
      }
      return `${idWords(k)} ${[].concat(v).map(idWords).join(", ")}`;
    })
    .join(", ") || "nothing";
}

const OUTCOME = { won: "won", first_loss: "lost (first loss)", second_loss: "lost again: its knights are taken prisoner" };
const TAKE = { noble: "the noble", reward: "the reward", both: "the noble and the reward" };

function gameEvent(e, c, d, w) {
  const laws = (ids) => (ids || []).map(lawName).join(", ");
  const nm = (x) => c.names[x] || `seat ${Number(x) + 1}`;
  switch (e.type) {
    case "GameSetUp":
      return `The board was set: ${laws(d.current)} in force, ${laws(d.debate)} under debate; conflicts ${d.conflicts.join(", ")}.`;
    case "StartExtensionBuilt":
      return `${w} built an extension on the ${spaceWords(d.space)}.`;
    case "KnightPlacedInCounty":
      return `${w} sent ${kName(d.knight)} to county ${d.county}${d.squires ? ` with ${d.squires} ${d.squires === 1 ? "squire" : "squires"}` : ""}${d.expelled ? `, expelling ${kName(d.expelled)}` : ""}.`;
    case "KnightPlacedInCastle":
      return `${w} put ${kName(d.knight)} in the castle (${spaceWords(d.space)}).`;
    case "KnightPlacedInConflict":
      return `${w} sent ${kName(d.knight)} to conflict ${d.conflict}${d.favour ? " and earns a King's favour" : ""}.`;
    case "FavourTaken":
      return `${w} took a King's favour (${favourWords(d.tile)}): ${gains(d.gains, c)}.`;
    case "VoteCommitted":
      return `${w} voted on ${lawName(d.law)} (secret).`;
    case "VotesRevealed": {
      const votes = Object.entries(d.votes || {}).map(([x, v]) => `${nm(x)}: ${v.tile} with ${v.markers} ${v.markers === 1 ? "marker" : "markers"}`).join(", ");
      return `Votes on ${lawName(d.law)}: ${d.yes} yes, ${d.no} no; ${d.approved ? "approved" : "rejected"}${d.dropped ? ` (${lawName(d.dropped)} leaves)` : ""}.${votes ? ` ${votes}.` : ""}`;
    }
    case "LawOpened":
      return `${cap(lawName(d.law))} takes effect.`;
    case "LawUsed":
      return `${w} used ${lawName(d.law)}: ${gains(d.gains, c)}.`;
    case "LawPassed":
      return `${w} passed on ${lawName(d.law)}.`;
    case "LawTookEffect":
      return `${cap(lawName(d.law))}: ${Object.entries(d.effects || {}).map(([x, g]) => `${nm(x)} ${gains(g, c)}`).join("; ") || "no effect"}.`;
    case "CountyRewarded":
      return `${w} took ${TAKE[d.take] || d.take} from county ${d.county}: ${gains(d.gains, c)}.`;
    case "StartPlayerChosen":
      return `${w} made ${nm(d.start)} the start player.`;
    case "CastleRewardTaken":
      return `${w} took the ${spaceWords(d.source)} reward: ${gains(d.gains, c)}.`;
    case "CastlePassed":
      return `${w} took no more castle rewards.`;
    case "CastleFinished":
      return `${w} finished the castle (${d.markers} vote ${d.markers === 1 ? "marker" : "markers"}).`;
    case "ConflictResolved":
      return `Conflict ${d.conflict} (France ${d.france}, England ${d.strength}): ${OUTCOME[d.outcome] || (d.won ? "won" : "lost")}; ${Object.entries(d.power || {}).map(([x, p]) => `${nm(x)} +${p} power`).join(", ") || "no power"}.`;
    case "KnightRansomed":
      return `${w} ransomed ${kName(d.knight)} for ${d.gold} gold.`;
    case "PrisonersLost":
      return `Prisoners went back to the reserve: ${(d.knights || []).map(kName).join(", ")}.`;
    case "RoundEnded":
      return `Round ${d.round} is over.`;
    case "RoundStarted":
      return `Round ${d.round}: conflicts ${d.conflicts.join(", ")}; ${laws(d.laws)} under debate.`;
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
    columns: ["Power", "Knights", "Extensions", "Nobles", "Total points"],
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
    note: "Power: won during the game. “7 → 4”: the count (knight strength, extensions built, nobles at the table), then the points it earned. Ties: most squires, then most gold. " +
      Object.keys(d).map((x) => `${c.names[x] || x}: ${row(x).squires} squires, ${row(x).gold} gold`).join(" · "),
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
  phase: (s) => `round ${s.round}/5, ${phaseWords(s)}`,
  // during the game a player's power (LA-3 adds the final awards to it: the result's total)
  scores: (s) => Object.fromEntries(s.players.map((p) => [p.seat, p.power])),
  scoreUnit: "power",
  seatBadge: (seat, s) => {
    const p = s.players[seat];
    return p ? swatch(p.colour, COL[p.colour].letter) : "";
  },
  clickHint: "click a county, a conflict, a castle space, a law or a knight",
};
