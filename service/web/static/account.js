// Accounts in the browser (optional: a guest keeps playing with seat links): the sign-in page
// (/signin: a link by email, or a passkey), the account menu in every page's header, the
// account's games, adding a passkey, signing out, and notices on this device (Web Push: the
// page asks the browser's permission only when the person presses "Notify me on this device").
//
// The session is an HttpOnly cookie the page never reads; what the page keeps is who is
// signed in and the session's CSRF token (api.js: session(), keepSession(), dropSession()).
// The sign-in code comes in the mailed link's fragment (#code=), which no browser sends to a
// server; it is wiped from the address bar at once and used only when the person confirms, so
// a mail scanner that opens the link signs nobody in.  No code, token or address is ever
// written to the console or put in a notice.
//
// Loaded as its own module by index.html and signin.html (the header's menu on every page,
// the sign-in page on /signin); lobby.js and table.js import what they show of the account.
import { api, dropSession, keepSession, serverFeatures, session, takeFragment } from "./api.js";
import { GAME_NAMES } from "./games.js";
import { markMoves, profileRatings } from "./ratings.js";
import { drawInviteToMyTable } from "./invite.js";
import { drawNoticeSettings } from "./notice_settings.js";
import { N_, ready, t, tn } from "./i18n.js";
import { $, html, mount, notice, until } from "./ui.js";

const NEXT = "chronicle.signin.next"; // where to go once signed in (a path of this site)
const CODE = "chronicle.signin.code"; // the mailed code until it is used (survives a reload)
const NAME = "chronicle.signin.name"; // the name typed for a new account, offered again

/** The signed-in player as this browser last heard it, or null (the cookie decides).
 *  @returns {{ id: string, name?: string } | null} */
export const player = () => (session() || { player: null }).player;

let checked = null;
/** The account as the server sees it now (GET /me, once a page load), or null when signed out.
 *  Asked only when this browser signed in: a signed-out page makes no request that fails. */
export function whoAmI() {
  if (!session()) return Promise.resolve(null);
  checked ||= api("/me").then(
    (me) => {
      keepSession(me);
      return me;
    },
    (e) => {
      if (e.status === 401) dropSession(); // the session ended (signed out elsewhere, expired)
      return null;
    },
  );
  return checked;
}

/** A path of this site to go to after signing in: only a local path, never another origin. */
function safeNext(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\")
    ? path
    : "/";
}

/** The sign-in page's address that comes back to ``path`` afterwards. */
export const signinHref = (path = location.pathname) =>
  path === "/" ? "/signin" : `/signin?next=${encodeURIComponent(path)}`;

// ---- the account's games -------------------------------------------------------------------
const STATUS_WORDS = { waiting: N_("waiting for players"), finished: N_("finished"), abandoned: N_("abandoned"), scoring: N_("scoring") };

/** The account's games (GET /me/games, ``status`` one of active, waiting, finished or all),
 *  your turn first; [] when signed out.
 *  @param {string} [status]
 *  @returns {Promise<{ id: string, game: string, seat: number, status: string, your_turn: boolean, deadline?: string, version: number, updated_at?: string }[]>} */
export async function accountGames(status = "") {
  if (!session()) return [];
  try {
    const r = await api(`/me/games${status ? `?status=${encodeURIComponent(status)}` : ""}`);
    return (r && r.games) || [];
  } catch (e) {
    if (e.status === 401) dropSession();
    return [];
  }
}

/** A list of the account's games in ``el``, each a link to its table.
 *  @param {Element} el
 *  @param {Awaited<ReturnType<typeof accountGames>>} games */
export function drawAccountGames(el, games) {
  mount(
    el,
    games.length
      ? html`<ul class="game-list account-games">${games.map((g) => {
          const words = g.status === "active" ? (g.your_turn ? t("your turn") : t("playing")) : STATUS_WORDS[g.status] ? t(STATUS_WORDS[g.status]) : g.status;
          return html`<li class="${g.your_turn ? "hot" : ""}" data-game="${g.id}">
            <a href="/play/${g.id}">${GAME_NAMES[g.game] || g.game}</a>
            <span class="muted">${t("seat {n}", { n: g.seat + 1 })} · ${words}${g.deadline && g.status === "active" ? ` · ${until(g.deadline)}` : ""} · ${t("version {n}", { n: g.version })}</span>
            <a href="/replay/${g.id}" class="small">${t("replay")}</a>
          </li>`;
        })}</ul>`
      : html`<p class="muted">${t("No games in your account yet. Tables you create or join while signed in are kept here.")}</p>`,
  );
}

/** Binds a guest seat this browser holds the token of to the signed-in account (the seat
 *  token keeps working).  Resolves to the claim's answer, or throws the API's error.
 *  @param {string} gameId
 *  @param {string} seatToken */
export function claimSeat(gameId, seatToken) {
  return api(`/games/${encodeURIComponent(gameId)}/claim`, { method: "POST", body: { seat_token: seatToken } });
}

/** What a refused claim means to a person. */
export function claimRefusal(e) {
  if (e.code === "seat_claimed") return t("Another account holds this seat already.");
  return t("The seat was not kept in your account: {reason}", { reason: e.message });
}

// ---- passkeys (WebAuthn, in its JSON forms) --------------------------------------------------
const passkeysHere = () =>
  typeof PublicKeyCredential === "function" && typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function";

/** What a failed WebAuthn ceremony means to a person (the browser's error names). */
function passkeyTrouble(e, adding) {
  const name = e && e.name;
  if (name === "NotAllowedError" || name === "AbortError")
    return adding ? t("No passkey was added (it was cancelled or timed out).") : t("No passkey was used (it was cancelled, timed out, or this device has none for this site).");
  if (name === "InvalidStateError") return t("This device holds a passkey for your account already.");
  if (name === "SecurityError") return t("Passkeys work only at this site's own address.");
  return e && e.message ? e.message : String(e);
}

/** Signs in with a passkey: the server's challenge, the authenticator's answer, the session. */
async function passkeySignIn() {
  const options = await api("/auth/passkey/options", { method: "POST", body: {} });
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey || options);
  const cred = /** @type {PublicKeyCredential | null} */ (await navigator.credentials.get({ publicKey }));
  if (!cred) throw new DOMException("no credential", "NotAllowedError");
  return api("/auth/passkey/verify?session=cookie", { method: "POST", body: cred.toJSON() });
}

/** Adds a passkey on this device to the signed-in account. */
export async function addPasskey() {
  if (!passkeysHere()) {
    notice(t("This browser cannot make passkeys."));
    return false;
  }
  try {
    const options = await api("/auth/passkey/register-options", { method: "POST", body: {} });
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey || options);
    const cred = /** @type {PublicKeyCredential | null} */ (await navigator.credentials.create({ publicKey }));
    if (!cred) throw new DOMException("no credential", "NotAllowedError");
    await api("/auth/passkey/register", { method: "POST", body: cred.toJSON() });
    notice(t("Passkey added: you can sign in with it on this device from now on."), "info");
    document.body.dataset.passkeyAdded = "yes"; // (tests)
    countPasskeys();
    return true;
  } catch (e) {
    if (e.status === 401) dropSession();
    notice(e.status ? t("No passkey was added: {reason}", { reason: e.message }) : passkeyTrouble(e, true));
    return false;
  }
}

/** Ends the session here (the server clears the cookie); guest seats stay in this browser. */
export async function signOut() {
  try {
    await api("/auth/signout", { method: "POST", body: {} });
  } catch (e) {
    if (e.status !== 401) {
      notice(t("Not signed out: {reason}", { reason: e.message }));
      return;
    }
  }
  dropSession();
  location.assign("/");
}

// ---- the header's account menu -------------------------------------------------------------
/** The menu in the header: "Sign in" for a guest; for a signed-in person a button that opens
 *  their links (my games, the account, add a passkey, sign out).  A disclosure, not an ARIA
 *  menu: Tab moves through its links and buttons, Escape closes it and gives the focus back. */
export async function drawMenu() {
  const el = document.getElementById("account");
  if (!el) return;
  const features = await serverFeatures();
  if (!features.accounts && !session()) {
    mount(el, "");
    return;
  }
  const me = player();
  if (!me) {
    const here = location.pathname === "/signin";
    mount(el, here ? "" : html`<a href="${signinHref()}" id="signin-link" class="button small">${t("Sign in")}</a>`);
    return;
  }
  mount(
    el,
    html`<button type="button" id="account-button" class="small" aria-expanded="false" aria-controls="account-menu">
        <span class="vh">${t("Account of")} </span>${me.name || t("your account")} <span aria-hidden="true">▾</span>
      </button>
      <div id="account-menu" class="account-menu" hidden>
        <ul>
          <li><a href="/#mine-h">${t("My games")}</a></li>
          <li><a href="/signin">${t("Your account")}</a></li>
          ${features.passkeys ? html`<li><button type="button" data-account="passkey">${t("Add a passkey")}</button></li>` : ""}
          <li><button type="button" data-account="signout">${t("Sign out")}</button></li>
        </ul>
      </div>`,
  );
}

/** Opens or closes the menu (when it is drawn). */
function openMenu(yes) {
  const button = document.getElementById("account-button");
  const box = document.getElementById("account-menu");
  if (!button || !box) return;
  box.hidden = !yes;
  button.setAttribute("aria-expanded", yes ? "true" : "false");
}

/** The menu's keys and clicks, once per page (the menu itself is drawn again when the session
 *  changes): its button toggles it, Escape closes it and gives the focus back to the button,
 *  a click or the focus elsewhere closes it. */
function wireMenu(el) {
  el.addEventListener("click", (e) => {
    const t = e.target instanceof Element ? e.target : null;
    if (t && t.closest("#account-button")) {
      const box = document.getElementById("account-menu");
      openMenu(box.hidden);
      if (!box.hidden) /** @type {HTMLElement} */ (box.querySelector("a, button")).focus();
    } else if (t && t.closest("#account-menu a")) openMenu(false); // "My games" on the lobby only scrolls
  });
  el.addEventListener("keydown", (e) => {
    const box = document.getElementById("account-menu");
    if (/** @type {KeyboardEvent} */ (e).key === "Escape" && box && !box.hidden) {
      openMenu(false);
      document.getElementById("account-button").focus();
    }
  });
  el.addEventListener("focusout", (e) => {
    const to = /** @type {FocusEvent} */ (e).relatedTarget;
    if (to instanceof Node && !el.contains(to)) openMenu(false);
  });
  document.addEventListener("click", (e) => {
    if (e.target instanceof Node && !el.contains(e.target)) openMenu(false);
  });
}

/** The buttons with data-account="passkey" | "signout", wherever they are (menu or page). */
function wireActions() {
  document.addEventListener("click", async (e) => {
    const b = e.target instanceof Element ? e.target.closest("[data-account]") : null;
    if (!(b instanceof HTMLButtonElement) || b.disabled) return;
    b.disabled = true;
    try {
      if (b.dataset.account === "passkey") await addPasskey();
      else if (b.dataset.account === "signout") await signOut();
    } finally {
      b.disabled = false;
    }
  });
}

// ---- the sign-in page (/signin) --------------------------------------------------------------
/** Signed in: the session is kept and the page goes where the person was heading. */
function signedIn(doc) {
  keepSession(doc);
  sessionStorage.removeItem(CODE);
  localStorage.removeItem(NAME);
  const next = safeNext(localStorage.getItem(NEXT) || "/");
  localStorage.removeItem(NEXT);
  location.assign(next);
}

export async function signinPage() {
  document.title = t("Chronicle: sign in");
  const frag = takeFragment(); // the code is out of the address bar before anything else
  if (frag.code) sessionStorage.setItem(CODE, frag.code);
  const next = new URLSearchParams(location.search).get("next");
  if (next) localStorage.setItem(NEXT, safeNext(next));
  else if (!frag.code && !sessionStorage.getItem(CODE)) localStorage.removeItem(NEXT); // an old one
  const features = await serverFeatures();
  const app = $("#app");
  if (!features.accounts) {
    mount(app, html`<h1>${t("Sign in")}</h1><p>${t("This server has no accounts: play as a guest, with the seat links your tables give you.")} <a href="/">${t("To the lobby")}</a></p>`);
    return;
  }
  const code = sessionStorage.getItem(CODE);
  if (code) {
    finishForm(app, code);
    return;
  }
  const me = await whoAmI();
  if (me) accountPage(app, me, features);
  else startForm(app, features);
}

/** The mailed link was opened: one click (and a name, for a new account) finishes it. */
function finishForm(app, code) {
  mount(
    app,
    html`<h1>${t("Sign in")}</h1>
      <section class="card signin" aria-labelledby="finish-h">
        <h2 id="finish-h">${t("Finish signing in")}</h2>
        <form id="code-form">
          <p>${t("You opened the sign-in link we mailed you. It works once, for 15 minutes.")}</p>
          <div class="field">
            <label for="signin-name">${t("Your name")}</label>
            <input id="signin-name" name="name" maxlength="40" autocomplete="nickname" aria-describedby="signin-name-help" value="${localStorage.getItem(NAME) || ""}">
            <small id="signin-name-help" class="muted">${t("For a new account: the name others see at your tables (optional).")}</small>
          </div>
          <button type="submit" class="primary" id="code-send">${t("Sign in")}</button>
        </form>
        <p><a href="/signin" id="signin-again">${t("Ask for another link instead")}</a></p>
      </section>`,
  );
  $("#signin-again").onclick = () => sessionStorage.removeItem(CODE);
  const form = $("#code-form");
  form.onsubmit = async (e) => {
    e.preventDefault();
    const button = $("#code-send");
    button.disabled = true;
    /** @type {{ code: string, name?: string }} */
    const body = { code };
    const name = $("#signin-name").value.trim();
    if (name) body.name = name;
    try {
      signedIn(await api("/auth/email/verify?session=cookie", { method: "POST", body }));
    } catch (err) {
      button.disabled = false;
      if (err.status === 429) {
        notice(t("Too many tries: wait a minute, then try again."));
        return;
      }
      if (!err.status || err.status >= 500) {
        notice(t("Not signed in yet ({reason}): try again in a moment.", { reason: err.message }));
        return;
      }
      sessionStorage.removeItem(CODE);
      startForm(app, await serverFeatures(), t("This sign-in link was used already or has expired. Ask for a new one below."));
    }
  };
  $("#signin-name").focus();
}

/** Signed out: a link by email, or a passkey. */
function startForm(app, features, trouble = "") {
  mount(
    app,
    html`<h1>${t("Sign in")}</h1>
      ${trouble ? html`<p class="trouble" role="alert">${trouble}</p>` : ""}
      <p class="muted">${t("You can play without an account: seat links keep your seats in this browser. An account keeps them on every device, and lists your games in one place.")}</p>
      <div class="signin-ways">
        <section class="card signin" aria-labelledby="email-h">
          <h2 id="email-h">${t("With a link by email")}</h2>
          <form id="email-form">
            <div class="field">
              <label for="signin-email">${t("Email address")}</label>
              <input id="signin-email" name="email" type="email" autocomplete="email" required spellcheck="false">
            </div>
            <div class="field">
              <label for="signin-new-name">${t("Your name")}</label>
              <input id="signin-new-name" name="name" maxlength="40" autocomplete="nickname" aria-describedby="signin-new-name-help">
              <small id="signin-new-name-help" class="muted">${t("Only for a new account (optional): the name others see at your tables.")}</small>
            </div>
            <button type="submit" class="primary" id="email-send">${t("Email me a sign-in link")}</button>
          </form>
          <p id="email-sent" role="status"></p>
        </section>
        ${features.passkeys
          ? html`<section class="card signin" aria-labelledby="passkey-h">
              <h2 id="passkey-h">${t("With a passkey")}</h2>
              <p>${t("Once you have added a passkey to your account (from its menu), this device signs you in without a mail.")}</p>
              <button type="button" id="passkey-signin" ${passkeysHere() ? "" : "disabled"}>${t("Sign in with a passkey")}</button>
              ${passkeysHere() ? "" : html`<p class="muted">${t("This browser has no passkeys.")}</p>`}
            </section>`
          : ""}
      </div>`,
  );
  const form = $("#email-form");
  form.onsubmit = async (e) => {
    e.preventDefault();
    const button = $("#email-send");
    const email = $("#signin-email").value.trim();
    const name = $("#signin-new-name").value.trim();
    if (name) localStorage.setItem(NAME, name);
    else localStorage.removeItem(NAME);
    button.disabled = true;
    try {
      await api("/auth/email", { method: "POST", body: { email } });
      // the same words whether or not the address has an account (nothing to learn from it)
      $("#email-sent").textContent =
        t("A sign-in link is on its way to that address. Open it in this browser within 15 minutes; it works once.");
      document.body.dataset.mailSent = "yes";
    } catch (err) {
      notice(err.status === 429 ? t("Too many links asked for: wait a little, then try again.") : t("No link was sent: {reason}", { reason: err.message }));
    } finally {
      button.disabled = false;
    }
  };
  const pk = $("#passkey-signin");
  if (pk)
    pk.onclick = async () => {
      pk.disabled = true;
      try {
        signedIn(await passkeySignIn());
      } catch (e) {
        pk.disabled = false;
        notice(e.status ? t("Not signed in: {reason}", { reason: e.message }) : passkeyTrouble(e, false));
      }
    };
}

/** Signed in: the account (name, address), its passkeys, its games, signing out. */
async function accountPage(app, me, features) {
  document.title = t("Chronicle: your account");
  mount(
    app,
    html`<h1>${t("Your account")}</h1>
      <div class="signin-ways">
        <section class="card" aria-labelledby="profile-h">
          <h2 id="profile-h">${t("You")}</h2>
          <form id="name-form">
            <div class="field">
              <label for="account-name">${t("Your name")}</label>
              <input id="account-name" name="name" maxlength="40" required autocomplete="nickname" value="${me.name || ""}">
              <button type="submit" id="name-save">${t("Save")}</button>
            </div>
          </form>
          ${me.email ? html`<p class="muted">${t("Signed in with")} <span id="account-email">${me.email}</span> ${t("(only you see it).")}</p>` : ""}
          <p><button type="button" data-account="signout">${t("Sign out")}</button></p>
        </section>
        ${features.passkeys
          ? html`<section class="card" aria-labelledby="passkeys-h">
              <h2 id="passkeys-h">${t("Passkeys")}</h2>
              <p>${t("A passkey signs you in on this device (or wherever your password manager keeps it) without a mail.")}</p>
              <p id="passkey-count" aria-live="polite"></p>
              <button type="button" data-account="passkey">${t("Add a passkey on this device")}</button>
            </section>`
          : ""}
        <section class="card" aria-labelledby="push-h" id="push-card">
          <h2 id="push-h">${t("Notices on this device")}</h2>
          <p>${t("Your turn and the end of your games, shown by this browser even when no Chronicle page is open.")}</p>
          <p id="push-state" aria-live="polite"></p>
          <button type="button" id="push-on">${t("Notify me on this device")}</button>
          <button type="button" id="push-off" hidden>${t("Stop notices on this device")}</button>
        </section>
        <section class="card wide" aria-labelledby="notice-settings-h" id="notice-settings"></section>
        <section class="card wide" aria-labelledby="account-games-h">
          <h2 id="account-games-h">${t("My games")}</h2>
          <div id="account-games"><p class="muted">${t("Loading…")}</p></div>
        </section>
      </div>`,
  );
  $("#name-form").onsubmit = async (e) => {
    e.preventDefault();
    const name = $("#account-name").value.trim();
    if (!name) return;
    try {
      const r = await api("/me", { method: "PATCH", body: { name } });
      keepSession({ player: { id: me.id, name: (r && r.name) || name } });
      notice(t("Your name is saved."), "info");
      drawMenu();
    } catch (err) {
      notice(t("The name was not saved: {reason}", { reason: err.message }));
    }
  };
  countPasskeys();
  drawNoticeSettings($("#notice-settings"), me);
  wirePush();
  const games = await accountGames();
  drawAccountGames($("#account-games"), games);
  markMoves($("#account-games"), games); // a rated game's change to the rating, as the lobby
}

// ---- notices on this device (Web Push) -------------------------------------------------------
const PUSH_ID = "chronicle.push.id"; // this browser's subscription id at the server

const pushSupported = () =>
  typeof navigator !== "undefined" && "serviceWorker" in navigator && typeof PushManager !== "undefined" && typeof Notification !== "undefined";

/** The bytes of a base64url text (the server's VAPID key). */
function fromB64url(text) {
  const b = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

/** The service worker of the site (registered at boot; registered again if it was not). */
async function worker() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

/** Ask the browser's permission, subscribe with the server's key, keep the subscription at
 *  the server and turn push notices on: the whole of "Notify me on this device". */
export async function notifyOnThisDevice() {
  if (!pushSupported()) throw new Error(t("This browser cannot show notices from a site."));
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("The browser was not allowed to show notices: your browser's site settings can allow them."));
  const registration = await worker();
  const { public_key: key } = await api("/push/key");
  const wanted = fromB64url(key);
  let subscription = await registration.pushManager.getSubscription();
  const held = subscription && subscription.options && subscription.options.applicationServerKey;
  if (subscription && held && !new Uint8Array(held).every((b, i) => b === wanted[i])) {
    await subscription.unsubscribe(); // made with another key (another server at this address)
    subscription = null;
  }
  subscription ||= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: wanted });
  const made = await api("/me/push", { method: "POST", body: { subscription: subscription.toJSON() } });
  localStorage.setItem(PUSH_ID, made.id);
  await api("/me", { method: "PATCH", body: { notifications: { push: true } } });
}

/** Stop pushing to this browser (the account's other devices keep theirs). */
export async function stopOnThisDevice() {
  const id = localStorage.getItem(PUSH_ID);
  localStorage.removeItem(PUSH_ID);
  if (id) await api(`/me/push/${encodeURIComponent(id)}`, { method: "DELETE" }).catch((e) => { if (e.status !== 404) throw e; });
  if (pushSupported()) {
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = registration && (await registration.pushManager.getSubscription());
    if (subscription) await subscription.unsubscribe();
  }
}

function drawPush() {
  const state = document.getElementById("push-state");
  const on = document.getElementById("push-on");
  const off = document.getElementById("push-off");
  if (!state || !on || !off) return;
  if (!pushSupported()) {
    state.textContent = t("This browser cannot show notices from a site.");
    on.hidden = off.hidden = true;
    return;
  }
  const here = Boolean(localStorage.getItem(PUSH_ID)) && Notification.permission === "granted";
  state.textContent = here ? t("Notices are shown on this device.") : Notification.permission === "denied" ? t("This browser blocks notices from this site: its site settings can allow them.") : "";
  on.hidden = here;
  off.hidden = !here;
}

function wirePush() {
  drawPush();
  const on = document.getElementById("push-on");
  const off = document.getElementById("push-off");
  if (!(on instanceof HTMLButtonElement) || !(off instanceof HTMLButtonElement)) return;
  on.onclick = async () => {
    on.disabled = true;
    try {
      await notifyOnThisDevice();
      notice(t("Notices will show on this device."), "info");
    } catch (e) {
      notice(t("Notices could not be turned on: {reason}", { reason: e.message || e }));
    } finally {
      on.disabled = false;
      drawPush();
    }
  };
  off.onclick = async () => {
    off.disabled = true;
    try {
      await stopOnThisDevice();
      notice(t("This device shows no more notices."), "info");
    } catch (e) {
      notice(t("Notices could not be stopped: {reason}", { reason: e.message || e }));
    } finally {
      off.disabled = false;
      drawPush();
    }
  };
}

/** How many passkeys the account has, on the account page (GET /me/passkeys). */
async function countPasskeys() {
  const el = document.getElementById("passkey-count");
  if (!el) return;
  try {
    const r = await api("/me/passkeys");
    const n = ((r && r.passkeys) || []).length;
    el.textContent = n ? tn("Your account has one passkey.", "Your account has {count} passkeys.", n) : t("Your account has no passkey yet.");
  } catch {
    el.textContent = "";
  }
}

// ---- a player's public profile (/players/<id>) ------------------------------------------------
/** Name, games played, ratings (none yet); for a signed-in person, Block or Unblock. */
export async function profilePage() {
  const id = decodeURIComponent(location.pathname.split("/")[2] || "");
  const app = $("#app");
  let doc;
  try {
    doc = await api(`/players/${encodeURIComponent(id)}`);
  } catch (e) {
    document.title = t("Chronicle: no such player");
    mount(app, html`<h1>${t("No such player")}</h1><p>${e.status === 404 ? t("This account does not exist (or was deleted).") : e.message}</p><p><a href="/">${t("To the lobby")}</a></p>`);
    return;
  }
  document.title = `Chronicle: ${doc.name}`;
  const me = await whoAmI();
  let blocked = false;
  if (me && me.id !== doc.id) {
    const mine = await api("/me/blocks").catch(() => ({ blocks: [] }));
    blocked = mine.blocks.some((b) => b.id === doc.id);
  }
  const ratings = Object.entries(doc.ratings || {});
  mount(
    app,
    html`<h1 id="profile-name">${doc.name}</h1>
      <section class="card" aria-labelledby="profile-h">
        <h2 id="profile-h">${t("Public profile")}</h2>
        <p id="profile-games">${tn("{count} game played", "{count} games played", doc.games)}</p>
        <div>${ratings.length ? profileRatings(doc.ratings) : html`<span class="muted">${t("No ratings yet.")}</span>`}</div>
        ${me && me.id !== doc.id
          ? html`<p><button type="button" id="profile-block" data-blocked="${blocked ? "yes" : "no"}">${blocked ? t("Unblock") : t("Block")}</button>
              <span class="muted">${t("A blocked player's chat lines are hidden for you, and they cannot join the tables you create.")}</span></p>
              <div id="profile-invite" class="profile-invite" hidden></div>`
          : ""}
      </section>`,
  );
  const button = document.getElementById("profile-block");
  if (button)
    button.onclick = async () => {
      const on = button.dataset.blocked !== "yes";
      try {
        await api(`/me/blocks/${encodeURIComponent(doc.id)}`, { method: on ? "PUT" : "DELETE" });
        button.dataset.blocked = on ? "yes" : "no";
        button.textContent = on ? t("Unblock") : t("Block");
        notice(on ? t("{name} is blocked.", { name: doc.name }) : t("{name} is no longer blocked.", { name: doc.name }), "info");
      } catch (e) {
        notice(e.message);
      }
    };
  const inviting = document.getElementById("profile-invite"); // this visitor's waiting tables
  if (inviting) await drawInviteToMyTable(inviting, doc, await accountGames("waiting"));
}

// ---- start ----------------------------------------------------------------------------------
async function boot() {
  await ready; // the page's words (i18n.js) before any is drawn
  // the service worker makes the site an installable app and shows pushed notices (sw.js)
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  wireActions();
  wireMenu(document.getElementById("account"));
  // another tab signed in or out: this page's menu follows
  window.addEventListener("storage", (e) => {
    if (e.key === "chronicle.session") drawMenu();
  });
  window.addEventListener("chronicle-session", () => drawMenu());
  if (location.pathname === "/signin") {
    const page = () => signinPage().catch((e) => notice(e.message || String(e)));
    // the link opened where the sign-in page is open already: only the fragment changes
    window.addEventListener("hashchange", () => {
      if (new URLSearchParams(location.hash.slice(1)).get("code")) page();
    });
    await page();
  } else if (location.pathname.startsWith("/players/")) {
    await profilePage().catch((e) => notice(e.message || String(e)));
  } else {
    await whoAmI(); // the menu shows who the server says is signed in
  }
  await drawMenu();
}

if (typeof document !== "undefined" && document.getElementById("account")) boot();
