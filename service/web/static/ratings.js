// Ratings in the lobby (issue 41): the change each finished rated game made to the signed-in
// player's rating (from /me/games's `rating`), the "rated" mark of a table, and a leaderboard
// per game (GET /ratings/{game}).  Every mark is words as well as a style, so it reads the same
// without colour and to a screen reader; the figures are OpenSkill's ordinal (mu - 3 sigma), as
// on the end screen.
import { api } from "./api.js";
import { GAME_NAMES } from "./games.js";
import { N_, t, tn } from "./i18n.js";
import { $, html, mount } from "./ui.js";

// Words the templates use where pybabel's JavaScript lexer does not see them (inside a
// quoted attribute, or after one in a nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("the result counts for the players' ratings"),
];

const TOP = 10; // the lobby's leaderboard: the first ten

/** A figure as the pages show it (one decimal, a true minus sign; never "−0.0").
 *  @param {number} x */
export function figure(x) {
  const tenths = Math.round(x * 10);
  return `${tenths < 0 ? "−" : ""}${(Math.abs(tenths) / 10).toFixed(1)}`;
}

/** "rating 3.2 → 5.1, up 1.9": a game's change in words.
 *  @param {{before: number, after: number}} move */
export function moveWords(move) {
  const delta = move.after - move.before;
  const by = Math.abs(delta).toFixed(1);
  const way = Math.abs(delta) < 0.05 ? t("unchanged") : delta > 0 ? t("up {by}", { by }) : t("down {by}", { by });
  return t("rating {before} → {after}, {way}", { before: figure(move.before), after: figure(move.after), way });
}

/** Adds each rated game's change to its row of the account's games list in ``el`` (the rows
 *  `drawAccountGames` made, one per game, by `data-game`).
 *  @param {Element} el
 *  @param {Array<{id: string, rating?: {before: number, after: number}}>} games */
export function markMoves(el, games) {
  for (const g of games) {
    if (!g.rating) continue;
    const row = el.querySelector(`li[data-game="${CSS.escape(g.id)}"]`);
    if (!row || row.querySelector(".rating-move")) continue;
    const span = document.createElement("span");
    span.className = "rating-move small";
    span.textContent = `${t("rated")} · ${moveWords(g.rating)}`;
    row.append(" ", span);
  }
}

/** The "rated" mark of a table in a list (empty for an unrated one).
 *  @param {{rated?: boolean}} summary */
export const ratedMark = (summary) =>
  summary.rated ? html` <span class="rated-mark" title="${t("the result counts for the players' ratings")}">${t("rated")}</span>` : "";

/** One rating as words: "12.3 (mu 20.1, 4 games, provisional)".
 *  @param {{ordinal: number, mu: number, games: number, provisional: boolean}} r */
export const standingWords = (r) =>
  `${figure(r.ordinal)} (${tn("{count} rated game", "{count} rated games", r.games)}${r.provisional ? t(", provisional") : ""})`;

/** A profile's ratings, one line per game (the profile page's list).
 *  @param {Record<string, {ordinal: number, mu: number, games: number, provisional: boolean}>} ratings */
export const profileRatings = (ratings) =>
  html`<ul class="profile-ratings">${Object.entries(ratings).map(
    ([game, r]) => html`<li><b>${GAME_NAMES[game] || game}</b>: ${standingWords(r)}</li>`,
  )}</ul>`;

/** The lobby's leaderboards: a game to choose, its first ten by ordinal.
 *  @param {Element} el
 *  @param {Array<{id: string, name: string}>} games */
export function leaderboards(el, games) {
  mount(
    el,
    html`<div class="field">
        <label for="board-game">${t("Game")}</label>
        <select id="board-game">${games.map((g) => html`<option value="${g.id}">${g.name}</option>`)}</select>
      </div>
      <div id="board" aria-live="polite"></div>
      <p class="small muted">${t("Ordinal: a cautious estimate of skill (mu − 3 sigma); provisional: fewer than five rated games.")}
        <a href="/docs/play/ratings/">${t("How ratings work")}</a></p>`,
  );
  const select = /** @type {HTMLSelectElement} */ (el.querySelector("#board-game"));
  select.onchange = () => drawBoard(select.value);
  if (games.length) drawBoard(games[0].id);
}

/** @param {string} game */
async function drawBoard(game) {
  const el = $("#board");
  if (!el) return;
  let doc;
  try {
    doc = await api(`/ratings/${encodeURIComponent(game)}?limit=${TOP}`);
  } catch (e) {
    mount(el, html`<p class="muted">${e.message}</p>`);
    return;
  }
  const name = GAME_NAMES[game] || game;
  mount(
    el,
    doc.ratings.length
      ? html`<table class="leaderboard" data-game="${game}">
          <caption>${name}: the top ${Math.min(TOP, doc.ratings.length)}</caption>
          <thead><tr><th scope="col">#</th><th scope="col">${t("Player")}</th><th scope="col">${t("Ordinal")}</th><th scope="col">${t("Games")}</th></tr></thead>
          <tbody>${doc.ratings.map(
            (r, i) => html`<tr>
              <td>${i + 1}</td>
              <th scope="row">${r.player.startsWith("bot:") ? r.name : html`<a href="/players/${encodeURIComponent(r.player)}">${r.name}</a>`}</th>
              <td>${figure(r.ordinal)}</td>
              <td>${r.games}${r.provisional ? html` <span class="provisional">${t("provisional")}</span>` : ""}</td>
            </tr>`,
          )}</tbody>
        </table>`
      : html`<p class="muted">${t("No rated games of {game} yet.", { game: name })}</p>`,
  );
}
