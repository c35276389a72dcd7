// What every game's renderer shares: the log's words for the service's own events (creation,
// result, seats, clocks) and a plain fallback for any event a renderer does not know
// (eventWords), a player's colour swatch, the words of a phase, and small number words.
import { html, plural } from "./ui.js";

export function who(e, c) {
  return e.seat == null ? "The game" : c.names[e.seat] || `Seat ${e.seat + 1}`;
}

export function commonEvent(e, c) {
  const d = e.data || {};
  const n = (s) => c.names[s] || `seat ${Number(s) + 1}`;
  switch (e.type) {
    case "GameCreated":
      return `The table was set: ${(d.players || []).map((p) => p.name || "open seat").join(", ")}.`;
    case "GameFinished": {
      const r = d.result || d;
      if (r.winners) return `The game is over: ${r.winners.map(n).join(" and ")} ${r.winners.length > 1 ? "share the win" : "wins"}.`;
      return "The game is over.";
    }
    case "SeatJoined":
      return `${d.name} took seat ${d.seat + 1}.`;
    case "SeatLeft":
      return `Seat ${d.seat + 1} is open again.`;
    case "TurnTimedOut":
      return `${n(d.seat)} ran out of time; a bot plays this turn.`;
    case "SeatTakenOver":
      return `A bot (${d.bot}) takes over ${n(d.seat)}'s seat.`;
    case "SeatResigned":
      return `${n(d.seat)} resigned; a bot (${d.bot}) plays on.`;
    case "GameAbandoned":
      return "The host abandoned the game.";
    default:
      if (e.type === "GameStarted" && d.filled)
        return `The game started${Object.keys(d.filled).length ? `; bots took ${plural(Object.keys(d.filled).length, "open seat")}` : ""}.`;
      return null;
  }
}

export function fallbackEvent(e, c) {
  const d = e.data || {};
  const words = e.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const bits = Object.entries(d)
    .filter(([, v]) => v != null && typeof v !== "object")
    .map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`);
  return `${who(e, c)}: ${words}${bits.length ? " (" + bits.join(", ") + ")" : ""}.`;
}

export const signed = (x) => (x > 0 ? `+${x}` : x < 0 ? `−${-x}` : "0");
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** A game's describeEvent: the service's own events, then the game's (``own(e, c, data, who)``
 *  returns null for an event it does not know), then the plain fallback. */
export const eventWords = (own) => (e, c) =>
  commonEvent(e, c) || own(e, c, e.data || {}, who(e, c)) || fallbackEvent(e, c);

/** A player's colour as a swatch with its letter (colour is never the only cue). */
export const swatch = (colour, letter) => html`<span class="swatch c-${colour}">${letter}</span>`;

/** The words of a view's phase, from a game's table of them (the phase's name otherwise). */
export const phaseIn = (words) => (s) => words[s.phase] || s.phase;
