// The public API (/api/v1) and the seat tokens this browser holds.
//
// Tokens arrive in the URL fragment (#token=...), which the browser never sends to a server,
// and are kept in localStorage; every request carries them as an Authorization header, never
// in a URL.  The fragment is wiped from the address bar as soon as it has been read.
//
// A person signed in to an account holds an HttpOnly session cookie the page cannot read, so
// requests go with the same origin's cookies.  A cookie travels by itself, so a write that
// leans on it (no seat token) also carries the session's CSRF token, which only this origin's
// pages can read (kept beside the seats in localStorage, shared by the tabs).

import { t } from "./i18n.js";

const BASE = "/api/v1";
const KEY = "chronicle.v1";
const SESSION = "chronicle.session"; // {player: {id, name}, csrf} while signed in
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const LANG = "chronicle.lang"; // the language menu's choice (i18n.js): the API answers in it

/** The language chosen on this browser, or null (then the browser's own Accept-Language). */
function chosenLanguage() {
  try {
    const lang = localStorage.getItem(LANG);
    return ["en", "ja", "zh-TW"].includes(lang) ? lang : null;
  } catch {
    return null;
  }
}

export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || t("The server answered HTTP {status}.", { status: String(status) }));
    this.status = status;
    this.code = err.code || "http_" + status;
    this.details = err.details || {};
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    if (signal)
      signal.addEventListener("abort", () => {
        clearTimeout(t);
        reject(new DOMException("aborted", "AbortError"));
      });
  });

/** The n-th wait (from 0) of a backoff that doubles from `first` up to `cap`, plus up to
 *  `jitter` at random: one rule for every retry of the page (requests, refreshes, streams). */
export const backoff = (n, first, cap, jitter = 0) => Math.min(cap, first * 2 ** n) + Math.random() * jitter;

/** How long to wait before trying a refused request again: the server's `Retry-After` (or
 *  the error's `details.retry_after`), never less than a backoff that doubles from 0.5 s up
 *  to 8 s, plus a little jitter so that the pages of one table do not all come back at once. */
export function retryDelay(res, data, attempt) {
  const header = Number(res.headers.get("Retry-After"));
  const details = Number((((data || {}).error || {}).details || {}).retry_after);
  const told = Number.isFinite(header) && header > 0 ? header : Number.isFinite(details) ? details : 0;
  return 1000 * Math.min(30, Math.max(told, backoff(attempt, 0.5, 8))) + Math.random() * 250;
}

/** What a call may carry: a JSON ``body``, the seat's bearer ``token``, an abort ``signal``,
 *  more ``headers`` and how many ``tries`` a POST gets.
 *  @typedef {object} ApiOptions
 *  @property {string} [method]
 *  @property {unknown} [body]
 *  @property {string | null} [token]
 *  @property {AbortSignal} [signal]
 *  @property {Record<string, string>} [headers]
 *  @property {number} [tries]
 */

/** Calls on the API hold on through a busy server: a 429 (over a rate limit: nothing was
 *  done) is tried again after its `Retry-After`, and so is a 503 for a request that may be
 *  repeated (a GET, or a POST with an Idempotency-Key).  A GET keeps trying for as long as
 *  the page is open (or until its `signal` aborts); a POST a person made gives up after a few
 *  tries, and the page says so.  `api.waiting` counts the requests waiting to try again.
 *  @param {string} path
 *  @param {ApiOptions} [options] */
export async function api(path, { method = "GET", body, token, signal, headers: extra, tries } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", ...(extra || {}) };
  const lang = chosenLanguage();
  if (lang) headers["Accept-Language"] = lang; // an account's own locale still comes first
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const byCookie = !token && WRITES.has(method); // a write the session cookie may speak for
  const repeatable = method === "GET" || "Idempotency-Key" in headers;
  const most = tries ?? (method === "GET" ? Infinity : 5);
  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    const csrf = byCookie ? (session() || {}).csrf : null;
    if (csrf) headers["X-CSRF-Token"] = csrf;
    const res = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: "same-origin",
      referrerPolicy: "no-referrer",
    });
    let data = null;
    const text = await res.text();
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (res.ok) return data;
    if (byCookie && !renewed && res.status === 403 && ((data || {}).error || {}).code === "csrf_failed") {
      // the session's CSRF token is not the one held (another tab signed in again, or the
      // storage was cleared): read the session's own once, and send the write again with it
      renewed = true;
      if (await renewSession(signal)) {
        attempt--;
        continue;
      }
    }
    const again = res.status === 429 || (res.status === 503 && repeatable);
    if (!again || attempt + 1 >= most) throw new ApiError(res.status, data);
    api.waiting++;
    try {
      await sleep(retryDelay(res, data, attempt), signal);
    } finally {
      api.waiting--;
    }
  }
}
api.waiting = 0;

// ---- the account's session (the cookie itself is HttpOnly: the page never sees it) --------
/** The signed-in account as this browser last heard it ({player: {id, name}, csrf}), or null.
 *  Only a hint for drawing the page: the cookie decides, and GET /me says whether it holds.
 *  @returns {{ player: { id: string, name?: string }, csrf?: string } | null} */
export function session() {
  try {
    const s = JSON.parse(localStorage.getItem(SESSION));
    return s && s.player ? s : null;
  } catch {
    return null;
  }
}

/** Keeps what a sign-in (or GET /me) answered: the player and the session's CSRF token.
 *  @param {{ player?: { id: string, name?: string }, id?: string, name?: string, csrf?: string }} doc */
export function keepSession(doc) {
  const player = doc.player || { id: doc.id, name: doc.name };
  const cur = session();
  const csrf = doc.csrf || (cur && cur.player.id === player.id ? cur.csrf : undefined);
  localStorage.setItem(SESSION, JSON.stringify({ player: { id: player.id, name: player.name }, csrf }));
  window.dispatchEvent(new Event("chronicle-session"));
}

/** Forgets the account (signed out, or the server no longer knows the session). */
export function dropSession() {
  localStorage.removeItem(SESSION);
  window.dispatchEvent(new Event("chronicle-session"));
}

/** Reads the session's CSRF token from GET /me (after a csrf_failed); false when the cookie
 *  no longer holds a session (then the account is forgotten here).
 *  @param {AbortSignal} [signal] */
async function renewSession(signal) {
  const res = await fetch(BASE + "/me", {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
    referrerPolicy: "no-referrer",
    signal,
  });
  if (res.status === 401) {
    dropSession();
    return false;
  }
  if (!res.ok) return false;
  const me = await res.json().catch(() => null);
  if (!me || !me.csrf) return false;
  keepSession(me);
  return true;
}

// ---- what the server offers (feature detection without probing for 404s) -----------------
let features = null;

/** The set of API paths the server documents (OpenAPI); optional v1 additions light up
 *  when their paths appear there. */
export async function serverFeatures() {
  if (!features) {
    features = api("/openapi.json").then(
      (doc) => {
        const paths = Object.keys((doc && doc.paths) || {});
        const has = (tail) => paths.some((p) => p.endsWith(tail));
        const create = (((doc.paths || {})["/api/v1/games"] || {}).post || {}).requestBody;
        const createText = JSON.stringify(create || {}) + JSON.stringify(doc.components || {});
        return {
          chat: has("/chat"),
          stream: has("/stream") && has("/stream-ticket"),
          join: has("/join"),
          leave: has("/leave"),
          start: has("/start"),
          resign: has("/resign"),
          openSeats: has("/join"),
          turnTime: createText.includes("turn_time"),
          accounts: has("/auth/email"),
          passkeys: has("/auth/passkey/options"),
          claim: has("/claim"),
          push: has("/push/key"),
        };
      },
      () => ({}),
    );
  }
  return features;
}

// ---- the browser's own store: seats, host tokens, invitation links ------------------------
function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || { games: {} };
  } catch {
    return { games: {} };
  }
}
function save(db) {
  localStorage.setItem(KEY, JSON.stringify(db));
}

/** The record of one game in this browser: {game, seats: {seat: token}, active, host, links}. */
export function held(id) {
  return load().games[id] || null;
}

export function remember(id, patch) {
  const db = load();
  const cur = db.games[id] || { seats: {}, links: {}, added: Date.now() };
  const next = { ...cur, ...patch };
  next.seats = { ...cur.seats, ...(patch.seats || {}) };
  next.links = { ...cur.links, ...(patch.links || {}) };
  db.games[id] = next;
  save(db);
  return next;
}

/** Forget one seat's token (it left the seat, or the server no longer knows it); the game's
 *  record goes with its last seat unless it holds the host's token. */
export function forgetSeat(id, token) {
  const db = load();
  const g = db.games[id];
  if (!g) return;
  for (const [seat, t] of Object.entries(g.seats || {})) if (t === token) delete g.seats[seat];
  if (g.active != null && !g.seats[g.active]) delete g.active;
  if (!Object.keys(g.seats).length && !g.host) delete db.games[id];
  save(db);
}

export function forget(id) {
  const db = load();
  delete db.games[id];
  save(db);
}

export function allHeld() {
  return Object.entries(load().games);
}

/** The token this page acts with for game ``id`` (the active seat), or null (spectator). */
export function tokenFor(id) {
  const g = held(id);
  if (!g) return null;
  const seat = g.active != null && g.seats[g.active] ? g.active : Object.keys(g.seats)[0];
  return seat != null ? g.seats[seat] : null;
}

/** Reads #token= / #host= / #invitation= / #code= (a sign-in link's) from the address, and
 *  wipes it. */
export function takeFragment() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const out = {};
  for (const k of ["token", "host", "invitation", "code"]) if (frag.get(k)) out[k] = frag.get(k);
  if (Object.keys(out).length) {
    history.replaceState(null, "", location.pathname + location.search);
  }
  return out;
}

export const pageLink = (path, frag) =>
  `${location.origin}${path}${frag ? "#" + new URLSearchParams(frag).toString() : ""}`;
