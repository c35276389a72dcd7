// The account's notice settings (contract: Notices to people): email on or off, each kind,
// reminders before a deadline, the daily digest, quiet hours and the time zone they are read
// in; one form, saved with one PATCH /me.  Push is switched per device by its own card
// (account.js), as a subscription belongs to a browser, not to the account.
import { api } from "./api.js";
import { N_, t } from "./i18n.js";
import { $, html, mount, notice } from "./ui.js";

/** Reminders the form offers: how long before a deadline (ISO 8601), "" for none. */
const REMINDERS = [
  ["", N_("No reminders")],
  ["PT1H", N_("1 hour before")],
  ["PT6H", N_("6 hours before")],
  ["PT12H", N_("12 hours before")],
  ["P1D", N_("1 day before")],
];
/** The kinds a person may switch one by one, with their words. */
const KINDS = [
  ["your_turn", N_("When it is my turn")],
  ["game_over", N_("When a game of mine ends")],
  ["invitations", N_("When a host invites me to a seat")],
];

/** The browser's time zone (IANA), the form's default for an account with none. */
const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
};

/** The settings card, filled from ``me`` (GET /me) and wired to save.
 *  @param {HTMLElement} el @param {any} me */
export function drawNoticeSettings(el, me) {
  const n = me.notifications || {};
  const quiet = n.quiet_hours || null;
  const zone = me.timezone || browserZone();
  const reminders = REMINDERS.some(([v]) => v === (n.reminders || "")) ? n.reminders || "" : n.reminders;
  mount(
    el,
    html`<h2 id="notice-settings-h">${t("Notices by email")}</h2>
      <form id="notice-form">
        <p class="field"><label><input type="checkbox" id="n-email" ${n.email ? "checked" : ""}> ${t("Send me notices by email")}</label></p>
        <fieldset>
          <legend>${t("What to send (by email, and on the devices where notices are on)")}</legend>
          ${KINDS.map(([k, words]) => html`<p class="field"><label><input type="checkbox" data-kind="${k}" ${n[k] !== false ? "checked" : ""}> ${t(words)}</label></p>`)}
          <p class="field"><label for="n-reminders">${t("A reminder before a deadline")}</label>
            <select id="n-reminders">${REMINDERS.map(([v, words]) => html`<option value="${v}" ${v === reminders ? "selected" : ""}>${t(words)}</option>`)}${reminders && !REMINDERS.some(([v]) => v === reminders) ? html`<option value="${reminders}" selected>${reminders}</option>` : ""}</select></p>
          <p class="small muted">${t("A turn's notice waits a minute: a turn you play at the table is not sent.")}</p>
        </fieldset>
        <p class="field"><label><input type="checkbox" id="n-digest" ${n.digest ? "checked" : ""}> ${t("One daily digest instead of single messages")}</label></p>
        <fieldset>
          <legend>${t("Quiet hours")}</legend>
          <p class="field"><label><input type="checkbox" id="n-quiet" ${quiet ? "checked" : ""}> ${t("Nothing alone at night: what comes then waits for the digest")}</label></p>
          <p class="field"><label for="n-from">${t("From")}</label> <input type="time" id="n-from" value="${quiet ? quiet.from : "22:00"}">
            <label for="n-to">${t("to")}</label> <input type="time" id="n-to" value="${quiet ? quiet.to : "08:00"}"></p>
        </fieldset>
        <p class="field"><label for="n-zone">${t("Your time zone")}</label>
          <input id="n-zone" value="${zone}" autocomplete="off" spellcheck="false" aria-describedby="n-zone-hint">
          <span id="n-zone-hint" class="small muted">${t("As Europe/Paris or Asia/Tokyo: quiet hours, reminders and the digest go by it.")}</span></p>
        <button type="submit" id="n-save">${t("Save notices")}</button>
      </form>`,
  );
  $("#notice-form").onsubmit = async (e) => {
    e.preventDefault();
    const body = { notifications: settingsFromForm(), timezone: $("#n-zone").value.trim() || null };
    const button = $("#n-save");
    button.disabled = true;
    try {
      await api("/me", { method: "PATCH", body });
      notice(t("Your notices are saved."), "info");
    } catch (err) {
      notice(t("The notices were not saved: {reason}", { reason: err.message }));
    } finally {
      button.disabled = false;
    }
  };
}

/** The form as the contract's ``notifications`` object (push is the device card's). */
function settingsFromForm() {
  /** @type {Record<string, unknown>} */
  const out = { email: $("#n-email").checked, digest: $("#n-digest").checked };
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("#notice-form [data-kind]"))) {
    out[box.dataset.kind || ""] = box.checked;
  }
  out.reminders = $("#n-reminders").value || null;
  out.quiet_hours = $("#n-quiet").checked ? { from: $("#n-from").value, to: $("#n-to").value } : null;
  return out;
}
