// The host invites an account to an open seat (POST /games/{id}/invitations with the host's
// token, docs/contract.md "Invitations"): beside each open seat on the table page, and as
// "Invite to my table" on a player's profile page.
//
// Only this browser's host token can invite, so both are offered only where the browser keeps
// one (lobby.js stores it with the table's record, api.js held()), on a waiting table, to a
// signed-in page: the summary does not say whether the host was signed in when the table was
// made, so the server's 403 host_not_signed_in says it, in the page's language.
//
// An invitation gives the seat a new code that travels only in the invitee's own mail and
// push (the answer is {seat, player, version}, no code): the seat's earlier link stops working,
// so the page drops it from the browser's store and says who the seat now waits for instead.
import { api, held, remember, session } from "./api.js";
import { GAME_NAMES } from "./games.js";
import { N_, t } from "./i18n.js";
import { html, mount } from "./ui.js";

/** The first ``sel`` in ``root``. @param {string} sel @param {ParentNode} root
 *  @returns {HTMLElement} */
const one = (sel, root) => /** @type {HTMLElement} */ (root.querySelector(sel));
/** Every ``sel`` in ``root``. @param {string} sel @param {ParentNode} root
 *  @returns {HTMLElement[]} */
const every = (sel, root) => /** @type {HTMLElement[]} */ ([...root.querySelectorAll(sel)]);

// Words pybabel's JavaScript lexer does not see (in a quoted attribute, or after one in a
// nested template): listed here for the catalogue.
export const MORE_WORDS = [
  N_("Invite"),
  N_("Invite a player"),
  N_("Invite to my table"),
  N_("Invitation sent: {name} is sent the link to seat {n} if their settings allow."),
  N_("Type a player's id or paste their profile address."),
  N_("{game}: seat {n}"),
  N_("a player's id or profile address"),
];

/** The public id in what was typed or pasted: the id, or a profile address
 *  (``<public>/players/<id>``), whose last part is the id.
 *  @param {string} text */
export function playerIdOf(text) {
  const s = text.trim();
  const found = s.match(/\/players\/([^/?#\s]+)/);
  if (!found) return s;
  try {
    return decodeURIComponent(found[1]);
  } catch {
    return found[1];
  }
}

/** Invites ``playerId`` to ``seat`` with this browser's host token; the seat's old link is
 *  forgotten (JSON leaves an undefined value out: remember() drops the link) and the
 *  invitee kept with the table's record. Throws the API's error (its message translated).
 *  @param {string} gameId @param {number} seat @param {string} playerId */
export async function inviteTo(gameId, seat, playerId) {
  const g = held(gameId) || {};
  const done = await api(`/games/${gameId}/invitations`, {
    method: "POST",
    body: { seat, player: playerId },
    token: g.host,
  });
  const who = await api(`/players/${encodeURIComponent(playerId)}`, { tries: 2 }).catch(() => null);
  const name = (who && who.name) || playerId;
  remember(gameId, {
    links: { [seat]: undefined },
    invited: { ...(g.invited || {}), [seat]: { player: playerId, name } },
  });
  return { ...done, name };
}

/** Whether this page may offer invitations to ``gameId``: its host token is here, the table
 *  waits and the page is signed in. @param {string} gameId @param {string} status */
export const mayInvite = (gameId, status) => status === "waiting" && !!(held(gameId) || {}).host && !!session();

let drawn = ""; // what the table page's panel was drawn for: redrawn only when it changes

/** The table page's "Open seats" panel in ``el``: each open seat's invitation link (if this
 *  browser has it) or whom it was sent to, and an "Invite a player" form.
 *  @param {HTMLElement} el @param {string} gameId
 *  @param {{ status: string, seats: { seat: number, open?: boolean }[] }} summary */
export function drawInvites(el, gameId, summary) {
  const open = mayInvite(gameId, summary.status) ? summary.seats.filter((s) => s.open).map((s) => s.seat) : [];
  const g = held(gameId) || {};
  const key = JSON.stringify([open, g.links || {}, g.invited || {}]);
  if (key === drawn) return;
  drawn = key;
  el.hidden = !open.length;
  if (!open.length) return mount(el, "");
  mount(
    el,
    html`<h2 id="invite-h">${t("Open seats")}</h2>
      <ul class="open-seats">
        ${open.map((seat) => {
          const link = (g.links || {})[seat];
          const invited = (g.invited || {})[seat];
          const field = `invite-${seat}`;
          return html`<li class="open-seat" data-seat="${seat}">
            <h3>${t("Seat {n}", { n: seat + 1 })}</h3>
            ${link
              ? html`<label class="invite-link-row">${t("Invitation link")}
                  <input readonly class="invite-link" value="${link}"></label>`
              : invited
                ? html`<p class="invited muted">${t("Invited: {name}. The earlier link for this seat no longer works.", { name: invited.name })}</p>`
                : ""}
            <form class="invite-form" data-seat="${seat}" novalidate>
              <label for="${field}">${t("Invite a player")}</label>
              <div class="invite-row">
                <input id="${field}" name="player" autocomplete="off" spellcheck="false" required
                  placeholder="${t("a player's id or profile address")}" aria-describedby="${field}-said ${field}-error">
                <button type="submit">${t("Invite")}</button>
              </div>
              <p id="${field}-said" class="invite-said" role="status" tabindex="-1"></p>
              <p id="${field}-error" class="invite-error" role="alert"></p>
            </form>
          </li>`;
        })}
      </ul>`,
  );
  for (const form of every(".invite-form", el)) {
    form.onsubmit = async (e) => {
      e.preventDefault();
      const seat = Number(form.dataset.seat);
      const input = /** @type {HTMLInputElement} */ (one("input", form));
      const said = one(".invite-said", form);
      const error = one(".invite-error", form);
      said.textContent = "";
      error.textContent = "";
      const id = playerIdOf(input.value);
      if (!id) {
        error.textContent = t("Type a player's id or paste their profile address.");
        input.focus();
        return;
      }
      const button = /** @type {HTMLButtonElement} */ (one("button", form));
      button.disabled = true;
      try {
        const done = await inviteTo(gameId, seat, id);
        drawInvites(el, gameId, summary); // the old link goes
        const now = one(`.invite-form[data-seat="${seat}"] .invite-said`, el);
        now.textContent = sentWords(done.name, seat);
        now.focus();
      } catch (err) {
        error.textContent = err.message;
        button.disabled = false;
        input.focus();
      }
    };
  }
}

/** @param {string} name @param {number} seat */
const sentWords = (name, seat) =>
  t("Invitation sent: {name} is sent the link to seat {n} if their settings allow.", { name, n: seat + 1 });

/** The profile page's "Invite to my table" in ``el`` for the profile of ``target``: the
 *  signed-in visitor's waiting tables (``games``: GET /me/games?status=waiting) with an open
 *  seat whose host token this browser keeps; nothing at all when there is none.
 *  @param {HTMLElement} el @param {{ id: string, name: string }} target
 *  @param {{ id: string, game: string }[]} games */
export async function drawInviteToMyTable(el, target, games) {
  const tables = [];
  for (const g of games) {
    if (!(held(g.id) || {}).host) continue;
    const s = await api(`/games/${g.id}`, { tries: 2 }).catch(() => null);
    if (!s || !mayInvite(g.id, s.status) || s.seats.some((x) => x.player === target.id)) continue;
    // the first open seat not invited yet from here (else the first open seat: invited anew)
    const invited = (held(g.id) || {}).invited || {};
    const open = s.seats.filter((x) => x.open).map((x) => x.seat);
    const seat = open.find((n) => !(n in invited)) ?? open[0];
    if (seat != null) tables.push({ id: g.id, game: GAME_NAMES[s.game] || s.game, seat });
  }
  if (!tables.length) return;
  mount(
    el,
    html`<button type="button" id="invite-open" aria-expanded="false" aria-controls="invite-tables">${t("Invite to my table")}</button>
      <ul id="invite-tables" class="invite-tables" hidden>
        ${tables.map(
          (x) => html`<li><button type="button" class="invite-table" data-game="${x.id}" data-seat="${x.seat}">${t("{game}: seat {n}", { game: x.game, n: x.seat + 1 })}</button></li>`,
        )}
      </ul>
      <p class="invite-said" role="status" tabindex="-1"></p>
      <p class="invite-error" role="alert"></p>`,
  );
  el.hidden = false;
  const opener = /** @type {HTMLButtonElement} */ (one("#invite-open", el));
  const list = one("#invite-tables", el);
  opener.onclick = () => {
    list.hidden = !list.hidden;
    opener.setAttribute("aria-expanded", list.hidden ? "false" : "true");
    if (!list.hidden) one("button", list).focus();
  };
  for (const b of /** @type {HTMLButtonElement[]} */ (every(".invite-table", el))) {
    b.onclick = async () => {
      one(".invite-said", el).textContent = "";
      one(".invite-error", el).textContent = "";
      b.disabled = true;
      try {
        await inviteTo(b.dataset.game, Number(b.dataset.seat), target.id);
        const said = one(".invite-said", el);
        said.textContent = sentWords(target.name, Number(b.dataset.seat));
        b.closest("li").remove();
        said.focus();
      } catch (err) {
        one(".invite-error", el).textContent = err.message;
        b.disabled = false;
        b.focus();
      }
    };
  }
}
