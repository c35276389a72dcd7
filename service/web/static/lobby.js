// The lobby: the games offered, creating a table, the public waiting tables, "my games", and
// the join page of an invitation link.  Signed in to an account, "my games" is the account's
// (every device's) first, then the guest seats held only in this browser, each of which the
// account may keep (a claim); creating or joining while signed in binds the seat server side.
import {
  allHeld,
  api,
  forget,
  held,
  pageLink,
  remember,
  serverFeatures,
  takeFragment,
} from "./api.js";
import { accountGames, claimRefusal, claimSeat, drawAccountGames, signinHref, whoAmI } from "./account.js";
import { GAME_NAMES } from "./games.js";
import { leaderboards, markMoves, ratedMark } from "./ratings.js";
import { rulesHref } from "./rules.js";
import { N_, t, tn } from "./i18n.js";
import { $, $$, copy, html, mount, notice, seedChosenNote } from "./ui.js";

// Words the templates use where pybabel's JavaScript lexer does not see them (inside a
// quoted attribute, or after one in a nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("Player {n}"),
  N_("unreachable"),
  N_("forget this game"),
];

const TURN_TIMES = [
  ["", N_("no clock")],
  ["PT2M", N_("2 minutes a turn")],
  ["PT1H", N_("1 hour a turn")],
  ["P1D", N_("1 day a turn")],
  ["P3D", N_("3 days a turn")],
];

const SEAT_NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin"];

let catalog = null;
let features = {};

export async function lobby() {
  document.title = t("Chronicle: lobby");
  const app = $("#app");
  [catalog, features] = await Promise.all([api("/catalog"), serverFeatures()]);
  mount(
    app,
    html`<h1>${t("Lobby")}</h1>
      <div class="lobby">
        <section class="card" aria-labelledby="new-h">
          <h2 id="new-h">${t("New table")}</h2>
          <form id="create" autocomplete="off"></form>
          <div id="created" aria-live="polite"></div>
        </section>
        <section class="card" aria-labelledby="mine-h">
          <h2 id="mine-h" tabindex="-1">${t("My games")}</h2>
          <div id="account-mine" hidden>
            <div class="mine-filter">
              <label for="mine-status">${t("Show")}</label>
              <select id="mine-status">
                <option value="">${t("every game")}</option>
                <option value="active">${t("games being played")}</option>
                <option value="waiting">${t("tables waiting for players")}</option>
                <option value="finished">${t("finished games")}</option>
              </select>
            </div>
            <div id="account-games" aria-live="polite"></div>
            <h3 id="mine-local-h" class="mine-local-h" hidden>${t("In this browser only")}</h3>
          </div>
          <div id="mine"><p class="muted">${t("Loading…")}</p></div>
        </section>
        <section class="card" aria-labelledby="wait-h">
          <h2 id="wait-h">${t("Tables waiting for players")}</h2>
          <div id="waiting"></div>
        </section>
        <section class="card" aria-labelledby="recent-h">
          <h2 id="recent-h">${t("Recent games (watch or replay)")}</h2>
          <div id="recent"></div>
        </section>
        <section class="card" aria-labelledby="boards-h">
          <h2 id="boards-h">${t("Leaderboards")}</h2>
          <div id="leaderboards"></div>
        </section>
        <section class="card wide" aria-labelledby="cat-h">
          <h2 id="cat-h">${t("Games offered")}</h2>
          <div id="catalog" class="catalog"></div>
        </section>
      </div>`,
  );
  mount($("#catalog"), catalog.games.map(gameCard));
  createForm();
  $("#mine-status").onchange = () => showMine();
  showMine().then(() => {
    // the account menu's "My games" from another page: the list is drawn only now
    if (location.hash === "#mine-h") $("#mine-h").focus();
  });
  showWaiting();
  showRecent();
  leaderboards($("#leaderboards"), catalog.games);
}

// The words about a game, an option, a value or a bot come from the catalog (the server's, so
// that other clients and translations share them); a server without them shows the names.
const optionWords = (k, o) => ({
  label: o.label || (k === "undo" ? t("Undo policy") : k[0].toUpperCase() + k.slice(1)),
  description: o.description || "",
});
const valueWords = (k, o, v) =>
  (o.choices && o.choices[v]) || { label: optionLabel(k, v), description: "" };
const botWords = (g, b) => (g.bot_levels && g.bot_levels[b]) || { label: b, description: "" };

function gameCard(g) {
  const id = `card-${g.id}`;
  return html`<article class="game-card" aria-labelledby="${id}">
    <h3 id="${id}">${g.name}</h3>
    <p class="game-facts">${t("{min}-{max} players", { min: g.players.min, max: g.players.max })}</p>
    ${g.description ? html`<p class="game-about">${g.description}</p>` : ""}
    <dl class="game-options">
      ${Object.entries(g.options).map(([k, o]) => {
        const w = optionWords(k, o);
        return html`<dt>${w.label}</dt>
          <dd>${w.description}
            <ul>${o.values.map((v) => {
              const c = valueWords(k, o, v);
              return html`<li><b>${c.label}</b>${v === o.default ? t(" (the default)") : ""}${c.description ? `: ${c.description}` : ""}</li>`;
            })}</ul>
          </dd>`;
      })}
    </dl>
    <details class="bot-levels">
      <summary>${t("Bots you can play against")}</summary>
      <ul>${g.bots.map((b) => {
        const w = botWords(g, b);
        return html`<li><b>${w.label}</b>${w.description ? `: ${w.description}` : ""}</li>`;
      })}</ul>
    </details>
    <p><a class="button rules-link" href="${rulesHref(g.id)}">${t("How to play {game}", { game: g.name })}</a></p>
  </article>`;
}

// ---- create a table -----------------------------------------------------------------------
function gameOf(id) {
  return catalog.games.find((g) => g.id === id);
}

function seatRow(i, g, kind = i === 0 ? "person" : "person") {
  const bots = g.bots;
  return html`<li class="seat-row" data-seat="${i}">
    <span class="seat-no">${t("Seat {n}", { n: i + 1 })}</span>
    <label class="vh" for="kind-${i}">${t("seat {n} is", { n: i + 1 })}</label>
    <select id="kind-${i}" name="kind-${i}" class="kind">
      <option value="person" ${kind === "person" ? "selected" : ""}>${t("a person")}</option>
      <option value="open" ${kind === "open" ? "selected" : ""} ${features.openSeats ? "" : "disabled"}>
        ${features.openSeats ? t("open (by invitation)") : t("open (not on this server yet)")}
      </option>
      ${bots.map((b) => html`<option value="bot:${b}">${t("a bot: {level}", { level: botWords(g, b).label })}</option>`)}
    </select>
    <label class="vh" for="name-${i}">${t("name of seat {n}", { n: i + 1 })}</label>
    <input id="name-${i}" name="name-${i}" class="name" maxlength="40" value="${SEAT_NAMES[i] || t("Player {n}", { n: i + 1 })}">
  </li>`;
}

function createForm() {
  const form = $("#create");
  const render = (gameId, n) => {
    const g = gameOf(gameId);
    n = Math.max(g.players.min, Math.min(g.players.max, n));
    const rows = [];
    for (let i = 0; i < n; i++) rows.push(seatRow(i, g));
    mount(
      form,
      html`<div class="field">
          <label for="game">${t("Game")}</label>
          <select id="game" name="game">
            ${catalog.games.map(
              (x) => html`<option value="${x.id}" ${x.id === gameId ? "selected" : ""}>${x.name}</option>`,
            )}
          </select>
        </div>
        ${Object.entries(g.options).map(
          ([k, o]) => html`<div class="field">
            <label for="opt-${k}">${optionWords(k, o).label}</label>
            <select id="opt-${k}" name="opt-${k}" data-option="${k}" aria-describedby="opt-${k}-help">
              ${o.values.map(
                (v) => html`<option value="${v}" ${v === o.default ? "selected" : ""}>${valueWords(k, o, v).label}</option>`,
              )}
            </select>
            <small id="opt-${k}-help" class="muted option-help">${valueWords(k, o, o.default).description}</small>
          </div>`,
        )}
        <p class="muted"><a href="${rulesHref(gameId)}" target="_blank" rel="noopener">${t("How to play {game}", { game: g.name })}</a></p>
        <div class="field">
          <label for="turn-time">${t("Turn time")}</label>
          <select id="turn-time" name="turn-time" ${features.turnTime ? "" : "disabled"}>
            ${TURN_TIMES.map(([v, w]) => html`<option value="${v}">${t(w)}</option>`)}
          </select>
          ${features.turnTime ? "" : html`<small class="muted">${t("clocks are not on this server yet")}</small>`}
        </div>
        <div class="field">
          <label><input type="checkbox" id="public" ${features.join ? "" : "disabled"}> ${t("list it in the lobby (public table)")}</label>
        </div>
        <div class="field">
          <label><input type="checkbox" id="rated" aria-describedby="rated-help"> ${t("rated")}</label>
          <small id="rated-help" class="muted">${t('the result counts for your rating: sign in first; the other seats are bots or open seats, undo "no undo" or "own last move"')}</small>
        </div>
        <fieldset>
          <legend>${t("Seats ({min}-{max})", { min: g.players.min, max: g.players.max })}</legend>
          <ol class="seats">${rows}</ol>
          <button type="button" id="add-seat" ${n >= g.players.max ? "disabled" : ""}>${t("Add a seat")}</button>
          <button type="button" id="drop-seat" ${n <= g.players.min ? "disabled" : ""}>${t("Remove a seat")}</button>
        </fieldset>
        <button type="submit" class="primary" id="create-table">${t("Create the table")}</button>`,
    );
    $("#game").onchange = (e) => render(e.target.value, n);
    $$("[data-option]", form).forEach((sel) => {
      sel.onchange = () => {
        const k = sel.dataset.option;
        $(`#opt-${k}-help`, form).textContent = valueWords(k, g.options[k], sel.value).description;
      };
    });
    $("#add-seat").onclick = () => render(gameId, n + 1);
    $("#drop-seat").onclick = () => render(gameId, n - 1);
    $$(".kind", form).forEach((sel) => {
      sel.onchange = () => {
        const name = sel.closest("li").querySelector(".name");
        name.disabled = sel.value === "open";
        if (sel.value.startsWith("bot:") && SEAT_NAMES.includes(name.value)) {
          name.value = t("Bot {level}", { level: botWords(g, sel.value.slice(4)).label }); // a name in the page's language
        }
      };
    });
  };
  render(catalog.games[0].id, 2);
  form.onsubmit = (e) => {
    e.preventDefault();
    create(form);
  };
}

function optionLabel(k, v) {
  if (k === "undo")
    return { turn: t("own last move, until others act"), host: t("the host may undo anything"), none: t("no undo") }[v] || v;
  return v;
}

async function create(form) {
  const game = $("#game", form).value;
  const options = {};
  $$("[data-option]", form).forEach((s) => (options[s.dataset.option] = s.value));
  const players = $$(".seat-row", form).map((li) => {
    const kind = $(".kind", li).value;
    const name = $(".name", li).value.trim() || t("Player");
    if (kind === "open") return { open: true };
    if (kind.startsWith("bot:")) return { name, bot: kind.slice(4) };
    return { name };
  });
  const body = { game, players, options };
  const tt = $("#turn-time", form).value;
  if (tt) body.turn_time = tt;
  if ($("#public", form).checked) body.public = true;
  if ($("#rated", form).checked) body.rated = true;
  const button = $("#create-table", form);
  button.disabled = true;
  try {
    const created = await api("/games", { method: "POST", body });
    afterCreate(created, players);
  } catch (e) {
    notice(t("The table was not created: {reason}", { reason: e.message }));
  } finally {
    button.disabled = false;
  }
}

function afterCreate(created, players) {
  const id = created.id;
  const withToken = created.seats.filter((s) => s.token);
  // The creator plays the first seat named for a person; every other seat gets a link.
  const mine = withToken[0];
  const links = {};
  for (const s of withToken.slice(1)) links[s.seat] = pageLink(`/play/${id}`, { token: s.token });
  for (const inv of created.invitations || []) {
    links[inv.seat] = pageLink(`/join/${id}`, { invitation: inv.code });
  }
  remember(id, {
    game: created.game,
    seats: mine ? { [mine.seat]: mine.token } : {},
    active: mine ? mine.seat : null,
    host: created.host_token,
    links,
  });
  const seatName = (n) => {
    const s = created.seats.find((x) => x.seat === Number(n));
    return s && s.name ? s.name : players[n] && players[n].open ? t("open seat") : t("seat {n}", { n: Number(n) + 1 });
  };
  mount(
    $("#created"),
    html`<div class="created">
      <h3>${t("Table created")}</h3>
      ${Object.keys(links).length
        ? html`<p>${t("Send each player their own link (it holds their seat: share it with them only).")}</p>`
        : ""}
      <ul class="links">
        ${Object.entries(links).map(
          ([seat, url]) => html`<li>
            <label for="link-${seat}">${t("Seat {n} ({name})", { n: Number(seat) + 1, name: seatName(seat) })}</label>
            <input id="link-${seat}" class="invite-link" data-seat="${seat}" readonly value="${url}">
            <button type="button" class="copy" data-for="link-${seat}">${t("Copy")}</button>
          </li>`,
        )}
      </ul>
      <p><a class="button primary" id="go-table" href="/play/${id}">${t("Go to the table")}</a>
      <a class="button" href="/replay/${id}">${t("Replay")}</a></p>
    </div>`,
  );
  $$("#created .copy").forEach((b) => (b.onclick = () => copy($("#" + b.dataset.for).value, b)));
  showMine();
}

// ---- lists --------------------------------------------------------------------------------
/** A table's status (the API's word) in the page's language.
 *  @param {string} status */
export function tableStatus(status) {
  const words = {
    waiting: N_("waiting"),
    active: N_("active"),
    scoring: N_("scoring"),
    finished: N_("finished"),
    abandoned: N_("abandoned"),
  };
  return words[status] ? t(words[status]) : status;
}

function statusWords(s, mySeat) {
  if (s.status === "finished") return t("finished");
  if (s.status === "waiting") return t("waiting for players");
  if (s.status === "scoring") return t("scoring");
  if (s.status === "abandoned") return t("abandoned");
  if (mySeat != null && s.to_act.includes(Number(mySeat))) return t("your turn");
  return t("playing");
}

async function showMine() {
  const el = $("#mine");
  const me = await whoAmI();
  /** @type {Set<string>} */
  let bound = new Set(); // "game:seat" of the account's seats
  $("#account-mine").hidden = !me;
  if (me) {
    const status = $("#mine-status").value;
    const all = await accountGames();
    bound = new Set(all.map((g) => `${g.id}:${g.seat}`));
    const shown = status ? await accountGames(status) : all;
    drawAccountGames($("#account-games"), shown);
    markMoves($("#account-games"), shown); // a rated game's change to the rating
  }
  // a game is listed here while this browser holds a seat of it the account does not
  const local = (seats, id) => !me || !seats.length || seats.some((s) => !bound.has(`${id}:${s}`));
  const games = allHeld()
    .filter(([id, g]) => local(Object.keys(g.seats || {}), id))
    .sort((a, b) => (b[1].added || 0) - (a[1].added || 0));
  $("#mine-local-h").hidden = !me || !games.length;
  if (!games.length) {
    mount(
      el,
      me
        ? ""
        : html`<p class="muted">${t("No games in this browser yet. Create a table, or open a link a host sent you.")}</p>
            ${features.accounts ? html`<p class="muted small"><a href="${signinHref()}">${t("Sign in")}</a> ${t("to keep your games on every device.")}</p>` : ""}`,
    );
    return;
  }
  const rows = await Promise.all(
    games.map(async ([id, g]) => {
      try {
        return [id, g, await api(`/games/${id}`)];
      } catch (e) {
        return [id, g, e.status === 404 ? null : undefined];
      }
    }),
  );
  // the seat a claim would keep: the one this browser plays, unless the account has it
  const guestSeat = (id, g) => {
    const seats = Object.keys(g.seats || {});
    const seat = g.active != null && g.seats[g.active] ? String(g.active) : seats[0];
    return me && features.claim && seat != null && !bound.has(`${id}:${seat}`) ? seat : null;
  };
  mount(
    el,
    html`<ul class="game-list">
      ${rows.map(([id, g, s]) => {
        if (s === null) return html`<li>${id}: ${t("no longer on this server")} <button type="button" class="forget" data-id="${id}">${t("Forget")}</button></li>`;
        const seat = g.active;
        const seatInfo = s && seat != null ? (s.seats.find((x) => x.seat === Number(seat)) || {}) : {};
        const status = s ? statusWords(s, seat) : t("unreachable");
        const claim = s ? guestSeat(id, g) : null;
        return html`<li class="${status === t("your turn") ? "hot" : ""}" data-game="${id}">
          <a href="/play/${id}">${GAME_NAMES[g.game] || g.game}</a>
          <span class="muted">${seatInfo.name ? t("as {name}", { name: seatInfo.name }) : t("watching")} · ${status}${s ? ` · ${t("version {n}", { n: s.version })}` : ""}</span>
          <a href="/replay/${id}" class="small">${t("replay")}</a>
          ${Object.keys(g.links || {}).length
            ? html`<details><summary>${t("invitation links")}</summary>
                ${Object.entries(g.links).map(
                  ([st, url]) => html`<div class="link-row"><label>${t("Seat {n}", { n: Number(st) + 1 })}
                    <input readonly class="invite-link" value="${url}"></label>
                    <button type="button" class="copy-inline">${t("Copy")}</button></div>`,
                )}</details>`
            : ""}
          ${claim != null
            ? html`<button type="button" class="claim-seat small" data-id="${id}" data-seat="${claim}">${t("Keep in my account")}</button>`
            : ""}
          <button type="button" class="forget small" data-id="${id}" aria-label="${t("forget this game")}">${t("Forget")}</button>
        </li>`;
      })}
    </ul>`,
  );
  $$(".forget", el).forEach((b) => (b.onclick = () => { forget(b.dataset.id); showMine(); }));
  $$(".copy-inline", el).forEach((b) => (b.onclick = () => copy(b.previousElementSibling.querySelector("input").value, b)));
  $$(".claim-seat", el).forEach(
    (b) =>
      (b.onclick = async () => {
        b.disabled = true;
        try {
          await claimSeat(b.dataset.id, held(b.dataset.id).seats[b.dataset.seat]);
          notice(t("The seat is in your account now: it is listed on every device where you sign in."), "info");
          showMine();
        } catch (e) {
          b.disabled = false;
          notice(claimRefusal(e));
        }
      }),
  );
}

async function showWaiting() {
  const el = $("#waiting");
  if (!features.join) {
    mount(el, html`<p class="muted">${t("Open seats and public tables light up when this server offers joining.")}</p>`);
    return;
  }
  try {
    const list = await api("/games?status=waiting&per_page=20");
    mount(
      el,
      list.games.length
        ? html`<ul class="game-list">${list.games.map(
            (s) => html`<li><a href="/join/${s.id}">${GAME_NAMES[s.game] || s.game}</a>${ratedMark(s)}
              <span class="muted">${tn("{count} open seat", "{count} open seats", s.seats.filter((x) => x.open).length)} ·
              ${s.seats.filter((x) => !x.open).map((x) => x.name).join(", ")}</span></li>`,
          )}</ul>`
        : html`<p class="muted">${t("No public table is waiting.")}</p>`,
    );
  } catch (e) {
    mount(el, html`<p class="muted">${e.message}</p>`);
  }
}

// The public games only: the server lists a table created without "public" to its seats, its
// host and the admin, and this list asks with no token ("My games" keeps this browser's own).
async function showRecent() {
  const el = $("#recent");
  try {
    const list = await api("/games?per_page=8");
    mount(
      el,
      list.games.length
        ? html`<ul class="game-list">${list.games.map(
            (s) => html`<li><a href="/play/${s.id}">${GAME_NAMES[s.game] || s.game}</a>${ratedMark(s)}
              <span class="muted">${s.seats.map((x) => x.name || t("open")).join(" · ")} · ${tableStatus(s.status)}</span>
              <a class="small" href="/replay/${s.id}">${t("replay")}</a></li>`,
          )}</ul>`
        : html`<p class="muted">${t("No games yet.")}</p>`,
    );
  } catch (e) {
    mount(el, html`<p class="muted">${e.message}</p>`);
  }
}

// ---- the join page ------------------------------------------------------------------------
export async function join(id) {
  document.title = t("Chronicle: join a table");
  const frag = takeFragment();
  if (frag.token) {
    // a seat link sent to the join page: the seat is already this person's
    remember(id, { seats: {}, pendingToken: frag.token });
    location.replace(`/play/${id}#token=${encodeURIComponent(frag.token)}`);
    return;
  }
  const invitation = frag.invitation || sessionStorage.getItem(`chronicle.invite.${id}`);
  if (invitation) sessionStorage.setItem(`chronicle.invite.${id}`, invitation);
  features = await serverFeatures();
  const app = $("#app");
  let summary;
  try {
    summary = await api(`/games/${id}`);
  } catch (e) {
    mount(app, html`<h1>${t("Join")}</h1><p>${e.message}</p>`);
    return;
  }
  const mine = held(id);
  mount(
    app,
    html`<h1>${t("Join a table of {game}", { game: GAME_NAMES[summary.game] || summary.game })}</h1>
      <section class="card">
        <p>${t("Seats:")} ${summary.seats.map((s) => (s.open ? t("open") : s.name)).join(" · ")} · ${tableStatus(summary.status)}</p>
        ${seedChosenNote(summary)}
        ${mine && Object.keys(mine.seats).length
          ? html`<p>${t("This browser already holds a seat here.")} <a href="/play/${id}">${t("Go to the table")}</a></p>`
          : ""}
        ${features.join
          ? html`<form id="join-form">
              <label for="join-name">${t("Your name")}</label>
              <input id="join-name" maxlength="40" required value="">
              <button class="primary" type="submit">${t("Take a seat")}</button>
            </form>`
          : html`<p class="muted">${t("This server does not take joins yet; ask the host for your seat link.")}</p>`}
        <p><a href="/play/${id}">${t("Watch the table")}</a></p>
      </section>`,
  );
  const form = $("#join-form");
  if (!form) return;
  form.onsubmit = async (e) => {
    e.preventDefault();
    const name = $("#join-name").value.trim();
    const body = { name };
    if (invitation) body.invitation = invitation;
    try {
      const got = await api(`/games/${id}/join`, { method: "POST", body });
      remember(id, { game: summary.game, seats: { [got.seat]: got.token }, active: got.seat });
      sessionStorage.removeItem(`chronicle.invite.${id}`);
      location.assign(`/play/${id}`);
    } catch (err) {
      notice(
        err.code === "seat_taken"
          ? t("That seat is taken already.")
          : err.code === "game_not_waiting"
            ? t("The game has started already; you may watch it.")
            : err.message,
      );
    }
  };
}
