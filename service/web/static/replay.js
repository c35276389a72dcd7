// The replay viewer: every version of a game, stepped, slid or played, with a permalink
// (?version=N), any seat's view once the game is over, the audit verdict and the undo trail.
import { api, serverFeatures, takeFragment, tokenFor } from "./api.js";
import { seatName } from "./common.js";
import { GAME_NAMES, renderer } from "./games.js";
import { offerReview } from "./review.js";
import { N_, t, tn } from "./i18n.js";
import { $, fmtTime, html, morph, mount, notice } from "./ui.js";

// Words the templates use where pybabel's JavaScript lexer does not see them (inside a
// quoted attribute, or after one in a nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("first version"),
  N_("previous version"),
  N_("play"),
  N_("next version"),
  N_("last version"),
  N_("the board"),
];

/** @type {{ r?: import("./common.js").Renderer, cache: Map<any, any>, playing: any, [field: string]: any }} */
const R = { cache: new Map(), playing: null };

export async function replay(id) {
  takeFragment();
  R.id = id;
  R.token = tokenFor(id);
  await serverFeatures();
  R.summary = await api(`/games/${id}`);
  R.r = await renderer(R.summary.game);
  R.finished = R.summary.status === "finished";
  document.title = t("Chronicle: replay of {game}", { game: GAME_NAMES[R.summary.game] || R.summary.game });
  const q = new URLSearchParams(location.search);
  const asked = Number(q.get("version"));
  R.max = R.summary.version;
  R.version = asked >= 1 && asked <= R.max ? asked : R.max;
  R.as = q.get("as") || (R.finished ? "all" : "me");
  const seatOptions = R.finished
    ? [
        ["all", t("everything (revealed)")],
        ...R.summary.seats.map((s) => [`seat:${s.seat}`, t("as {name} saw it", { name: seatName(s) })]),
        ["public", t("as a spectator saw it")],
      ]
    : [["me", R.token ? t("as your seat sees it") : t("as a spectator")]];
  mount(
    $("#app"),
    html`<div class="table-head">
        <h1>${t("Replay: {game}", { game: GAME_NAMES[R.summary.game] || R.summary.game })}</h1>
        <div class="head-links"><a class="button small" href="/play/${id}">${t("Table")}</a> <a class="button small" href="/">${t("Lobby")}</a></div>
      </div>
      <div class="replay-bar card">
        <button type="button" id="first" aria-label="${t("first version")}">« ${t("First")}</button>
        <button type="button" id="prev" aria-label="${t("previous version")}">◀</button>
        <button type="button" id="play" aria-label="${t("play")}">▶ ${t("Play")}</button>
        <button type="button" id="next" aria-label="${t("next version")}">▶</button>
        <button type="button" id="last" aria-label="${t("last version")}">${t("Last")} »</button>
        <label for="slider" class="vh">${t("version")}</label>
        <input type="range" id="slider" min="1" max="${R.max}" value="${R.version}">
        <output id="vlabel" for="slider"></output>
        <label>${t("View")} <select id="as">${seatOptions.map(([v, w]) => html`<option value="${v}" ${v === R.as ? "selected" : ""}>${w}</option>`)}</select></label>
        <a id="permalink" class="small" href="">${t("permalink")}</a>
      </div>
      <div class="table-grid">
        <section class="board-wrap" aria-label="${t("the board")}">
          <div id="board" class="board" tabindex="0"></div>
          <div id="details" class="details"></div>
        </section>
        <aside class="side">
          <section class="card"><h2>${t("This step")}</h2><p id="step-event"></p><p id="step-phase" class="muted"></p></section>
          <section class="card" hidden><h2>${t("Review")}</h2><div id="review"></div></section>
          <section class="card"><h2>${t("Audit")}</h2><div id="audit"><p class="muted">${t("Loading…")}</p></div></section>
          <section class="card"><h2>${t("Log")}</h2><ol id="log" class="log"></ol></section>
        </aside>
      </div>`,
  );
  $("#first").onclick = () => go(1);
  $("#prev").onclick = () => go(R.version - 1);
  $("#next").onclick = () => go(R.version + 1);
  $("#last").onclick = () => go(R.max);
  $("#play").onclick = togglePlay;
  $("#slider").oninput = (e) => go(Number(e.target.value));
  $("#as").onchange = (e) => {
    R.as = e.target.value;
    R.cache.clear();
    go(R.version, true);
  };
  document.addEventListener("keydown", (e) => {
    const t = /** @type {Element} */ (e.target);
    if (t.closest && t.closest("input, select, textarea")) return;
    if (e.key === "ArrowLeft") go(R.version - 1);
    else if (e.key === "ArrowRight") go(R.version + 1);
    else if (e.key === "Home") go(1);
    else if (e.key === "End") go(R.max);
    else if (e.key === " ") {
      e.preventDefault();
      togglePlay();
    } else return;
  });
  await Promise.all([loadLog(), loadAudit()]);
  await go(R.version, true);
  if (R.finished) offerReview({ id, token: R.token, el: $("#review"), describe, go }).catch(() => {});
}

/** An action in words, as the seat's view at ``version`` showed it (for the review). */
async function describe(action, version) {
  if (!R.seen) R.seen = new Map();
  if (!R.seen.has(version)) R.seen.set(version, api(`/games/${R.id}/view?version=${version}`, { token: R.token }));
  const view = await R.seen.get(version);
  const c = { names: R.summary.seats.map(seatName), you: view.you, view };
  try {
    return R.r.describeAction(action, c);
  } catch {
    return Object.values(action).join(" ");
  }
}

async function loadLog() {
  const r = await api(`/games/${R.id}/events?after=0&limit=1000`, { token: R.token });
  R.events = r.events;
  const names = R.summary.seats.map(seatName);
  const c = { names, you: null, view: { state: {} } };
  mount(
    $("#log"),
    R.events.map(
      (e) => html`<li data-version="${e.version}"><a href="?version=${e.version}" data-v="${e.version}"><span class="v">${e.version}</span></a> ${R.r.describeEvent(e, c)}</li>`,
    ),
  );
  $("#log").onclick = (e) => {
    const a = e.target.closest("a[data-v]");
    if (a) {
      e.preventDefault();
      go(Number(a.dataset.v));
    }
  };
}

async function loadAudit() {
  const el = $("#audit");
  try {
    const a = await api(`/games/${R.id}/audit`, { token: R.token });
    mount(
      el,
      html`<p class="verdict ${a.chain_ok ? "ok" : "bad"}" id="verdict">${a.chain_ok ? `✓ ${t("Hash chain verified: the log is intact.")}` : `✗ ${a.first_bad_version ? t("Hash chain broken at version {n}.", { n: a.first_bad_version }) : t("Hash chain broken.")}`}</p>
        <p class="small muted">${t("head")} ${String(a.head_hash || "").slice(0, 16)}… · ${tn("{count} event", "{count} events", (a.events || []).length)}</p>
        <h3>${t("Undo trail")}</h3>
        ${(a.undone || []).length
          ? html`<ul class="small">${a.undone.map(
              (u) => {
                const n = (u.events || []).length;
                const which = u.from_version === u.to_version + 1 ? t("version {n}", { n: u.from_version }) : t("versions {from}-{to}", { from: u.to_version + 1, to: u.from_version });
                return html`<li>${tn("{who} undid {which} ({count} event) at {time}", "{who} undid {which} ({count} events) at {time}", n, { who: byWhom(u.by), which, time: fmtTime(u.at) })}</li>`;
              },
            )}</ul>`
          : html`<p class="small muted">${t("No undo in this game.")}</p>`}`,
    );
  } catch (e) {
    mount(el, html`<p class="muted">${e.message}</p>`);
  }
}

function byWhom(by) {
  const m = /^seat:(\d+)$/.exec(by || "");
  if (m) {
    const seat = R.summary.seats[Number(m[1])];
    return seat && seat.name ? seat.name : t("seat {n}", { n: Number(m[1]) + 1 });
  }
  return by === "host" ? t("the host") : by;
}

function query(v) {
  if (R.as === "all") return [`/games/${R.id}/view?version=${v}&reveal=true`, null];
  if (R.as.startsWith("seat:")) return [`/games/${R.id}/view?version=${v}&reveal=true`, null];
  if (R.as === "public") return [`/games/${R.id}/view?version=${v}`, null];
  return [`/games/${R.id}/view?version=${v}`, R.token];
}

function fetchView(v) {
  if (!R.cache.has(v)) {
    const [path, token] = query(v);
    const p = api(path, { token }).catch((e) => {
      R.cache.delete(v);
      throw e;
    });
    R.cache.set(v, p);
  }
  return R.cache.get(v);
}

let drawn = 0;
async function go(v, force = false) {
  v = Math.max(1, Math.min(R.max, v));
  if (v === R.version && !force && drawn === v) return;
  R.version = v;
  $("#slider").value = v;
  $("#vlabel").textContent = t("version {n} of {max}", { n: v, max: R.max });
  const url = `${location.pathname}?version=${v}${R.as !== (R.finished ? "all" : "me") ? `&as=${R.as}` : ""}`;
  history.replaceState(null, "", url);
  $("#permalink").href = url;
  let view;
  try {
    view = await fetchView(v);
  } catch (e) {
    notice(e.message);
    return;
  }
  if (R.version !== v) return; // a later step won the race
  draw(view);
  drawn = v;
  if (v < R.max) fetchView(v + 1).catch(() => {});
}

function draw(view) {
  const names = R.summary.seats.map(seatName);
  const as = R.as.startsWith("seat:") ? Number(R.as.slice(5)) : view.you;
  const state = { ...view.state };
  if (R.as.startsWith("seat:")) {
    // the revealed view, shown from that seat's chair (its own hand; money of its colours)
    if (state.hands) state.hand = state.hands[as];
    if ("you" in state) state.you = as;
    if ("seat" in state) state.seat = as;
    if (state.seats && !Array.isArray(state.seats)) {
      state.your_colours = Object.entries(state.seats).filter(([, x]) => x === as).map(([c]) => c);
    }
  }
  const ev = (R.events || []).find((e) => e.version === view.version);
  const c = { you: as, names, view: { ...view, state }, actions: [], last: ev };
  const t0 = performance.now();
  morph($("#board"), R.r.board(state, c));
  morph($("#details"), R.r.details(state, c));
  void document.body.offsetHeight; // layout included in the render time
  const ms = performance.now() - t0;
  /** @type {any} */ (window).__chronicle = { version: view.version, renderMs: ms };
  document.body.dataset.version = view.version;
  mount($("#step-event"), ev ? html`<b>${view.version}.</b> ${R.r.describeEvent(ev, c)}` : "");
  mount(
    $("#step-phase"),
    html`${R.r.phase(state, c)} · ${{ active: t("playing"), finished: t("finished"), scoring: t("scoring"), waiting: t("waiting for players"), abandoned: t("abandoned") }[view.status] || view.status}${view.result ? html` · ${t("winners: {names}", { names: view.result.winners.map((s) => names[s]).join(", ") })}` : ""}`,
  );
  const prev = $("#log li.current");
  if (prev) prev.classList.remove("current");
  const li = $(`#log li[data-version="${view.version}"]`);
  if (li) li.classList.add("current");
}

function togglePlay() {
  const b = $("#play");
  if (R.playing) {
    clearInterval(R.playing);
    R.playing = null;
    b.textContent = `▶ ${t("Play")}`;
    return;
  }
  if (R.version >= R.max) go(1);
  b.textContent = `⏸ ${t("Pause")}`;
  R.playing = setInterval(() => {
    if (R.version >= R.max) togglePlay();
    else go(R.version + 1);
  }, 400);
}
