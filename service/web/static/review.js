// The replay viewer's review (issue 42): a seat holder of a finished game asks for the review
// of its own moves (POST /games/{id}/review), waits while the worker judges them, then reads
// each decision: what was played, what search preferred and by how much, biggest swing first,
// each with a link to its version.  Every judgement is said in words and figures (never by
// colour alone), and the list is announced politely while it fills.
import { ApiError, api } from "./api.js";
import { N_, t, tn } from "./i18n.js";
import { html, mount } from "./ui.js";

const PACE_MS = 80; // between two decisions put in words: at most ~12 views a second

/** @typedef {import("./common.js").Action} Action */
/** @typedef {{ action: Action, value: number }} Alternative */
/** @typedef {{ version: number, played: Action, best: Action, value_played: number, value_best: number, swing?: number, alternatives: Alternative[] }} Judged */
/** @typedef {{ status: string, decisions: Judged[], incomplete?: boolean }} Review */

/** @typedef {object} Setup
 *  @property {string} id the game
 *  @property {string | null} token the seat's token, if the page holds one (else the cookie)
 *  @property {Element} el where the review goes (its card is shown once there is a seat)
 *  @property {(a: Action, version: number) => Promise<string>} describe an action in words
 *  @property {(version: number) => void} go step the replay to a version */

const POLL_MS = 1500;
const SHOWN = 3; // alternatives listed under a decision
const TOP = 10; // decisions listed at once; the others behind a disclosure

/** Offer "Review my moves" when the caller holds a seat of this finished game.
 *  @param {Setup} setup */
export async function offerReview(setup) {
  const { id, token, el } = setup;
  let seat;
  try {
    seat = (await api(`/games/${id}/view`, { token })).you;
  } catch {
    return;
  }
  if (seat == null) return; // a spectator: nothing to review
  const card = /** @type {HTMLElement | null} */ (el.closest("section"));
  if (card) card.hidden = false;
  // No GET on load: before the first ask it is a 404 (a console error in every seat holder's
  // replay); asking again is free (nothing more is queued) and answers done at once.
  mount(
    el,
    html`<p class="small muted">${t("Search judges each of your decisions from what you could see then, never from hidden cards.")}</p>
      <button type="button" id="ask-review">${t("Review my moves")}</button>`,
  );
  /** @type {HTMLElement} */ (el.querySelector("#ask-review")).onclick = async () => {
    try {
      const asked = await api(`/games/${id}/review`, { method: "POST", body: { seat }, token });
      follow(setup, seat, { status: asked.status, decisions: [] });
    } catch (e) {
      mount(el, html`<p role="alert">${e.message}</p>`);
    }
  };
}

/** The review of the seat, or null before one was asked.
 *  @param {string} id
 *  @param {string | null} token
 *  @param {number} seat
 *  @returns {Promise<Review | null>} */
async function read(id, token, seat) {
  try {
    return await api(`/games/${id}/review?seat=${seat}`, { token });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** Show the review, polling until the worker is done.
 *  @param {Setup} setup
 *  @param {number} seat
 *  @param {Review} review */
async function follow(setup, seat, review) {
  const { id, token, el } = setup;
  while (review.status !== "done") {
    const n = review.decisions.length;
    mount(
      el,
      html`<p aria-live="polite" id="review-status">${tn("Reviewing your moves ({status})… {count} decision judged so far.", "Reviewing your moves ({status})… {count} decisions judged so far.", n, { status: REVIEW_STATUS[review.status] ? t(REVIEW_STATUS[review.status]) : review.status })}</p>`,
    );
    await new Promise((ok) => setTimeout(ok, POLL_MS));
    review = await read(id, token, seat);
    if (!review) return;
  }
  await show(setup, review);
}

/** @param {Judged} d */
const swingOf = (d) => d.swing ?? Math.max(0, d.value_best - d.value_played);
/** @param {number} v */
const fmt = (v) => v.toFixed(2); // the same digits in every language of the site
/** A review's status (the API's word) in words. */
const REVIEW_STATUS = { queued: N_("queued"), running: N_("running"), done: N_("done") };
/** @param {Action} a
 *  @param {Action} b */
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The decisions, biggest swing first, each with links to its version.
 *  @param {Setup} setup
 *  @param {Review} review */
async function show(setup, review) {
  const { el, describe, go } = setup;
  const ordered = [...review.decisions].sort((a, b) => swingOf(b) - swingOf(a) || a.version - b.version);
  // one decision at a time, paced: each needs the seat's view at its version, and thirty views
  // asked at once ran into the per-token rate limit (20 a second: 429s, then retries)
  const items = [];
  mount(el, html`<p aria-live="polite" id="review-status">${t("Reviewing your moves (done)… putting them in words.")}</p>`);
  for (const d of ordered) {
    items.push(await item(d, describe));
    await new Promise((done) => setTimeout(done, PACE_MS));
  }
  const agreed = ordered.filter((d) => same(d.played, d.best)).length;
  const rest = items.slice(TOP);
  mount(
    el,
    html`<p id="review-status" aria-live="polite">${tn("{count} decision judged; search agrees with {agreed} of them.", "{count} decisions judged; search agrees with {agreed} of them.", ordered.length, { agreed })} ${review.incomplete ? `${t("The review stopped before the end: the others could not be judged.")} ` : ""}${t("Values are your expected final placing from 0 (surely last) to 1 (surely first), from what you could see then.")}</p>
      <h3>${t("Biggest swings first")}</h3>
      <ol class="review-list" id="review-list">${items.slice(0, TOP)}</ol>
      ${rest.length ? html`<details><summary>${tn("The other {count} decision", "The other {count} decisions", rest.length)}</summary><ol class="review-list" start="${TOP + 1}">${rest}</ol></details>` : ""}`,
  );
  el.addEventListener("click", (e) => {
    const a = /** @type {HTMLElement} */ (e.target).closest("a[data-v]");
    if (a instanceof HTMLElement) {
      e.preventDefault();
      go(Number(a.dataset.v));
    }
  });
}

/** @param {Judged} d
 *  @param {Setup["describe"]} describe */
async function item(d, describe) {
  const played = await describe(d.played, d.version);
  const swing = swingOf(d);
  const verdict = same(d.played, d.best)
    ? html`<span class="review-ok">${t("search agrees")}</span> ${t("(value {value})", { value: fmt(d.value_played) })}`
    : html`<span class="${swing >= 0.05 ? "review-swing" : "review-near"}">${t("search preferred")}</span> <b>${await describe(d.best, d.version)}</b> ${t("(value {best} against {played}: {swing} better)", { best: fmt(d.value_best), played: fmt(d.value_played), swing: fmt(swing) })}`;
  const others = await Promise.all(
    d.alternatives.slice(0, SHOWN).map(async (x) => html`<li>${await describe(x.action, d.version)}: ${fmt(x.value)}</li>`),
  );
  return html`<li data-swing="${fmt(swing)}"><a href="?version=${d.version}" data-v="${d.version}">${t("Version {n}", { n: d.version })}</a>: ${t("you played")} <b>${played}</b>; ${verdict}.
    ${others.length ? html`<details><summary>${t("Other moves")}</summary><ul class="small">${others}</ul></details>` : ""}</li>`;
}
