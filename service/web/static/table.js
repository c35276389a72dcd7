// The table: one game as a seat (token in this browser) or as a spectator, kept live.
// Signed in to an account, a seat of the account is played from the session cookie alone (a
// new device holds no token: the server answers for the account's seat), and a guest seat
// this browser holds may be kept in the account ("Keep this seat in my account": a claim).
import { allHeld, api, backoff, forgetSeat, held, remember, serverFeatures, takeFragment, tokenFor } from "./api.js";
import { GAME_NAMES, renderer } from "./games.js";
import { Live } from "./live.js";
import {
  $,
  $$,
  clearNotice,
  confirmStep,
  fmtTime,
  html,
  keyClicks,
  morph,
  mount,
  notice,
  seedChosenNote,
  spoken,
  tone,
  until,
} from "./ui.js";
import { seatName } from "./common.js";
import { N_, t, tn } from "./i18n.js";
import { clocksHtml, lowNow, readAll, slot } from "./clocks.js";
import { refusalNotice, rulesHref } from "./rules.js";
import { Reader } from "./reader.js";
import { accountGames, claimRefusal, claimSeat, player, signinHref, whoAmI } from "./account.js";
import { drawInvites } from "./invite.js";

// Words the templates use where pybabel's JavaScript lexer does not see them (inside a
// quoted attribute, or after one in a nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("A short tone when it becomes your turn"),
  N_("your turn in other games"),
  N_("jump to"),
  N_("the board"),
  N_("your name"),
  N_("Say something to the table"),
  N_("Waiting for {names}"),
  N_("You are watching. Players act from their seat links."),
  N_("to act"),
  N_("Hide {name}'s line"),
  N_("Hide"),
  N_("Block {name}"),
];

const SEAT_EVENTS = new Set([
  "SeatJoined", "SeatLeft", "GameStarted", "SeatResigned", "SeatTakenOver", "GameFinished", "GameAbandoned",
  "SeatClaimed",
]);
// Changes another seat (or the service) made that the page announces: a notice and the log.
const ANNOUNCED = new Set([
  "SeatJoined", "SeatLeft", "GameStarted", "SeatResigned", "SeatTakenOver", "TurnTimedOut", "GameFinished",
  "GameAbandoned",
]);
/** @type {{ r?: import("./common.js").Renderer, [field: string]: any }} */
const S = {}; // the page's state: id, token, seat, summary, view, actions, log, chat, renderer
/** This page plays a seat: with the seat's token, or with the account's session (no token,
 *  and the server answered the view for the account's seat). */
const acting = () => !!S.token || !!S.viaAccount;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function table(id) {
  S.id = id;
  const frag = takeFragment();
  S.features = await serverFeatures();
  if (frag.host) remember(id, { host: frag.host });
  if (frag.token) {
    // A seat link: find which seat the token is, keep it, play it.
    try {
      const v = await api(`/games/${id}/view`, { token: frag.token });
      if (v.you != null) remember(id, { game: v.game, seats: { [v.you]: frag.token }, active: v.you });
    } catch (e) {
      notice(e.status === 401 ? t("This seat link is not valid for this game.") : e.message);
    }
  }
  S.token = tokenFor(id);
  S.summary = await api(`/games/${id}`);
  S.r = await renderer(S.summary.game);
  document.title = t("Chronicle: {game}", { game: GAME_NAMES[S.summary.game] || S.summary.game });
  layout();
  S.reader = new Reader(S.summary.game, { r: S.r, send: (a, b) => send(a, b) }); // the text view
  const [ev] = await Promise.all([
    api(`/games/${id}/events?after=0&limit=1000`, { token: S.token }),
    refresh(),
  ]);
  S.log = ev.events;
  renderLog();
  // the history and the first view were read side by side: events the history holds past the
  // version first drawn happened while the page was open, so the text view says them
  if (S.reader && S.reader.heardTop != null) S.reader.heard(S.log.filter((e) => e.version > S.reader.heardTop && !e.note), logCtx());
  follow(S.token, logTop());
  setInterval(drawClocks, 1000);
  otherTurns();
  setInterval(otherTurns, 20000);
}

const logTop = () => {
  const events = (S.log || []).filter((e) => !e.note);
  return events.length ? events[events.length - 1].version : 0;
};

/** Follow the game live as ``token`` (null: as a spectator), from version ``after``. */
function follow(token, after) {
  if (S.live) S.live.stop();
  S.live = new Live(S.id, token, S.features, {
    onEvents: (events) => {
      if (events.some((e) => SEAT_EVENTS.has(e.type))) S.needSummary = true;
      const fresh = addLog(events);
      announce(fresh);
      refresh();
    },
    onUndo: (version) => heardUndo(version),
    onChat: (line, via) => addChat(line, via),
    onStatus: (version, doc) => {
      if (doc && Array.isArray(doc.to_act)) S.hint = doc.to_act;
      refresh();
    },
    onResync: () => {
      S.needSummary = true;
      refresh();
    },
  });
  S.live.start(after);
}

// ---- what others did: announced (a notice and the log) ------------------------------------
/** A notice for the changes in ``events`` that this page did not make itself. */
function announce(events) {
  const said = [];
  for (const e of events || []) {
    if (!ANNOUNCED.has(e.type)) continue;
    const seat = (e.data || {}).seat;
    if (S.mine.has(e.type) && (seat == null || seat === S.seat)) {
      S.mine.delete(e.type); // this page's own resign, leave or start: it says so itself
      continue;
    }
    said.push(e);
  }
  if (!said.length) return;
  const words = document.createElement("template"); // the log line's words, as plain text
  words.innerHTML = said.map((e) => String(S.r.describeEvent(e, logCtx()))).join(" ");
  notice(words.content.textContent.replace(/\s+/g, " ").trim(), "info");
  $("#notice").dataset.kinds = said.map((e) => e.type).join(" "); // what it announced (tests)
}
S.mine = new Set(); // the table events this page has asked for and not yet seen

/** The log was cut back to ``version`` (an undo): the lines after it go, and, unless this
 *  page made the undo, a line and a notice say who took back what (the audit's undo trail). */
async function heardUndo(version) {
  const removed = S.log.filter((e) => e.version > version && !e.note);
  S.log = S.log.filter((e) => e.version <= version);
  renderLog();
  refresh();
  if (S.undoing || !removed.length) return; // our own undo (undo() says it), or known already
  let by = null;
  try {
    const audit = await api(`/games/${S.id}/audit`, { token: S.token });
    const trail = (audit.undone || []).filter((u) => u.to_version === version);
    by = trail.length ? trail[trail.length - 1].by : null;
  } catch {
    /* who undid is unknown: the line says what happened without a name */
  }
  const host = (held(S.id) || {}).host;
  if (by === `seat:${S.seat}` || (by === "host" && host)) return; // this browser did it
  const n = names();
  const moves = removed.filter((e) => e.seat != null).length || removed.length;
  let text;
  if (by === "host")
    text = tn("The host took back a move; the game is back at version {version}.", "The host took back {count} moves; the game is back at version {version}.", moves, { version });
  else if (by && by.startsWith("seat:")) {
    const seat = Number(by.slice(5));
    const who = n[seat] || t("Seat {n}", { n: seat + 1 });
    text = tn("{name} took back their move; the game is back at version {version}.", "{name} took back their last {count} moves; the game is back at version {version}.", moves, { name: who, version });
  } else text = tn("A move taken back; the game is back at version {version}.", "{count} moves taken back; the game is back at version {version}.", moves, { version });
  const at = S.log.findIndex((e) => e.version > version);
  S.log.splice(at < 0 ? S.log.length : at, 0, { note: text, version, undo: true });
  renderLog();
  notice(text, "info");
}

// ---- your turn, wherever you look: the title, the icon, a sound, your other games ---------
const SOUND = "chronicle.sound";
const soundOn = () => localStorage.getItem(SOUND) === "on";
let wasMine = false;

function yourTurn() {
  return !!(acting() && S.view && S.view.status === "active" && S.actions && S.actions.length);
}

function drawTurnMarks() {
  const mine = yourTurn();
  const name = GAME_NAMES[S.summary.game] || S.summary.game;
  const title = mine ? `● ${t("Your turn")} · ${name}` : t("Chronicle: {game}", { game: name });
  if (document.title !== title) document.title = title;
  const icon = $("#favicon");
  const href = mine ? "/assets/icon-turn.svg" : "/assets/icon.svg";
  if (icon && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  document.body.dataset.yourTurn = mine ? "yes" : "no";
  if (mine && !wasMine && soundOn()) tone();
  wasMine = mine;
  const bar = $("#phone-moves");
  if (bar) {
    bar.textContent = mine ? t("Your move ({count})", { count: S.actions.length }) : t("Moves");
    bar.classList.toggle("hot", mine);
  }
}

function drawSound() {
  const b = $("#sound");
  if (!b) return;
  b.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  b.textContent = soundOn() ? t("Sound: on") : t("Sound: off");
}

const finishedElsewhere = new Set(); // other games seen over: never asked again
/** The strip of this browser's other games where it is a held seat's turn, each a link. */
async function otherTurns() {
  const others = allHeld()
    .filter(([gid, g]) => gid !== S.id && !finishedElsewhere.has(gid) && Object.keys(g.seats || {}).length)
    .sort((a, b) => (b[1].added || 0) - (a[1].added || 0))
    .slice(0, 8);
  const turns = [];
  for (const [gid, g] of others) {
    try {
      const s = await api(`/games/${gid}`, { tries: 2 });
      if (s.status === "finished" || s.status === "abandoned") finishedElsewhere.add(gid);
      const seats = Object.keys(g.seats).map(Number);
      if (s.status === "active" && s.to_act.some((x) => seats.includes(x)))
        turns.push({ gid, game: GAME_NAMES[s.game] || s.game, who: s.seats.filter((x) => seats.includes(x.seat)).map((x) => x.name) });
    } catch (e) {
      if (e.status === 404) finishedElsewhere.add(gid);
    }
  }
  if (player()) {
    // the account's games where it is its turn, wherever they were played from
    for (const g of await accountGames("active")) {
      if (g.your_turn && g.id !== S.id && !turns.some((t) => t.gid === g.id))
        turns.push({ gid: g.id, game: GAME_NAMES[g.game] || g.game, who: [] });
    }
  }
  const el = $("#my-turns");
  if (!el) return;
  el.hidden = !turns.length;
  mount(
    el,
    turns.length
      ? html`<span>${tn("Your turn in another game:", "Your turn in {count} other games:", turns.length)}</span>
          ${turns.map((o) => html` <a class="button small" href="/play/${o.gid}">${o.game}${o.who.length ? ` (${o.who.join(", ")})` : ""}</a>`)}`
      : "",
  );
}

function layout() {
  const g = held(S.id);
  const seats = g ? Object.keys(g.seats) : [];
  mount(
    $("#app"),
    html`<div class="table-head">
        <h1>${GAME_NAMES[S.summary.game] || S.summary.game}</h1>
        <div id="turn" class="turn" aria-live="polite"></div>
        <div id="clocks" class="clock-box"></div>
        <div class="head-links">
          ${seats.length > 1
            ? html`<label>${t("Playing as")} <select id="as-seat">${seats.map(
                (s) => html`<option value="${s}" ${String(g.active) === s ? "selected" : ""}>${t("seat {n}", { n: Number(s) + 1 })}</option>`,
              )}</select></label>`
            : ""}
          <button type="button" id="sound" class="small" aria-pressed="false" title="${t("A short tone when it becomes your turn")}">${t("Sound: off")}</button>
          <a href="${rulesHref(S.summary.game)}" class="button small" id="rules-link" target="_blank" rel="noopener">${t("Rules")}</a>
          <a href="/replay/${S.id}" class="button small">${t("Replay")}</a>
          <a href="/" class="button small">${t("Lobby")}</a>
        </div>
        ${seedChosenNote(S.summary)}
        <div id="claim" class="claim" hidden></div>
        <nav id="my-turns" class="my-turns" aria-label="${t("your turn in other games")}" hidden></nav>
      </div>
      <nav id="phone-bar" class="phone-bar" aria-label="${t("jump to")}">
        <button type="button" data-to="board-wrap">${t("Board")}</button>
        <button type="button" data-to="act-panel" id="phone-moves">${t("Moves")}</button>
        <button type="button" data-to="log-panel">${t("Log")}</button>
      </nav>
      <div class="table-grid">
        <section class="board-wrap" id="board-wrap" aria-label="${t("the board")}">
          <div id="board" class="board" tabindex="0"></div>
          <div id="details" class="details"></div>
        </section>
        <aside class="side">
          <section id="result" class="card" hidden></section>
          <section id="act-panel" class="card" aria-labelledby="act-h">
            <h2 id="act-h">${t("Your move")}</h2>
            <div id="act-filter"></div>
            <ul id="actions" class="actions"></ul>
            <div class="act-tools">
              <button type="button" id="undo" hidden>${t("Undo my last move")}</button>
              <button type="button" id="resign" hidden>${t("Resign (a bot takes over)")}</button>
              <button type="button" id="leave" hidden>${t("Leave the seat")}</button>
              <button type="button" id="start" hidden>${t("Start now (bots fill open seats)")}</button>
            </div>
            <form id="host-undo" class="act-tools" hidden>
              <label for="host-to">${t("Host: undo back to version")}</label>
              <input id="host-to" type="number" min="1" inputmode="numeric">
              <button type="submit">${t("Undo")}</button>
            </form>
          </section>
          <section class="card" aria-labelledby="players-h">
            <h2 id="players-h">${t("Players")}</h2>
            <ul id="players" class="players"></ul>
          </section>
          <section id="invite-panel" class="card invite-panel" aria-labelledby="invite-h" hidden></section>
          <section id="chat-panel" class="card" aria-labelledby="chat-h" hidden>
            <h2 id="chat-h">${t("Chat")}</h2>
            <ol id="chat" class="chat" aria-live="polite"></ol>
            <form id="chat-form" autocomplete="off">
              <input id="chat-name" class="chat-name" maxlength="40" placeholder="${t("your name")}" hidden>
              <label class="vh" for="chat-text">${t("message")}</label>
              <input id="chat-text" maxlength="500" placeholder="${t("Say something to the table")}">
              <button type="submit">${t("Send")}</button>
            </form>
          </section>
          <section class="card" id="log-panel" aria-labelledby="log-h">
            <h2 id="log-h">${t("What happened")}</h2>
            <ol id="log" class="log" aria-live="polite" tabindex="0" aria-labelledby="log-h"></ol>
          </section>
        </aside>
      </div>`,
  );
  const as = $("#as-seat");
  if (as)
    as.onchange = () => {
      remember(S.id, { active: Number(as.value) });
      location.reload();
    };
  keyClicks($("#board"));
  keyClicks($("#details"));
  for (const where of ["#board", "#details"]) {
    $(where).addEventListener("click", (e) => {
      const t = e.target.closest("[data-key]");
      if (t) pick(t.dataset.key, t.getAttribute("aria-label") || t.dataset.key);
    });
  }
  $("#undo").onclick = () => undo();
  $("#resign").onclick = async () => {
    const bot = S.features.resign;
    if (await confirmStep(t("Resign this game?"), {
      yes: t("Resign"), no: t("Keep playing"),
      detail: bot ? t("A bot plays your seat from now on; this cannot be taken back.") : t("You stop playing; this cannot be taken back."),
    }))
      seatCall("resign", t("You resigned; a bot plays your seat now. You are watching."));
  };
  $("#leave").onclick = async () => {
    if (await confirmStep(t("Leave your seat?"), {
      yes: t("Leave the seat"), no: t("Stay"),
      detail: t("The seat opens again for its invitation; you keep watching the table."),
    }))
      seatCall("leave", t("You left the seat; you are watching the table now."));
  };
  $("#start").onclick = async () => {
    const open = S.summary.seats.filter((s) => s.open).length;
    if (await confirmStep(t("Start the game now?"), {
      yes: t("Start with bots"), no: t("Wait for players"),
      detail: tn("Bots take the open seat for the whole game.", "Bots take the {count} open seats for the whole game.", open),
    }))
      hostStart();
  };
  $("#sound").onclick = () => {
    localStorage.setItem(SOUND, soundOn() ? "off" : "on");
    drawSound();
    if (soundOn()) tone(); // what it sounds like (and the browser lets the page play it now)
  };
  drawSound();
  $$("#phone-bar [data-to]").forEach((b) => {
    b.onclick = () => {
      const to = document.getElementById(b.dataset.to);
      to.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
      const first = b.dataset.to === "act-panel" && $("#actions .act:not([disabled])");
      (first || to).focus({ preventScroll: true });
    };
  });
  for (const id of ["board-wrap", "act-panel", "log-panel"]) document.getElementById(id).tabIndex = -1;
  $("#host-undo").onsubmit = (e) => {
    e.preventDefault();
    undo(Number($("#host-to").value), held(S.id).host);
  };
  if (S.features.chat) {
    $("#chat-panel").hidden = false;
    $("#chat-name").hidden = !!S.token;
    $("#chat-form").onsubmit = sendChat;
    $("#chat").onclick = chatControl;
  }
}

// ---- fetching and drawing -----------------------------------------------------------------
// One refresh runs at a time and at most one more is pending, whatever the burst (a bot's turn
// is a dozen appends within 50 ms, a frame each), and one always starts after the last frame.
// Refreshes draw on a small budget: BURST at once, then one per GAP ms, so a change that comes
// alone is fetched at once and a stream of them is shown within GAP + a round trip.  A refresh
// costs a seat one or two requests (the view; the legal moves only when the seat may act, or
// the stream said it will): at most 2 x (BURST + 1000 / GAP) in a second, under the service's
// 20 a second per token, with room for the seat's own moves.  An error
// never stops it: it tries again with a backoff (the API's 429/503 wait their Retry-After in
// api()), says so if it lasts, and reads the table again once it is back.
const GAP = 170;
const BURST = 3;
let refreshing = null;
let again = false;
let budget = BURST;
let budgetAt = 0; // when the budget was last topped up (performance.now())
let failures = 0;

/** Wait for a refresh's turn in the budget (BURST, then one per GAP ms). */
async function turn() {
  const now = performance.now();
  budget = Math.min(BURST, budget + (now - budgetAt) / GAP);
  budgetAt = now;
  if (budget < 1) {
    await sleep((1 - budget) * GAP);
    budget = 1;
    budgetAt = performance.now();
  }
  budget -= 1;
}

/** Fetch summary, view and legal actions, then draw; calls during a fetch coalesce. */
function refresh() {
  again = true;
  return (refreshing ||= refreshLoop());
}

async function refreshLoop() {
  try {
    while (again) {
      await turn();
      while (S.hold) await S.hold; // a seat being given up: no read with its token meanwhile
      again = false;
      try {
        await (S.reading = refreshOnce());
        if (failures) clearNotice();
        failures = 0;
        document.body.dataset.stale = "no";
      } catch (e) {
        if (e.status === 401 && S.token) {
          seatLost(t("This seat is no longer yours (its token is not valid any more); you are watching the table."));
          again = true;
          continue;
        }
        if (e.status === 404) {
          notice(e.message);
          return;
        }
        failures++;
        document.body.dataset.stale = "yes";
        if (failures >= 2) notice(t("Reconnecting to the table… ({reason})", { reason: e.message }));
        again = true;
        await sleep(backoff(failures, 250, 10000));
      }
    }
  } finally {
    refreshing = null;
  }
}

/** A seat played by a bot (resigned, taken over): it has nothing to do or to undo. */
function botPlays() {
  const seat = S.view ? S.view.you : null;
  const doc = seat != null && S.summary && S.summary.seats[seat];
  return !!(doc && doc.bot);
}

async function refreshOnce() {
  // The summary (seat names, options) changes only when seats or the status do.
  const wantSummary = S.needSummary || !S.view || S.view.status !== S.summary.status;
  S.needSummary = false;
  const seat = S.view ? S.view.you : null;
  const toAct = [...(S.view ? S.view.to_act : []), ...(S.hint || [])];
  const guess = acting() && !botPlays() && (seat == null || toAct.includes(seat));
  S.hint = null;
  const [summary, view, listed] = await Promise.all([
    wantSummary ? api(`/games/${S.id}`) : Promise.resolve(S.summary),
    api(`/games/${S.id}/view`, { token: S.token }),
    guess ? api(`/games/${S.id}/actions`, { token: S.token }) : Promise.resolve(null),
  ]);
  let actions = listed;
  // no token and a seat in the view: the session's account holds that seat
  const viaAccount = !S.token && view.you != null;
  const mayAct = view.status === "active" && view.you != null && view.to_act.includes(view.you);
  if (!mayAct) actions = null;
  else if (!actions || actions.version !== view.version) {
    actions = await api(`/games/${S.id}/actions`, { token: S.token });
    if (actions.version !== view.version) {
      again = true; // the game moved between the two: the next round has both at once
      return;
    }
  }
  S.summary = summary;
  if (summary.status !== view.status) S.needSummary = true;
  S.view = view;
  S.seat = view.you;
  S.viaAccount = viaAccount;
  S.actions = actions && !botPlays() ? actions.actions : [];
  draw();
  // Never stale: a frame already told of a later version, or the log and the view disagree.
  if (S.live && S.live.after > view.version) again = true;
  syncLog();
}

let logCheck = null;
/** The log must end where the view is: lines after it were undone while the stream was away;
 *  lines missing (a frame lost) are fetched if they are still missing a moment later. */
function syncLog() {
  const top = logTop();
  const v = S.view.version;
  if (top > v && !(S.live && S.live.after > v)) {
    S.log = S.log.filter((e) => e.version <= v);
    renderLog();
  } else if (top < v && !logCheck) {
    logCheck = setTimeout(async () => {
      logCheck = null;
      const from = logTop();
      if (from >= S.view.version) return;
      try {
        const ev = await api(`/games/${S.id}/events?after=${from}&limit=1000`, { token: S.token });
        addLog(ev.events);
      } catch {
        /* the next refresh looks again */
      }
    }, 1500);
  }
}

/** This page stops acting for its seat (it left, or the token is void): it forgets the token
 *  and goes on as a spectator, live. */
function seatLost(text) {
  if (S.token) forgetSeat(S.id, S.token);
  S.token = tokenFor(S.id); // another seat this browser holds at this table, or none
  S.seat = null;
  S.viaAccount = false;
  S.actions = [];
  S.needSummary = true;
  filterKey = null;
  drawnActions = "";
  if ($("#chat-name")) $("#chat-name").hidden = !!S.token;
  const as = $("#as-seat");
  if (as) as.closest("label").hidden = true;
  follow(S.token, logTop());
  notice(text, "info");
}

function names() {
  return S.summary.seats.map(seatName);
}

function ctx() {
  return {
    you: S.view.you,
    names: names(),
    view: S.view,
    actions: S.actions,
    status: S.view.status,
    last: (S.log || []).find((e) => e.version === S.view.version),
  };
}

function draw() {
  const v = S.view;
  const c = ctx();
  const t0 = performance.now();
  morph($("#board"), S.r.board(v.state, c));
  morph($("#details"), S.r.details(v.state, c));
  markLegal();
  void document.body.offsetHeight; // layout included in the render time
  (/** @type {any} */ (window).__drawnAt ||= {})[v.version] ??= Date.now(); // when each version was first shown
  document.body.dataset.version = v.version;
  document.body.dataset.status = v.status;
  /** @type {any} */ (window).__chronicle = { version: v.version, renderMs: performance.now() - t0 };
  drawTurn();
  drawActions();
  drawPlayers();
  drawInvites($("#invite-panel"), S.id, S.summary); // the host: invite a player to an open seat
  drawResult();
  drawTurnMarks();
  const chatName = $("#chat-name");
  if (chatName && S.features.chat) chatName.hidden = acting();
  const claimKey = JSON.stringify([S.token, S.seat, botPlays(), (player() || {}).id]);
  if (claimKey !== claimDrawn) {
    claimDrawn = claimKey;
    drawClaim();
  }
  if (S.reader) S.reader.draw(c, S.summary);
}

// ---- a guest seat kept in the account -------------------------------------------------------
let claimDrawn = ""; // the token, seat and account the claim control was drawn for

/** Whether the signed-in account holds ``seat`` of this game: the summary's seat says so
 *  when it names its account, otherwise the account's list of games. */
async function accountHolds(seat, me) {
  const doc = S.summary.seats[seat] || {};
  if ("player" in doc) return doc.player === me.id;
  return (await accountGames()).some((g) => g.id === S.id && g.seat === seat);
}

/** "Keep this seat in my account": offered to a signed-in person playing a guest seat from
 *  this browser's token, until the account holds the seat (the token keeps working). */
async function drawClaim() {
  const el = $("#claim");
  const seat = S.seat;
  const want = !!(S.features.claim && S.token && seat != null && !botPlays() && player());
  const me = want ? await whoAmI() : null;
  const offer = !!me && !(await accountHolds(seat, me));
  if (seat !== S.seat || !el) return; // the page moved on meanwhile: its own call draws
  el.hidden = !offer;
  if (!offer) {
    mount(el, "");
    return;
  }
  mount(
    el,
    html`<p>${t("This seat is kept only in this browser.")}</p>
      <button type="button" id="claim-seat" class="small">${t("Keep this seat in my account")}</button>`,
  );
  const b = $("#claim-seat");
  b.onclick = async () => {
    b.disabled = true;
    try {
      await claimSeat(S.id, S.token);
      el.hidden = true;
      mount(el, "");
      S.needSummary = true;
      notice(t("This seat is in your account now: sign in on any device to play it."), "info");
    } catch (e) {
      b.disabled = false;
      notice(claimRefusal(e));
    }
  };
}

function markLegal() {
  const keys = new Set(S.actions.flatMap((a) => S.r.keysOf(a, S.view.state)));
  $$("#board [data-key]").forEach((el) => {
    if (keys.has(el.dataset.key)) {
      el.classList.add("legal");
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
    }
  });
}

function drawTurn() {
  const v = S.view;
  const n = names();
  const el = $("#turn");
  const deadlines = v.deadlines || S.summary.deadlines || {};
  let text;
  if (v.status === "finished") text = html`<b>${t("Game over.")}</b>`;
  else if (v.status === "scoring") text = html`<b>${t("Scoring…")}</b>`;
  else if (v.status === "waiting") text = html`${t("Waiting for players to join.")}`;
  else if (v.status === "abandoned") text = html`${t("The host abandoned this game.")}`;
  else {
    const mine = S.seat != null && v.to_act.includes(S.seat) && !botPlays();
    const others = v.to_act.filter((s) => s !== S.seat || botPlays()).map((s) => n[s]);
    text = html`${S.seat != null && botPlays() ? html`<b>${t("A bot plays your seat now")}</b>${t("; you are watching.")} ` : ""}${mine ? html`<b class="your-turn">${t("Your turn")}</b> <a href="#act-panel" class="small">${t("to your moves")}</a>` : ""}
      ${others.length ? (mine ? ` · ${t("also {names}", { names: others.join(", ") })}` : t("Waiting for {names}", { names: others.join(", ") })) : ""}`;
  }
  mount(
    el,
    html`${text} <span class="muted">· <span class="phase">${S.r.phase(v.state, ctx())}</span> · ${t("version {n}", { n: v.version })}${acting() ? "" : ` · ${t("watching")}`}</span>`,
  );
  drawClocks();
}

/** The clocks (or, on a table from before them, the deadlines), counted down every second
 *  outside the turn's live region: a screen reader would say every second of them.  Little
 *  time left on this seat's clock is said once a turn, in the page's alert (``lowNow``). */
function drawClocks() {
  const box = $("#clocks");
  if (!box || !S.view) return;
  const v = S.view;
  const n = names();
  const deadlines = v.status === "active" && !(v.clocks || S.summary.clocks) ? v.deadlines || S.summary.deadlines || {} : {};
  const read = readAll(v, S.summary); // the clocks are read once a second, for both uses
  morph(
    box,
    html`${clocksHtml(read, n, S.seat, fmtTime)}${v.to_act
      .filter((s) => deadlines[s])
      .map(
        (s) => html` <span class="deadline" data-deadline="${deadlines[s]}" title="${deadlines[s]}">${s === S.seat ? t("you") : n[s]}: ${until(deadlines[s])}</span>`,
      )}`,
  );
  const low = acting() && !botPlays() ? lowNow(read, S.seat) : null;
  const turn = low ? `${S.id}:${S.seat}:${low.deadline}` : null;
  if (low && turn !== S.warnedLow) {
    S.warnedLow = turn;
    notice(t("Little time left: {left}.", { left: spoken(low.left) }), "warn");
  }
}

let filterKey = null;
let drawnActions = ""; // what #actions shows: version, filter and list

function drawActions() {
  const panel = $("#act-panel");
  const acts = S.actions;
  const policy = (S.summary.options || {}).undo;
  const active = S.view.status === "active";
  const seated = acting() && S.seat != null && !botPlays(); // a seat this page plays
  $("#undo").hidden = !seated || policy === "none" || !active;
  $("#resign").hidden = !(S.features.resign && seated && active);
  $("#leave").hidden = !(S.features.leave && acting() && S.view.status === "waiting");
  const host = (held(S.id) || {}).host;
  $("#start").hidden = !(S.features.start && host && S.view.status === "waiting");
  $("#host-undo").hidden = !(host && policy === "host" && active);
  $("#host-to").max = S.view.version - 1;
  if (!acting()) {
    mount(
      $("#act-filter"),
      html`<p class="muted">${S.features.accounts && !player() ? html`${t("You are watching. Players act from their seat links, or signed in to their account:")} <a href="${signinHref()}">${t("sign in")}</a>` : t("You are watching. Players act from their seat links.")}</p>`,
    );
    mount($("#actions"), "");
    drawnActions = "";
    panel.classList.remove("mine");
    return;
  }
  panel.classList.toggle("mine", acts.length > 0);
  const keys = (a) => S.r.keysOf(a, S.view.state);
  const shown = filterKey ? acts.filter((a) => keys(a).includes(filterKey)) : acts;
  if (filterKey && !shown.length) filterKey = null;
  const list = filterKey ? shown : acts;
  const c = ctx();
  // Board first: a picked territory whose moves are made of units (K&C's attacks) shows them
  // to pick one by one, then the move they make to confirm.
  const partsOf = (a) => (S.r.partsOf ? S.r.partsOf(a) : []);
  const composable = filterKey ? list.filter((a) => partsOf(a).length) : [];
  if (!composable.length) picked = [];
  picked = picked.filter((k) => composable.some((a) => partsOf(a).includes(k)));
  const fits = (a, want) => want.every((k) => partsOf(a).includes(k));
  const units = [...new Set(composable.flatMap(partsOf))];
  const exact = composable.find((a) => fits(a, picked) && partsOf(a).length === picked.length);
  const composer = composable.length
    ? html`<div class="compose" role="group" aria-labelledby="compose-h">
        <p id="compose-h"><b>${filterLabel}</b>: ${t("pick the units for the move (on the board or here), then confirm.")}</p>
        <ul class="units">${units.map((k) => {
          const on = picked.includes(k);
          const can = on || composable.some((a) => fits(a, [...picked, k]));
          return html`<li><button type="button" class="unit" data-part="${k}" aria-pressed="${on ? "true" : "false"}" ${can ? "" : "disabled"} title="${S.r.partName(k, S.view.state)}">${S.r.partLabel(k)} <span class="small">${S.r.partName(k, S.view.state)}</span></button></li>`;
        })}</ul>
        <p class="muted small">${picked.length ? S.r.partsSummary(picked, filterKey.replace(/^[a-z]+:/, ""), S.view.state) : t("No unit picked yet.")}</p>
        <button type="button" id="compose-send" class="primary" ${exact ? "" : "disabled"}>${exact ? t("Confirm: {move}", { move: S.r.describeAction(exact, c) }) : t("Confirm (pick a set of units that makes a legal move)")}</button>
      </div>`
    : "";
  const howMany = S.r.clickHint
    ? slot(tn("{count} legal move: pick one here, or {hint}.", "{count} legal moves: pick one here, or {hint}.", acts.length), "{hint}", html`<span class="click-hint">${S.r.clickHint}</span>`)
    : tn("{count} legal move: pick one here.", "{count} legal moves: pick one here.", acts.length);
  mount(
    $("#act-filter"),
    !acts.length
      ? html`<p class="muted">${active ? t("Nothing to do now: it is another seat's move.") : t("No moves.")}</p>`
      : filterKey
        ? html`<p>${tn("{count} move for", "{count} moves for", list.length)} <b>${filterLabel}</b> <button type="button" id="show-all" class="small">${t("show all {count}", { count: acts.length })}</button></p>${composer}`
        : html`<p class="muted">${howMany}</p>`,
  );
  const sa = $("#show-all");
  if (sa) sa.onclick = () => { filterKey = null; picked = []; drawActions(); };
  $$("#act-filter .unit").forEach((b) => (b.onclick = () => togglePart(b.dataset.part)));
  const cs = $("#compose-send");
  if (cs && exact) cs.onclick = () => send(exact, cs);
  // The same list at the same version is left as it is: a second refresh of one change (the
  // stream's frame after the move's own answer) must not replace the buttons under a click
  // or take the keyboard focus away.
  const drawn = JSON.stringify([S.view.version, filterKey, list]);
  if (drawn === drawnActions) return;
  drawnActions = drawn;
  const button = (a) => html`<li><button type="button" class="act" data-i="${acts.indexOf(a)}">${S.r.describeAction(a, c)}</button></li>`;
  // A long list is grouped by kind (the renderer's groupOf: a path such as ["Attacks", "on
  // York"]), each group collapsed with its count; the first group is open, and a group the
  // player opened or closed stays so.
  const grouped = S.r.groupOf && list.length > 12;
  if (!grouped) {
    mount($("#actions"), list.map(button));
  } else {
    const tree = new Map();
    for (const a of list) {
      const [top, sub] = S.r.groupOf(a);
      if (!tree.has(top)) tree.set(top, new Map());
      const subs = tree.get(top);
      if (!subs.has(sub || "")) subs.set(sub || "", []);
      subs.get(sub || "").push(a);
    }
    let first = true;
    const isOpen = (id, dflt) => (openGroups.has(id) ? openGroups.get(id) : dflt);
    const groups = [...tree].map(([top, subs]) => {
      const n = [...subs.values()].reduce((k, x) => k + x.length, 0);
      const dflt = first;
      first = false;
      const inner = [...subs].map(([sub, as], j) =>
        sub
          ? html`<li><details class="act-group sub" data-group="${top}/${sub}" ${isOpen(`${top}/${sub}`, dflt && j === 0) ? "open" : ""}>
              <summary>${sub} <span class="count">(${as.length})</span></summary><ul class="actions-in">${as.map(button)}</ul></details></li>`
          : as.map(button),
      );
      return html`<li><details class="act-group" data-group="${top}" ${isOpen(top, dflt) ? "open" : ""}>
          <summary>${top} <span class="count">(${n})</span></summary><ul class="actions-in">${inner}</ul></details></li>`;
    });
    mount($("#actions"), groups);
    $$("#actions details").forEach((d) => d.addEventListener("toggle", () => openGroups.set(d.dataset.group, d.open)));
  }
  $$("#actions .act").forEach((b) => (b.onclick = () => send(acts[Number(b.dataset.i)], b)));
}

const openGroups = new Map(); // a group's id -> open, as the player left it
let picked = []; // the units picked for a move made of parts (board first)

function togglePart(key) {
  picked = picked.includes(key) ? picked.filter((k) => k !== key) : [...picked, key];
  drawActions();
  const b = $(`#act-filter .unit[data-part="${CSS.escape(key)}"]`);
  if (b && !b.disabled) b.focus();
}

let filterLabel = "";
function pick(key, label) {
  // A unit clicked on the board while a move made of units is being put together: picked.
  if (filterKey && S.r.partsOf && S.actions.some((a) => S.r.keysOf(a, S.view.state).includes(filterKey) && S.r.partsOf(a).includes(key))) {
    togglePart(key);
    return;
  }
  const matching = S.actions.filter((a) => S.r.keysOf(a, S.view.state).includes(key));
  if (!matching.length) {
    notice(S.actions.length ? t("No legal move uses {part}.", { part: label }) : t("It is not your move."), "info");
    return;
  }
  if (matching.length === 1) {
    send(matching[0]);
    return;
  }
  filterKey = key;
  filterLabel = label.split(",")[0];
  picked = [];
  drawActions();
  const first = $("#act-filter .unit:not([disabled])") || $("#actions .act");
  if (first) first.focus();
}

let sending = false;
async function send(action, button) {
  if (sending) return;
  sending = true;
  $$("#actions .act").forEach((b) => (b.disabled = true));
  try {
    const res = await apiAct(action, newKey());
    clearNotice();
    filterKey = null;
    addLog(res.events || []);
    S.live && S.live.seen(res.version);
  } catch (e) {
    if (e.code === "version_conflict") notice(t("Someone moved first; the board is updated."));
    else refusalNotice(S.summary.game, e); // links to the rule it broke (details.rule)
  } finally {
    sending = false;
    drawnActions = ""; // its buttons were disabled: drawn again whatever the answer
    await refresh();
  }
}

function apiAct(action, key) {
  return api(`/games/${S.id}/actions`, {
    method: "POST",
    body: { action, expected_version: S.view.version },
    token: S.token,
    headers: { "Idempotency-Key": key },
  });
}

async function undo(toVersion, hostToken) {
  const body = Number.isInteger(toVersion) ? { to_version: toVersion } : {};
  S.undoing = true; // the stream's undo frame of it is not announced as another's
  try {
    const r = await api(`/games/${S.id}/undo`, { method: "POST", body, token: hostToken || S.token });
    const n = (r.undone || []).length;
    S.log = S.log.filter((e) => e.version <= r.version);
    renderLog();
    S.live && (S.live.after = r.version);
    notice(tn("Undone: {count} event; back at version {version}.", "Undone: {count} events; back at version {version}.", n, { version: r.version }), "info");
  } catch (e) {
    const reason = e.details && e.details.reason ? ` (${e.details.reason.replaceAll("_", " ")})` : "";
    notice(t("Undo refused: {reason}", { reason: `${e.message}${reason}` }));
  }
  setTimeout(() => (S.undoing = false), 1500); // the frame may come after the answer
  refresh();
}

const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
const TABLE_EVENT = { resign: "SeatResigned", leave: "SeatLeft", start: "GameStarted" };

async function seatCall(what, done) {
  S.mine.add(TABLE_EVENT[what]);
  // resign takes an Idempotency-Key (safe to try again); leave does not (it is not repeated)
  const headers = what === "resign" ? { "Idempotency-Key": newKey() } : undefined;
  /** @type {(value?: unknown) => void} */
  let release = () => {};
  if (what === "leave") {
    // The token stops working with the answer: the page reads nothing with it from now on
    // (a read under way ends first), and follows the table as a spectator after.
    S.hold = new Promise((r) => (release = r));
    if (S.live) S.live.stop();
    await Promise.resolve(S.reading).catch(() => {});
  }
  try {
    await api(`/games/${S.id}/${what}`, { method: "POST", body: {}, token: S.token, headers });
    if (what === "leave") seatLost(done);
    else notice(done, "info");
    S.needSummary = true;
  } catch (e) {
    S.mine.delete(TABLE_EVENT[what]);
    notice(e.message);
    if (what === "leave") follow(S.token, logTop());
  } finally {
    S.hold = null;
    release();
  }
  refresh();
}

async function hostStart() {
  S.mine.add("GameStarted");
  try {
    await api(`/games/${S.id}/start`, {
      method: "POST",
      body: { fill: "greedy" },
      token: held(S.id).host,
      headers: { "Idempotency-Key": newKey() },
    });
    S.needSummary = true;
  } catch (e) {
    S.mine.delete("GameStarted");
    notice(e.message);
  }
  refresh();
}

function drawPlayers() {
  const n = names();
  const res = S.view.result;
  // One number per player, labelled: during the game the renderer's running score (its unit:
  // Lancaster's power), once it is over the result's total, the same as the result table's.
  const live = S.r.scores ? S.r.scores(S.view.state, ctx()) : {};
  const unit = res ? S.r.resultUnit || t("points") : S.r.scoreUnit || t("points");
  const score = (seat) => (res ? res.scores[seat] : live[seat]);
  mount(
    $("#players"),
    S.summary.seats.map(
      (s) => html`<li class="${S.view.to_act.includes(s.seat) ? "acting" : ""}">
        ${S.r.seatBadge ? S.r.seatBadge(s.seat, S.view.state) : ""}
        <span>${s.player ? html`<a href="/players/${encodeURIComponent(s.player)}">${n[s.seat]}</a>` : n[s.seat]}${s.seat === S.seat ? ` ${t("(you)")}` : ""}</span>
        ${score(s.seat) != null ? html`<span class="score" data-seat="${s.seat}"><b>${score(s.seat)}</b> ${unit}</span>` : ""}
        ${S.view.to_act.includes(s.seat) ? html`<span class="to-act" aria-label="${t("to act")}">●</span>` : ""}
      </li>`,
    ),
  );
}

function drawResult() {
  const el = $("#result");
  const res = S.view.result;
  if (!res) {
    el.hidden = true;
    return;
  }
  const n = names();
  el.hidden = false;
  // One table, the players by rank: the game's own scoring categories (the renderer's
  // result(): columns and a row per seat, from result.details), then the total.
  const tbl = S.r.result ? S.r.result(res, ctx()) : { columns: [t("Total {unit}", { unit: S.r.resultUnit || t("points") })], row: (s) => [res.scores[s]] };
  let rank = 0;
  let prev = null;
  mount(
    el,
    html`<h2>${t("Result")}</h2>
      <p class="winner">${res.winners.length > 1 ? t("Shared win: {names}", { names: res.winners.map((s) => n[s]).join(t(" and ")) }) : t("Winner: {names}", { names: res.winners.map((s) => n[s]).join(t(" and ")) })}</p>
      <div class="result-wrap" tabindex="0"><table class="mini result-table">
        <caption class="vh">${t("The final scores, by rank")}</caption>
        <thead><tr><th scope="col">${t("Rank")}</th><th scope="col">${t("Player")}</th>${tbl.columns.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
        <tbody>${res.ranking.map((s, i) => {
          if (res.scores[s] !== prev) rank = i + 1;
          prev = res.scores[s];
          return html`<tr data-seat="${s}" class="${res.winners.includes(s) ? "won" : ""}"><td class="num">${rank}</td><th scope="row">${n[s]}${s === S.seat ? ` ${t("(you)")}` : ""}</th>${tbl.row(s).map(
            (x, j) => html`<td class="num${j === tbl.columns.length - 1 ? " total" : ""}" data-label="${tbl.columns[j]}">${x}</td>`,
          )}</tr>`;
        })}</tbody>
      </table></div>
      ${tbl.note ? html`<p class="small muted">${tbl.note}</p>` : ""}
      <p id="rating-change" class="small" aria-live="polite"></p>`,
  );
  if (S.summary.rated) drawRatingChange(0);
}

// A rated game's end: each rater's rating (OpenSkill's ordinal) before and after it, once the
// worker has counted the game (a moment after the end: asked again a few times).
async function drawRatingChange(tries) {
  let doc;
  try {
    doc = await api(`/games/${S.id}/ratings`);
  } catch (e) {
    if (e.status === 404 && tries < 8) setTimeout(() => drawRatingChange(tries + 1), 1500);
    return;
  }
  const el = document.getElementById("rating-change");
  if (!el) return;
  const me = player();
  const said = doc.changes.map((c) => {
    const delta = c.after.ordinal - c.before.ordinal;
    const you = me && c.player === me.id ? ` ${t("(you)")}` : "";
    return `${c.name}${you}: ${c.before.ordinal.toFixed(1)} → ${c.after.ordinal.toFixed(1)} (${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(1)})`;
  });
  mount(el, html`${t("Ratings:")} ${said.join(" · ")} <a href="/docs/play/ratings/">${t("how ratings work")}</a>`);
}

// ---- the log ------------------------------------------------------------------------------
function addLog(events) {
  if (!S.log) return [];
  const top = logTop();
  const fresh = events.filter((e) => e.version > top);
  if (!fresh.length) return [];
  S.log.push(...fresh);
  renderLog(fresh);
  if (S.reader) S.reader.heard(fresh, logCtx()); // said in words in the text view
  return fresh;
}

const logCtx = () => ({ you: S.seat, names: names(), view: S.view });

function renderLog(fresh) {
  const el = $("#log");
  if (!S.summary) return;
  const c = logCtx();
  const line = (e) =>
    e.note
      ? html`<li data-version="${e.version}" class="note${e.undo ? " undo-line" : ""}"><span class="v" aria-hidden="true">↶</span> ${e.note}</li>`
      : html`<li data-version="${e.version}"><span class="v">${e.version}</span> ${S.r.describeEvent(e, c)}</li>`;
  if (fresh) {
    el.insertAdjacentHTML("afterbegin", html`${fresh.slice().reverse().map(line)}`.s);
    while (el.children.length > 300) el.lastChild.remove();
  } else {
    mount(el, S.log.slice(-300).reverse().map(line));
  }
}

// ---- chat: the lines arrive by S.live (the stream, or its polling while the stream is down)
S.chat = [];
function room() {
  return acting() ? "players" : "spectators";
}
S.blocked = new Set(); // players blocked from this page: a stream opened before still sends their lines
function addChat(line, via) {
  // A line again (a hide, or a resume that repeats it) replaces the one held.
  const at = S.chat.findIndex((l) => l.id === line.id);
  const entry = { ...line, via };
  if (entry.player && S.blocked.has(entry.player)) {
    delete entry.text;
    entry.blocked = true;
  }
  if (at >= 0) S.chat[at] = entry;
  else {
    S.chat.push(entry);
    S.chat.sort((a, b) => a.id - b.id);
  }
  const n = S.summary ? names() : [];
  mount(
    $("#chat"),
    S.chat.slice(-100).map(
      (l) => {
        const who = l.seat != null ? n[l.seat] || l.name : l.name || t("spectator");
        const said = l.hidden
          ? html`<i class="muted">${t("hidden by the host")}</i>`
          : l.blocked
            ? html`<i class="muted">${t("a line from a player you blocked")}</i>`
            : l.text;
        return html`<li data-id="${l.id}" data-via="${l.via}"><span class="muted">${fmtTime(l.at)}</span> <b>${who}</b>${l.room === "spectators" && acting() ? ` ${t("(spectators)")}` : ""}: ${said}${chatButtons(l, who)}</li>`;
      },
    ),
  );
  const el = $("#chat");
  el.scrollTop = el.scrollHeight;
}
// The host may hide a line (it is kept, and the export holds it); a signed-in person may block
// the account that said it (its lines are hidden for them, and it cannot join their tables).
function chatButtons(l, who) {
  const out = [];
  if ((held(S.id) || {}).host && !l.hidden)
    out.push(html` <button type="button" class="small" data-hide="${l.id}" aria-label="${t("Hide {name}'s line", { name: who })}">${t("Hide")}</button>`);
  const me = player();
  if (me && l.player && l.player !== me.id && !l.blocked)
    out.push(html` <button type="button" class="small" data-block="${l.player}" data-name="${who}" aria-label="${t("Block {name}", { name: who })}">${t("Block")}</button>`);
  return out;
}
async function chatControl(e) {
  const b = e.target.closest("button");
  if (!b) return;
  try {
    if (b.dataset.hide) {
      await api(`/games/${S.id}/chat/${b.dataset.hide}/hide`, { method: "POST", token: (held(S.id) || {}).host });
      if (S.live.mode !== "stream") S.live.pollChat(); // the stream brings the hide itself
    } else if (b.dataset.block) {
      const sure = await confirmStep(t("Block {name}?", { name: b.dataset.name }), {
        yes: t("Block"),
        detail: t("Their chat lines are hidden for you, and they cannot join the tables you create."),
      });
      if (!sure) return;
      await api(`/me/blocks/${encodeURIComponent(b.dataset.block)}`, { method: "PUT" });
      S.blocked.add(b.dataset.block);
      for (const l of S.chat.filter((x) => x.player === b.dataset.block)) {
        delete l.text;
        l.blocked = true;
      }
      addChat(S.chat[S.chat.length - 1], S.chat[S.chat.length - 1].via);
      notice(`${b.dataset.name} is blocked.`);
    }
  } catch (err) {
    notice(err.message);
  }
}
async function sendChat(e) {
  e.preventDefault();
  const text = $("#chat-text").value.trim();
  if (!text) return;
  const body = { text, room: room() };
  if (!acting()) body.name = $("#chat-name").value.trim() || "spectator";
  try {
    await api(`/games/${S.id}/chat`, { method: "POST", body, token: S.token });
    $("#chat-text").value = "";
    if (S.live.mode !== "stream") S.live.pollChat(); // the stream brings it by itself
  } catch (err) {
    notice(err.message);
  }
}
