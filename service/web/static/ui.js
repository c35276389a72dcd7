// Small DOM helpers: escaped HTML templates (no inline script or style anywhere), notices.
import { formatDate, t } from "./i18n.js";

/** Markup already escaped (what html`...` returns): part() puts it in as it is. */
export class Raw {
  /** @param {string} s */
  constructor(s) {
    this.s = s;
  }
  toString() {
    return this.s;
  }
}
/** @param {unknown} s */
export const raw = (s) => new Raw(String(s));

/** @type {Record<string, string>} */
const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** @param {unknown} v */
export const esc = (v) => String(v).replace(/[&<>"']/g, (c) => ESC[c]);

/** What a template may hold: text (escaped), markup, a list of them, or nothing.
 *  @typedef {Raw | string | number | boolean | null | undefined | Content[]} Content */

/** @param {Content} v
 *  @returns {string} */
function part(v) {
  if (v == null || v === false) return "";
  if (v instanceof Raw) return v.s;
  if (Array.isArray(v)) return v.map(part).join("");
  return esc(v);
}

/** html`<p>${text}</p>`: every interpolation is escaped unless it is raw() or html`...`.
 *  @param {TemplateStringsArray} strings
 *  @param {...Content} vals
 *  @returns {Raw} */
export function html(strings, ...vals) {
  let out = strings[0];
  vals.forEach((v, i) => {
    out += part(v) + strings[i + 1];
  });
  return new Raw(out);
}
export const svg = html;

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** @template {Element} E
 *  @param {E} el
 *  @param {Content} content
 *  @returns {E} */
export function mount(el, content) {
  el.innerHTML = part(content);
  return el;
}

let noticeTimer = null;
/** A message for everyone (role=alert): errors stay until the next one or a click. */
export function notice(text, kind = "error") {
  const el = document.getElementById("notice");
  if (!el) return;
  el.textContent = text;
  delete el.dataset.kinds;
  el.className = kind;
  el.hidden = false;
  clearTimeout(noticeTimer);
  if (kind !== "error") noticeTimer = setTimeout(() => (el.hidden = true), 4000);
  el.onclick = () => (el.hidden = true);
}
export function clearNotice() {
  const el = document.getElementById("notice");
  if (el) el.hidden = true;
}

export function fmtTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return formatDate(d, { hour: "2-digit", minute: "2-digit", second: "2-digit" }); // the page's language
}

/** A duration in words, its two largest units: "1 d 2 h", "2 min 5 s", "40 s".
 *  @param {number} ms */
export function spoken(ms) {
  let s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) return t("{d} d {h} h", { d, h });
  if (h) return t("{h} h {m} min", { h, m });
  if (m) return t("{m} min {s} s", { m, s });
  return t("{s} s", { s });
}

/** "2 min 5 s left" / "1 d 4 h left" until an ISO time ("time is up" once past).
 *  @param {string} iso */
export function until(iso, now = Date.now()) {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  if (!Number.isFinite(s)) return "";
  if (s <= 0) return t("time is up");
  return t("{left} left", { left: spoken(s * 1000) });
}

export async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    if (button) {
      const old = button.textContent;
      button.textContent = t("Copied");
      setTimeout(() => (button.textContent = old), 1500);
    }
  } catch {
    notice(t("Copy this link by hand: select the field and copy it."), "info");
  }
}

/** Keyboard for SVG board items: Enter or Space acts like a click. */
export function keyClicks(root) {
  root.addEventListener("keydown", (e) => {
    const t = e.target.closest && e.target.closest("[data-key]");
    if (t && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      t.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    }
  });
}

/** @param {number} n
 *  @param {string} one
 *  @param {string} [many] */
export const plural = (n, one, many = one + "s") => `${n} ${n === 1 ? one : many}`;

/** The line every seat and every joiner sees at a table whose host chose the seed (the
 *  summary's seed_chosen): whoever knows the seed can know every hidden card. */
export const seedChosenNote = (summary) =>
  summary && summary.seed_chosen
    ? html`<p class="seed-chosen" role="note">${t("The host chose the deal (a fixed seed): they may know every hidden card.")}</p>`
    : "";

/** Like mount, but patches the existing nodes in place (attributes, text) and replaces only
 *  the nodes that changed kind.  A board redrawn this way keeps every unchanged SVG text node,
 *  so the browser lays out only what moved (SVG text layout dominates a redraw), and keyboard
 *  focus stays where it was. */
/** @template {Element} E
 *  @param {E} el
 *  @param {Content} content
 *  @returns {E} */
export function morph(el, content) {
  const tpl = document.createElement("template");
  tpl.innerHTML = part(content);
  patch(el, tpl.content);
  return el;
}

/** @param {Node} a
 *  @param {Node} b */
function patch(a, b) {
  const want = [...b.childNodes];
  for (let i = 0; i < want.length; i++) {
    const x = a.childNodes[i];
    const y = want[i];
    if (!x) {
      a.appendChild(y);
    } else if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName) {
      a.replaceChild(y, x);
    } else if (x.nodeType !== 1) {
      if (x.nodeValue !== y.nodeValue) x.nodeValue = y.nodeValue;
    } else if (!x.isEqualNode(y)) {
      const xe = /** @type {Element} */ (x);
      const ye = /** @type {Element} */ (y);
      for (const { name, value } of [...ye.attributes]) {
        if (xe.getAttribute(name) !== value) xe.setAttribute(name, value);
      }
      for (const { name } of [...xe.attributes]) if (!ye.hasAttribute(name)) xe.removeAttribute(name);
      patch(x, y);
    }
  }
  while (a.childNodes.length > want.length) a.removeChild(a.lastChild);
}

/** Asks before an action that cannot be taken back: a native modal <dialog> (the browser
 *  keeps the focus inside it and Escape cancels), the safe choice focused first, the focus
 *  back where it was afterwards.  Resolves true only for the confirming button.
 *  @param {Content} question
 *  @param {{ yes?: Content, no?: Content, detail?: Content }} [options]
 *  @returns {Promise<boolean>} */
export function confirmStep(question, { yes, no = t("Cancel"), detail = "" } = {}) {
  return new Promise((resolve) => {
    const back = /** @type {HTMLElement | null} */ (document.activeElement);
    const d = document.createElement("dialog");
    d.className = "confirm";
    d.setAttribute("aria-labelledby", "confirm-q");
    mount(
      d,
      html`<form method="dialog">
        <p id="confirm-q" class="confirm-q">${question}</p>
        ${detail ? html`<p class="muted">${detail}</p>` : ""}
        <div class="confirm-buttons">
          <button value="no" id="confirm-no" autofocus>${no}</button>
          <button value="yes" id="confirm-yes" class="danger">${yes}</button>
        </div>
      </form>`,
    );
    document.body.appendChild(d);
    d.addEventListener("close", () => {
      const ok = d.returnValue === "yes";
      d.remove();
      if (back && back.isConnected && back.focus) back.focus();
      resolve(ok);
    });
    d.showModal();
    /** @type {HTMLElement} */ (d.querySelector("#confirm-no")).focus();
  });
}

/** A short two-note tone made in the page (WebAudio: no sound file, nothing fetched). */
let audio = null;
export function tone() {
  try {
    audio ||= new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const t = audio.currentTime;
    const gain = audio.createGain();
    gain.connect(audio.destination);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.35);
    const osc = audio.createOscillator();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, t);
    osc.frequency.setValueAtTime(880, t + 0.12);
    osc.connect(gain);
    osc.start(t);
    osc.stop(t + 0.36);
    return true;
  } catch {
    return false; // no audio here: the title and the icon still say it
  }
}
