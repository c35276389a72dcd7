// What every game's renderer shares: the log's words for the service's own events (creation,
// result, seats, clocks) and a plain fallback for any event a renderer does not know
// (eventWords), a player's colour swatch, the words of a phase, small number words, a seat's
// name as a player reads it, a tooltip for SVG pieces, and the last move's marks.
import { formatDate, t, tn } from "./i18n.js";
import { html, svg } from "./ui.js";

// The contract between the pages (table.js, replay.js, reader.js) and a game's renderer and
// text, written once here so that tsc (tsconfig.json) checks every renderer against it.

/** An event as the log holds it (its data already redacted for the caller).
 *  @typedef {{ type: string, seat?: number | null, data?: Record<string, any>, version?: number }} GameEvent */
/** A legal action, as GET .../actions lists it.
 *  @typedef {{ type: string, [field: string]: any }} Action */
/** What a renderer reads besides the view's state: the seats' names, the seat looking (null:
 *  a spectator), the view, its legal actions and the last event (for its marks).
 *  @typedef {object} Context
 *  @property {string[]} names
 *  @property {number | null} [you]
 *  @property {{ version?: number, state?: any, status?: string, result?: any, to_act?: number[], deadlines?: Record<string, string> }} [view]
 *  @property {Action[]} [actions]
 *  @property {GameEvent | null} [last]
 *  @property {string} [status] */
/** A game's renderer (one module per game, loaded by games.js).
 *  @typedef {object} Renderer
 *  @property {(s: any, c: Context) => import("./ui.js").Raw} board
 *  @property {(s: any, c: Context) => import("./ui.js").Raw} details
 *  @property {(a: Action, c: Context) => string} describeAction
 *  @property {(e: GameEvent, c: Context) => string} describeEvent
 *  @property {(a: Action, s?: any) => string[]} keysOf
 *  @property {(s: any, c?: Context) => string} phase
 *  @property {(seat: number, s: any) => import("./ui.js").Content} seatBadge
 *  @property {string} clickHint
 *  @property {(s: any, c?: Context) => Record<number, number>} [scores]
 *  @property {string} [scoreUnit]
 *  @property {(res: any, c: Context) => { columns: string[], row: (seat: number) => import("./ui.js").Content[] }} [result]
 *  @property {string} [resultUnit]
 *  @property {(a: Action, s?: any) => string | string[]} [groupOf]
 *  @property {(a: Action, s?: any) => string[]} [partsOf]
 *  @property {(key: string, s?: any) => string} [partName]
 *  @property {(key: string, s?: any) => string} [partLabel]
 *  @property {(picked: string[], target: string, s?: any) => import("./ui.js").Content} [partsSummary] */
/** A game's text for the text view (reader.js): its sections and, if it has one, how the
 *  moves are grouped.
 *  @typedef {object} TextView
 *  @property {(s: any, c: Context) => import("./ui.js").Raw[]} sections
 *  @property {(a: Action, s: any, c?: Context) => string} [groupOf] */

/** @param {GameEvent} e
 *  @param {Context} c */
export function who(e, c) {
  return e.seat == null ? t("The game") : c.names[e.seat] || t("Seat {n}", { n: e.seat + 1 });
}

/** A bot level in words ("mcts-1000" is a search bot, not a word a player reads). */
export function botWords(bot) {
  const b = String(bot || "");
  if (b === "random") return t("random");
  if (b === "greedy") return t("greedy");
  if (/^mcts/i.test(b)) return b.includes(":") ? t("searching, {level}", { level: b.split(":")[1] }) : t("searching");
  return b.replace(/[-_]+/g, " ");
}

/** A seat's name as the pages show it: "Alice", "Bot (greedy)", "Carol (a greedy bot)". */
export function seatName(s) {
  if (!s) return "";
  if (s.open) return t("open seat {n}", { n: s.seat + 1 });
  const name = s.name || t("Seat {n}", { n: s.seat + 1 });
  if (!s.bot) return name;
  const level = botWords(s.bot);
  // a bot's default name (the lobby's, in any language) says no more than its level
  const plain = /^bot\b/i.test(name) || name === t("Bot {level}", { level });
  return plain ? t("Bot ({level})", { level }) : t("{name} (a {level} bot)", { name, level });
}

/** The service's own events in words (null: not one of them).
 *  @param {GameEvent} e
 *  @param {Context} c
 *  @returns {string | null} */
export function commonEvent(e, c) {
  const d = e.data || {};
  const n = (s) => c.names[s] || t("seat {n}", { n: Number(s) + 1 });
  switch (e.type) {
    case "GameCreated":
      return t("The table was set: {players}.", { players: (d.players || []).map((p) => p.name || t("open seat")).join(", ") });
    case "GameFinished": {
      const r = d.result || d;
      if (r.winners) {
        const names = r.winners.map(n).join(t(" and "));
        return r.winners.length > 1 ? t("The game is over: {names} share the win.", { names }) : t("The game is over: {names} wins.", { names });
      }
      return t("The game is over.");
    }
    case "SeatJoined":
      return t("{name} took seat {n}.", { name: d.name, n: d.seat + 1 });
    case "SeatLeft":
      return t("Seat {n} is open again.", { n: d.seat + 1 });
    case "SeatClaimed":
      return t("{name} keeps seat {n} in an account.", { name: n(d.seat), n: d.seat + 1 });
    case "TurnTimedOut":
      return t("{name} ran out of time; a bot plays this turn.", { name: n(d.seat) });
    case "SeatTakenOver":
      return t("A {level} bot takes over {name}'s seat.", { level: botWords(d.bot), name: n(d.seat) });
    case "SeatResigned":
      return t("{name} resigned; a {level} bot plays on.", { name: n(d.seat), level: botWords(d.bot) });
    case "GameAbandoned":
      return t("The host abandoned the game.");
    case "VacationStarted":
      return t("{name} is on vacation until {until}; their clock stops meanwhile.", { name: n(d.seat), until: formatDate(new Date(d.until)) });
    case "VacationEnded":
      return t("{name} is back from vacation; their clock runs again.", { name: n(d.seat) });
    case "SeatInvited":
      return t("The host invited a player to seat {n}.", { n: d.seat + 1 });
    default:
      if (e.type === "GameStarted" && d.filled)
        return Object.keys(d.filled).length
          ? tn("The game started; bots took {count} open seat.", "The game started; bots took {count} open seats.", Object.keys(d.filled).length)
          : t("The game started.");
      return null;
  }
}

/** Words from an identifier: "men_at_arms" -> "men at arms", "KnightPlaced" -> "knight placed". */
export const idWords = (s) =>
  String(s)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[-_/]+/g, " ")
    .toLowerCase();

/** @param {GameEvent} e
 *  @param {Context} c */
export function fallbackEvent(e, c) {
  const d = e.data || {};
  const bits = Object.entries(d)
    .filter(([, v]) => v != null && v !== "" && typeof v !== "object")
    .map(([k, v]) => `${idWords(k)} ${idWords(v)}`);
  return `${who(e, c)}: ${idWords(e.type)}${bits.length ? " (" + bits.join(", ") + ")" : ""}.`;
}

export const signed = (x) => (x > 0 ? `+${x}` : x < 0 ? `−${-x}` : "0");
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** A game's describeEvent: the service's own events, then the game's (``own(e, c, data, who)``
 *  returns null for an event it does not know), then the plain fallback.
 *  @param {(e: GameEvent, c: Context, d: Record<string, any>, who: string) => string | null} own
 *  @returns {(e: GameEvent, c: Context) => string} */
export const eventWords = (own) => (e, c) =>
  commonEvent(e, c) || own(e, c, e.data || {}, who(e, c)) || fallbackEvent(e, c);

/** A player's colour as a swatch with its letter (colour is never the only cue). */
export const swatch = (colour, letter) => html`<span class="swatch c-${colour}" title="${colour}">${letter}</span>`;

/** The words of a view's phase, from a game's table of them (the phase's name otherwise). */
export const phaseIn = (words) => (s) => words[s.phase] || idWords(s.phase);

/** A tooltip for an SVG piece: its first child, in words. */
export const tip = (text) => svg`<title>${text}</title>`;

/** The last event a renderer draws marks for: the one that made the view's version. */
export const lastOf = (c) => (c && c.last && c.view && c.last.version === c.view.version ? c.last : null);

/** A CSS class when ``on``: " last" for what the last move touched, " moved" for a piece it
 *  moved (animated, unless the browser asks for reduced motion). */
export const mark = (on, cls = "last") => (on ? ` ${cls}` : "");

/** The board keys the legal moves use (a renderer's ``keysOf`` over the context's actions):
 *  the pieces drawn as controls.  The replay has no actions: every piece is a picture there. */
export const legalKeys = (c, keysOf, s) =>
  new Set(((c && c.actions) || []).flatMap((a) => keysOf(a, s)));

/** A board piece's accessible attributes: a control (role=button, in the Tab order) when a
 *  legal move uses it, a named picture (role=img) otherwise, so its name is never an
 *  aria-label on a shape without a role.  ``name`` starts with the piece's visible text (the
 *  name a person who sees "R1" says to a voice control).  The table's markLegal() sets the
 *  same role and tab stop, so a redraw never flips them. */
export const piece = (key, legal, name) =>
  key && legal && legal.has(key)
    ? svg`data-key="${key}" role="button" tabindex="0" aria-label="${name}"`
    : svg`${key ? svg`data-key="${key}" ` : ""}role="img" aria-label="${name}"`;

/** What is only drawing (a duplicate of a piece's name, a frame, a line): hidden from the
 *  accessibility tree. */
export const deco = svg`aria-hidden="true"`;
