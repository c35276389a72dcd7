// The table: one game as a seat (token in this browser) or as a spectator, kept live.
import { api, held, remember, serverFeatures, takeFragment, tokenFor } from "./api.js";
import { GAME_NAMES, renderer } from "./games.js";
import { Live } from "./live.js";
import {
  $,
  $$,
  clearNotice,
  fmtTime,
  html,
  keyClicks,
  morph,
  mount,
  notice,
  seedChosenNote,
  until,
} from "./ui.js";

const SEAT_EVENTS = new Set([
  "SeatJoined", "SeatLeft", "GameStarted", "SeatResigned", "SeatTakenOver", "GameFinished", "GameAbandoned",
]);
const S = {}; // the page's state: id, token, seat, summary, view, actions, log, chat, renderer

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
      notice(e.status === 401 ? "This seat link is not valid for this game." : e.message);
    }
  }
  S.token = tokenFor(id);
  S.summary = await api(`/games/${id}`);
  S.r = await renderer(S.summary.game);
  document.title = `Chronicle: ${GAME_NAMES[S.summary.game] || S.summary.game}`;
  layout();
  const [ev] = await Promise.all([
    api(`/games/${id}/events?after=0&limit=1000`, { token: S.token }),
    refresh(),
  ]);
  S.log = ev.events;
  renderLog();
  S.live = new Live(id, S.token, S.features, {
    onEvents: (events) => {
      if (events.some((e) => SEAT_EVENTS.has(e.type))) S.needSummary = true;
      addLog(events);
      refresh();
    },
    onUndo: (version) => {
      S.log = S.log.filter((e) => e.version <= version);
      renderLog();
      refresh();
    },
    onChat: (line, via) => addChat(line, via),
    onStatus: () => refresh(),
  });
  S.live.start(S.log.length ? S.log[S.log.length - 1].version : 0);
  setInterval(tick, 1000);
}

function layout() {
  const g = held(S.id);
  const seats = g ? Object.keys(g.seats) : [];
  mount(
    $("#app"),
    html`<div class="table-head">
        <h1>${GAME_NAMES[S.summary.game] || S.summary.game}</h1>
        <div id="turn" class="turn" aria-live="polite"></div>
        <div class="head-links">
          ${seats.length > 1
            ? html`<label>Playing as <select id="as-seat">${seats.map(
                (s) => html`<option value="${s}" ${String(g.active) === s ? "selected" : ""}>seat ${Number(s) + 1}</option>`,
              )}</select></label>`
            : ""}
          <a href="/replay/${S.id}" class="button small">Replay</a>
          <a href="/" class="button small">Lobby</a>
        </div>
        ${seedChosenNote(S.summary)}
      </div>
      <div class="table-grid">
        <section class="board-wrap" aria-label="the board">
          <div id="board" class="board"></div>
          <div id="details" class="details"></div>
        </section>
        <aside class="side">
          <section id="result" class="card" hidden></section>
          <section id="act-panel" class="card" aria-labelledby="act-h">
            <h2 id="act-h">Your move</h2>
            <div id="act-filter"></div>
            <ul id="actions" class="actions"></ul>
            <div class="act-tools">
              <button type="button" id="undo" hidden>Undo my last move</button>
              <button type="button" id="resign" hidden>Resign (a bot takes over)</button>
              <button type="button" id="leave" hidden>Leave the seat</button>
              <button type="button" id="start" hidden>Start now (bots fill open seats)</button>
            </div>
            <form id="host-undo" class="act-tools" hidden>
              <label for="host-to">Host: undo back to version</label>
              <input id="host-to" type="number" min="1" inputmode="numeric">
              <button type="submit">Undo</button>
            </form>
          </section>
          <section class="card" aria-labelledby="players-h">
            <h2 id="players-h">Players</h2>
            <ul id="players" class="players"></ul>
          </section>
          <section id="chat-panel" class="card" aria-labelledby="chat-h" hidden>
            <h2 id="chat-h">Chat</h2>
            <ol id="chat" class="chat" aria-live="polite"></ol>
            <form id="chat-form" autocomplete="off">
              <input id="chat-name" class="chat-name" maxlength="40" placeholder="your name" hidden>
              <label class="vh" for="chat-text">message</label>
              <input id="chat-text" maxlength="500" placeholder="Say something to the table">
              <button type="submit">Send</button>
            </form>
          </section>
          <section class="card" aria-labelledby="log-h">
            <h2 id="log-h">What happened</h2>
            <ol id="log" class="log" aria-live="polite"></ol>
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
  $("#resign").onclick = () => seatCall("resign", "You resigned; a bot plays your seat now.");
  $("#leave").onclick = () => seatCall("leave", "You left the seat.");
  $("#start").onclick = () => hostStart();
  $("#host-undo").onsubmit = (e) => {
    e.preventDefault();
    undo(Number($("#host-to").value), held(S.id).host);
  };
  if (S.features.chat) {
    $("#chat-panel").hidden = false;
    $("#chat-name").hidden = !!S.token;
    $("#chat-form").onsubmit = sendChat;
  }
}

// ---- fetching and drawing -----------------------------------------------------------------
let refreshing = null;
let again = false;

/** Fetch summary, view and legal actions, then draw; calls during a fetch coalesce. */
async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      try {
        // The summary (seat names, options) changes only when seats or the status do.
        const wantSummary = S.needSummary || !S.view || S.view.status !== S.summary.status;
        S.needSummary = false;
        const [summary, view, actions] = await Promise.all([
          wantSummary ? api(`/games/${S.id}`) : Promise.resolve(S.summary),
          api(`/games/${S.id}/view`, { token: S.token }),
          S.token ? api(`/games/${S.id}/actions`, { token: S.token }) : Promise.resolve(null),
        ]);
        if (actions && actions.version !== view.version) {
          again = true;
          continue;
        }
        S.summary = summary;
        if (summary.status !== view.status) S.needSummary = true;
        S.view = view;
        S.actions = actions ? actions.actions : [];
        S.seat = view.you;
        draw();
      } catch (e) {
        notice(e.message);
      }
    } while (again);
  })();
  try {
    await refreshing;
  } finally {
    refreshing = null;
  }
}

function names() {
  return S.summary.seats.map((s) =>
    s.open ? `open seat ${s.seat + 1}` : s.name + (s.bot ? ` (bot ${s.bot})` : ""),
  );
}

function ctx() {
  return {
    you: S.view.you,
    names: names(),
    view: S.view,
    actions: S.actions,
    status: S.view.status,
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
  (window.__drawnAt ||= {})[v.version] = Date.now();
  document.body.dataset.version = v.version;
  document.body.dataset.status = v.status;
  window.__chronicle = { version: v.version, renderMs: performance.now() - t0 };
  drawTurn();
  drawActions();
  drawPlayers();
  drawResult();
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
  if (v.status === "finished") text = html`<b>Game over.</b>`;
  else if (v.status === "scoring") text = html`<b>Scoring…</b>`;
  else if (v.status === "waiting") text = html`Waiting for players to join.`;
  else if (v.status === "abandoned") text = html`The host abandoned this game.`;
  else {
    const mine = S.seat != null && v.to_act.includes(S.seat);
    const others = v.to_act.filter((s) => s !== S.seat).map((s) => n[s]);
    text = html`${mine ? html`<b class="your-turn">Your turn</b> <a href="#act-panel" class="small">to your moves</a>` : ""}
      ${others.length ? html`${mine ? " · also " : "Waiting for "}${others.join(", ")}` : ""}
      ${v.to_act
        .filter((s) => deadlines[s])
        .map(
          (s) => html` <span class="deadline" data-deadline="${deadlines[s]}" title="${deadlines[s]}">
            ${s === S.seat ? "you" : n[s]}: ${until(deadlines[s])}</span>`,
        )}`;
  }
  mount(
    el,
    html`${text} <span class="muted">· ${S.r.phase(v.state, ctx())} · version ${v.version}${S.token ? "" : " · watching"}</span>`,
  );
}

function tick() {
  $$(".deadline").forEach((el) => {
    el.lastChild.textContent = el.lastChild.textContent.replace(/:.*$/, ": " + until(el.dataset.deadline));
  });
}

let filterKey = null;
let drawnActions = ""; // what #actions shows: version, filter and list

function drawActions() {
  const panel = $("#act-panel");
  const acts = S.actions;
  const policy = (S.summary.options || {}).undo;
  const active = S.view.status === "active";
  $("#undo").hidden = !S.token || policy === "none" || !active;
  $("#resign").hidden = !(S.features.resign && S.token && active);
  $("#leave").hidden = !(S.features.leave && S.token && S.view.status === "waiting");
  const host = (held(S.id) || {}).host;
  $("#start").hidden = !(S.features.start && host && S.view.status === "waiting");
  $("#host-undo").hidden = !(host && policy === "host" && active);
  $("#host-to").max = S.view.version - 1;
  if (!S.token) {
    mount($("#act-filter"), html`<p class="muted">You are watching. Players act from their seat links.</p>`);
    mount($("#actions"), "");
    drawnActions = "";
    panel.classList.remove("mine");
    return;
  }
  panel.classList.toggle("mine", acts.length > 0);
  const shown = filterKey ? acts.filter((a) => S.r.keysOf(a, S.view.state).includes(filterKey)) : acts;
  if (filterKey && !shown.length) filterKey = null;
  const list = filterKey ? shown : acts;
  mount(
    $("#act-filter"),
    !acts.length
      ? html`<p class="muted">${active ? "Nothing to do now: it is another seat's move." : "No moves."}</p>`
      : filterKey
        ? html`<p>${list.length} moves for <b>${filterLabel}</b> <button type="button" id="show-all" class="small">show all ${acts.length}</button></p>`
        : html`<p class="muted">${acts.length} legal ${acts.length === 1 ? "move" : "moves"}: pick one here${S.r.clickHint ? ", or " + S.r.clickHint : ""}.</p>`,
  );
  const sa = $("#show-all");
  if (sa) sa.onclick = () => { filterKey = null; drawActions(); };
  // The same list at the same version is left as it is: a second refresh of one change (the
  // stream's frame after the move's own answer) must not replace the buttons under a click
  // or take the keyboard focus away.
  const drawn = JSON.stringify([S.view.version, filterKey, list]);
  if (drawn === drawnActions) return;
  drawnActions = drawn;
  const c = ctx();
  mount(
    $("#actions"),
    list.map((a) => html`<li><button type="button" class="act" data-i="${acts.indexOf(a)}">${S.r.describeAction(a, c)}</button></li>`),
  );
  $$("#actions .act").forEach((b) => (b.onclick = () => send(acts[Number(b.dataset.i)], b)));
}

let filterLabel = "";
function pick(key, label) {
  const matching = S.actions.filter((a) => S.r.keysOf(a, S.view.state).includes(key));
  if (!matching.length) {
    notice(S.actions.length ? `No legal move uses ${label}.` : "It is not your move.", "info");
    return;
  }
  if (matching.length === 1) {
    send(matching[0]);
    return;
  }
  filterKey = key;
  filterLabel = label;
  drawActions();
  const first = $("#actions .act");
  if (first) first.focus();
}

let sending = false;
async function send(action, button) {
  if (sending) return;
  sending = true;
  $$("#actions .act").forEach((b) => (b.disabled = true));
  try {
    const key = crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
    const res = await apiAct(action, key);
    clearNotice();
    filterKey = null;
    addLog(res.events || []);
    S.live && S.live.seen(res.version);
  } catch (e) {
    notice(e.code === "version_conflict" ? "Someone moved first; the board is updated." : `Refused: ${e.message}`);
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
  try {
    const r = await api(`/games/${S.id}/undo`, { method: "POST", body, token: hostToken || S.token });
    const n = (r.undone || []).length;
    S.log = S.log.filter((e) => e.version <= r.version);
    renderLog();
    S.live && (S.live.after = r.version);
    notice(`Undone: ${n} ${n === 1 ? "event" : "events"}; back at version ${r.version}.`, "info");
  } catch (e) {
    const reason = e.details && e.details.reason ? ` (${e.details.reason.replaceAll("_", " ")})` : "";
    notice(`Undo refused: ${e.message}${reason}`);
  }
  refresh();
}

async function seatCall(what, done) {
  try {
    await api(`/games/${S.id}/${what}`, { method: "POST", body: {}, token: S.token });
    notice(done, "info");
  } catch (e) {
    notice(e.message);
  }
  refresh();
}

async function hostStart() {
  try {
    await api(`/games/${S.id}/start`, { method: "POST", body: { fill: "greedy" }, token: held(S.id).host });
  } catch (e) {
    notice(e.message);
  }
  refresh();
}

function drawPlayers() {
  const n = names();
  const scores = S.r.scores ? S.r.scores(S.view.state, ctx()) : {};
  mount(
    $("#players"),
    S.summary.seats.map(
      (s) => html`<li class="${S.view.to_act.includes(s.seat) ? "acting" : ""}">
        ${S.r.seatBadge ? S.r.seatBadge(s.seat, S.view.state) : ""}
        <span>${n[s.seat]}${s.seat === S.seat ? " (you)" : ""}</span>
        ${scores[s.seat] != null ? html`<span class="score">${scores[s.seat]}</span>` : ""}
        ${S.view.to_act.includes(s.seat) ? html`<span class="to-act" aria-label="to act">●</span>` : ""}
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
  mount(
    el,
    html`<h2>Result</h2>
      <p class="winner">${res.winners.length > 1 ? "Shared win: " : "Winner: "}${res.winners.map((s) => n[s]).join(" and ")}</p>
      <ol class="ranking">${res.ranking.map(
        (s) => html`<li><span>${n[s]}</span> <b>${res.scores[s]}</b></li>`,
      )}</ol>
      ${res.details && Object.keys(res.details).length
        ? html`<details><summary>How it was scored</summary><pre>${JSON.stringify(res.details, null, 1)}</pre></details>`
        : ""}`,
  );
}

// ---- the log ------------------------------------------------------------------------------
function addLog(events) {
  if (!S.log) return;
  const top = S.log.length ? S.log[S.log.length - 1].version : 0;
  const fresh = events.filter((e) => e.version > top);
  if (!fresh.length) return;
  S.log.push(...fresh);
  renderLog(fresh);
}

function renderLog(fresh) {
  const el = $("#log");
  if (!S.summary) return;
  const c = { you: S.seat, names: names(), view: S.view };
  const line = (e) =>
    html`<li data-version="${e.version}"><span class="v">${e.version}</span> ${S.r.describeEvent(e, c)}</li>`;
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
  return S.token ? "players" : "spectators";
}
function addChat(line, via) {
  // A line again (a hide, or a resume that repeats it) replaces the one held.
  const at = S.chat.findIndex((l) => l.id === line.id);
  const entry = { ...line, via };
  if (at >= 0) S.chat[at] = entry;
  else {
    S.chat.push(entry);
    S.chat.sort((a, b) => a.id - b.id);
  }
  const n = S.summary ? names() : [];
  mount(
    $("#chat"),
    S.chat.slice(-100).map(
      (l) => html`<li data-id="${l.id}" data-via="${l.via}"><span class="muted">${fmtTime(l.at)}</span> <b>${l.seat != null ? n[l.seat] || l.name : l.name || "spectator"}</b>${l.room === "spectators" && S.token ? " (spectators)" : ""}: ${l.hidden ? html`<i class="muted">hidden by the host</i>` : l.text}</li>`,
    ),
  );
  const el = $("#chat");
  el.scrollTop = el.scrollHeight;
}
async function sendChat(e) {
  e.preventDefault();
  const text = $("#chat-text").value.trim();
  if (!text) return;
  const body = { text, room: room() };
  if (!S.token) body.name = $("#chat-name").value.trim() || "spectator";
  try {
    await api(`/games/${S.id}/chat`, { method: "POST", body, token: S.token });
    $("#chat-text").value = "";
    if (S.live.mode !== "stream") S.live.pollChat(); // the stream brings it by itself
  } catch (err) {
    notice(err.message);
  }
}
