// Each seat's clock on the table page (contract: Time controls): the time it has left, counted
// down while it is to act, its deadline, its vacation; and a warning in words (not only colour)
// when little is left.  The figures come from the view or the summary (`clocks`), as the
// server derived them from the log; the page only counts down from when it fetched them.

import { N_, t } from "./i18n.js";
import { html, spoken } from "./ui.js";

// Words the templates use where pybabel's JavaScript lexer does not see them (inside a
// quoted attribute, or after one in a nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("Clocks"),
];

/** @typedef {{ remaining: string, deadline?: string, vacation_until?: string }} Clock */

/** Milliseconds of an ISO 8601 duration of weeks to seconds (`P1DT2H`, `PT30M`), or NaN.
 *  @param {string | undefined | null} text */
export function durationMs(text) {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text || "");
  if (!m || text === "P" || text === "PT") return NaN;
  const [w, d, h, mi, s] = m.slice(1).map((v) => Number(v || 0));
  return ((((w * 7 + d) * 24 + h) * 60 + mi) * 60 + s) * 1000;
}


/** The full time of a table's clock (the bank, or the turn's time), for "little left".
 *  @param {any} summary */
export function fullTime(summary) {
  const control = (summary && summary.time_control) || {};
  return durationMs(control.bank || control.per_turn || (summary && summary.turn_time));
}

/** Little left: under a fifth of the full time, and under an hour.
 *  @param {number} left @param {number} full */
export const isLow = (left, full) => left < Math.min(3_600_000, (Number.isFinite(full) ? full : Infinity) / 5);

/** @type {Map<string, Intl.DateTimeFormat>} */
const dayFormats = new Map();

/** Where `t` falls in `zone`'s local day: on a weekend or not, and the ms to its midnight. */
function localDay(/** @type {number} */ t, /** @type {string} */ zone) {
  let format = dayFormats.get(zone);
  if (!format) {
    /** @type {Intl.DateTimeFormatOptions} */
    const options = { weekday: "short", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" };
    try {
      format = new Intl.DateTimeFormat("en-US", { ...options, timeZone: zone });
    } catch {
      format = new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" }); // a zone this browser does not know
    }
    dayFormats.set(zone, /** @type {Intl.DateTimeFormat} */ (format));
  }
  const p = Object.fromEntries(/** @type {Intl.DateTimeFormat} */ (format).formatToParts(t).map((x) => [x.type, x.value]));
  const since = ((Number(p.hour) * 60 + Number(p.minute)) * 60 + Number(p.second)) * 1000 + (t % 1000);
  return { weekend: p.weekday === "Sat" || p.weekday === "Sun", toMidnight: Math.max(1000, 86_400_000 - since) };
}

/** The milliseconds of [`from`, `to`] on a weekday (Monday to Friday) in `zone`: the time a
 *  clock with weekends off runs, as the server counts it (walked a local day at a time).
 *  @param {number} from @param {number} to @param {string} zone */
export function weekdayMs(from, to, zone) {
  let total = 0;
  let t = from;
  for (let i = 0; t < to && i < 400; i++) {
    const { weekend, toMidnight } = localDay(t, zone);
    const step = Math.min(to - t, toMidnight);
    if (!weekend) total += step;
    t += step;
  }
  return total;
}

/**
 * What each seat's clock reads at `now`: the time left (counted down since `fetched` while
 * the seat is to act and off vacation; with weekends off, only the weekdays' time in the
 * table's `zone`), the deadline, low or not.
 * @param {Record<string, Clock>} clocks
 * @param {{ toAct: number[], fetched: number, now: number, full: number, weekendsOff: boolean, zone?: string }} o
 */
export function readings(clocks, { toAct, fetched, now, full, weekendsOff, zone = "UTC" }) {
  return Object.entries(clocks || {}).map(([key, c]) => {
    const seat = Number(key);
    const away = c.vacation_until && new Date(c.vacation_until).getTime() > now;
    const running = toAct.includes(seat) && !!c.deadline && !away;
    const ran = running ? (weekendsOff ? weekdayMs(fetched, now, zone) : now - fetched) : 0;
    let left = durationMs(c.remaining) - ran;
    if (c.deadline && toAct.includes(seat)) left = Math.min(left, new Date(c.deadline).getTime() - now);
    left = Math.max(0, left);
    return { seat, left, deadline: c.deadline, away: away ? c.vacation_until : undefined, acting: toAct.includes(seat), low: toAct.includes(seat) && !away && isLow(left, full) };
  });
}

/**
 * The clocks' markup: one line per seat, "you" for the reader's own.
 * @param {ReturnType<typeof readings>} read
 * @param {string[]} names @param {number | null | undefined} you
 * @param {(iso: string) => string} fmt
 */
export function clocksHtml(read, names, you, fmt) {
  if (!read.length) return "";
  return html`<ul class="clocks" aria-label="${t("Clocks")}">${read.map(
    (r) => html`<li class="clock${r.low ? " low" : ""}${r.acting ? " running" : ""}" data-seat="${r.seat}">
      ${r.seat === you ? t("You") : names[r.seat] || t("Seat {n}", { n: r.seat + 1 })}: ${slot(t("{left} left"), "{left}", html`<span class="left">${spoken(r.left)}</span>`)}${r.acting && r.deadline ? html`${t(", by")} <time datetime="${r.deadline}">${fmt(r.deadline)}</time>` : ""}${r.away ? html` · ${t("on vacation until")} <time datetime="${r.away}">${fmt(r.away)}</time>` : ""}${r.low ? html` <strong class="warn">${t("Little time left!")}</strong>` : ""}</li>`,
  )}</ul>`;
}

/** A translated text with markup in the place of its one ``{name}``: the words around it are
 *  escaped, the markup kept (so the language's word order holds the markup too).
 *  @param {string} text @param {string} name @param {import("./ui.js").Raw} markup */
export const slot = (text, name, markup) => {
  const at = text.indexOf(name);
  return at < 0 ? html`${text} ${markup}` : html`${text.slice(0, at)}${markup}${text.slice(at + name.length)}`;
};

/** When the page first saw each `clocks` object (the view or summary it came with). */
const seen = new WeakMap();

/**
 * What each seat's clock of a view (else the summary) reads at `now` (`readings`); none for a
 * table without clocks or a game not under way.
 * @param {any} view @param {any} summary
 */
export function readAll(view, summary, now = Date.now()) {
  const clocks = (view && view.clocks) || (summary && summary.clocks);
  if (!clocks || (view && view.status !== "active")) return [];
  if (!seen.has(clocks)) seen.set(clocks, now);
  const control = (summary && summary.time_control) || (view && view.time_control) || {};
  return readings(clocks, {
    toAct: (view && view.to_act) || [],
    fetched: seen.get(clocks),
    now,
    full: fullTime({ ...summary, time_control: control }),
    weekendsOff: control.weekends === "off",
    zone: (summary && summary.timezone) || (view && view.timezone) || "UTC",
  });
}

/**
 * Little time left on `you`'s running clock among the readings: its reading (once a turn is
 * enough to say it), else null.
 * @param {ReturnType<typeof readings>} read @param {number | null | undefined} you
 */
export function lowNow(read, you) {
  const mine = you == null ? undefined : read.find((r) => r.seat === you);
  return mine && mine.low ? mine : null;
}

/**
 * The clocks in words for the text view, one sentence: "Clocks: you 4 min 30 s left, by
 * 22:41, Bob 2 d 1 h left." ("" without clocks).  As read when the table is drawn: the text
 * view does not count down (its words are read, not watched).
 * @param {ReturnType<typeof readings>} read @param {string[]} names
 * @param {number | null | undefined} you @param {(iso: string) => string} fmt
 */
export function clocksWords(read, names, you, fmt) {
  if (!read.length) return "";
  const each = read.map((r) => {
    const who = r.seat === you ? t("you") : names[r.seat] || t("Seat {n}", { n: r.seat + 1 });
    const left =
      r.acting && r.deadline
        ? t("{who} {left} left, by {time}", { who, left: spoken(r.left), time: fmt(r.deadline) })
        : t("{who} {left} left", { who, left: spoken(r.left) });
    return r.away ? t("{clock} (on vacation until {time})", { clock: left, time: fmt(r.away) }) : left;
  });
  return t("Clocks: {list}.", { list: each.join(t(", ")) });
}
