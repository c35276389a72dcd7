// The text view for screen readers (issue 43): the table without the board.  The state as
// structured text (headings, lists and tables, from the view as the boards read it: the
// server's redaction is the only one), every new event said in words in a polite live region
// (the renderers' describeEvent, the same words as the log), and every legal move from
// GET .../actions as a real button in a grouped list, with a box to find one.  A toggle on the
// table page, a skip link at the top of the page and ?reader=1 turn it on; the choice is
// remembered in this browser.  The client holds no rules: the moves are the server's list.
import { t, tn } from "./i18n.js";
import { clocksWords, readAll } from "./clocks.js";
import { and } from "./text_parts.js";
import { $, fmtTime, html, morph, mount } from "./ui.js";

const KEY = "chronicle.reader";
const TEXTS = {
  artus: () => import("./artus_text.js"),
  "kings-and-castles": () => import("./kings_and_castles_text.js"),
  lancaster: () => import("./lancaster_text.js"),
};
const SAID = 40; // the lines the live region keeps (it only ever adds: each one is spoken once)
const FIND_FROM = 13; // more moves than this: a box finds them by words

/** Plain words from a renderer's text (a string, or html`...` whose markup is dropped). */
export function plain(x) {
  if (x && typeof x === "object" && "s" in x) {
    const t = document.createElement("template");
    t.innerHTML = x.s;
    return t.content.textContent.replace(/\s+/g, " ").trim();
  }
  return String(x ?? "");
}

/** Whether the text view is on: ?reader=1 / ?reader=0 decide (and are remembered), else the
 *  choice remembered in this browser. */
function wanted() {
  const q = new URLSearchParams(location.search).get("reader");
  if (q === "1" || q === "0") {
    try {
      localStorage.setItem(KEY, q === "1" ? "on" : "off");
    } catch {
      /* storage refused: the parameter still holds for this page */
    }
    return q === "1";
  }
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

export class Reader {
  /** ``hooks``: ``r`` (the game's renderer), ``send(action, button)`` (the table's one way to
   *  send a move; it resolves once the page has read the table again).
   *  @param {string} game
   *  @param {{ r: import("./common.js").Renderer, send: (action: import("./common.js").Action, button: HTMLElement) => Promise<unknown> }} hooks */
  constructor(game, hooks) {
    this.game = game;
    this.r = hooks.r;
    this.send = hooks.send;
    /** @type {import("./common.js").TextView | null} */
    this.text = null;
    this.c = null;
    this.version = null; // the last version drawn (a lower one: an undo)
    this.wasMine = false;
    this.heardTop = null; // the last version the live region has said (or skipped)
    this.turnAt = null; // a "Your turn" to say once the log reaches this version
    this.othersMoved = false; // another seat (or the game) moved since the last draw
    this.movesKey = "";
    this.refocus = false;
    this.setup();
    if (wanted()) this.turnOn();
  }

  setup() {
    const skip = document.createElement("a");
    skip.id = "reader-skip";
    skip.className = "skip-link";
    skip.href = "#reader";
    skip.textContent = t("Text view for screen readers");
    skip.addEventListener("click", (e) => {
      e.preventDefault();
      this.turnOn();
      $("#reader-h").focus();
    });
    document.body.prepend(skip);

    const b = document.createElement("button");
    b.type = "button";
    b.id = "reader-toggle";
    b.className = "small";
    b.textContent = t("Text view for screen readers");
    b.title = t("The board as headings, lists and tables; every move a button; each event said aloud");
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      if (this.on) this.turnOff();
      else {
        this.turnOn();
        $("#reader-h").focus();
      }
      try {
        localStorage.setItem(KEY, this.on ? "on" : "off");
      } catch {
        /* not remembered: it still holds for this page */
      }
    });
    const links = $(".head-links");
    if (links) links.prepend(b);

    const s = document.createElement("section");
    s.id = "reader";
    s.className = "reader";
    s.hidden = true;
    s.setAttribute("aria-labelledby", "reader-h");
    mount(
      s,
      html`<h2 id="reader-h" tabindex="-1">${t("The game in words")}</h2>
        <section class="reader-part" aria-labelledby="reader-said-h">
          <h3 id="reader-said-h">${t("Just now")}</h3>
          <p class="small muted">${t("Each move is said here as it happens, newest last.")}</p>
          <div id="reader-said-box" class="reader-said" role="log" aria-live="polite" aria-labelledby="reader-said-h" tabindex="0"><ol id="reader-said"></ol></div>
        </section>
        <section id="reader-turn" class="reader-part" aria-labelledby="reader-turn-h">
          <h3 id="reader-turn-h">${t("Whose turn")}</h3><p id="reader-turn-p"></p>
        </section>
        <section id="reader-moves" class="reader-part" aria-labelledby="reader-moves-h">
          <h3 id="reader-moves-h" tabindex="-1">${t("Your moves")}</h3>
          <div id="reader-find-box" class="reader-find" hidden>
            <label for="reader-find">${t("Find a move")}</label>
            <input id="reader-find" type="search" autocomplete="off" spellcheck="false" aria-describedby="reader-find-n">
            <p id="reader-find-n" class="small" role="status"></p>
          </div>
          <div id="reader-moves-list"></div>
        </section>
        <div id="reader-state"></div>`,
    );
    const wrap = $("#board-wrap");
    if (wrap) wrap.prepend(s);
    $("#reader-moves-list").addEventListener("click", (e) => {
      const btn = e.target.closest("button.reader-act");
      if (btn && !btn.disabled) this.pick(btn);
    });
    $("#reader-find").addEventListener("input", () => this.find());
  }

  get on() {
    return document.body.classList.contains("reader-on");
  }

  turnOn() {
    document.body.classList.add("reader-on");
    $("#reader").hidden = false;
    $("#reader-toggle").setAttribute("aria-pressed", "true");
    // One voice: the log and the turn line would say each change a second time.
    for (const id of ["log", "turn"]) {
      const el = document.getElementById(id);
      if (el) el.setAttribute("aria-live", "off");
    }
    this.movesKey = "";
    if (!this.text) {
      const load = TEXTS[this.game];
      if (!load) return;
      load().then((m) => {
        this.text = m.default;
        this.redraw();
      });
    } else this.redraw();
  }

  turnOff() {
    document.body.classList.remove("reader-on");
    $("#reader").hidden = true;
    $("#reader-toggle").setAttribute("aria-pressed", "false");
    for (const id of ["log", "turn"]) {
      const el = document.getElementById(id);
      if (el) el.setAttribute("aria-live", "polite");
    }
  }

  /** Each table draw: the view's version, the turn, the moves and the state in words. */
  draw(c, summary) {
    const v = c.view.version;
    const mine = c.status === "active" && (c.actions || []).length > 0;
    if (this.version == null) this.heardTop = v; // what came before the page is not said
    else if (v < this.version) {
      if (this.on) this.say(t("Taken back: the game is back at version {version}.", { version: String(v) }), v, "undo");
      this.heardTop = v;
    }
    // "Your turn" when the turn comes to this seat, and again after anyone else's move; said
    // once the log has said the moves that led to it (the stream may bring them after the view)
    // (a turn still waiting for its moves to be said moves on to this version: said once, here)
    if (!mine) this.turnAt = null;
    else if (!this.wasMine || this.othersMoved || this.turnAt != null) this.turnAt = v;
    // moves heard that this draw does not show yet: the draw that shows them decides
    if (this.heardTop == null || this.heardTop <= v) this.othersMoved = false;
    this.version = v;
    this.wasMine = mine;
    this.c = c;
    this.summary = summary;
    this.redraw();
    this.turnSaid();
  }

  turnSaid() {
    // said when the log has said exactly the moves that led to the version drawn: behind it,
    // the stream is still bringing them; past it, a newer draw is coming and says it then
    if (this.turnAt == null || this.heardTop !== this.turnAt || !this.c) return;
    const n = (this.c.actions || []).length;
    if (this.on && n) this.say(tn("Your turn: {count} legal move.", "Your turn: {count} legal moves.", n), this.turnAt, "turn");
    this.turnAt = null;
  }

  redraw() {
    if (!this.on || !this.text || !this.c) return;
    const c = this.c;
    morph($("#reader-turn-p"), this.turnWords(c));
    this.drawMoves(c);
    morph($("#reader-state"), this.text.sections(c.view.state, c));
  }

  /** New events (the table's log just got them): each said in words, in order. */
  heard(events, c) {
    if (!events || !events.length) return;
    let others = false;
    for (const e of events) {
      if (this.on) this.say(plain(this.r.describeEvent(e, c)), e.version, "event");
      if (e.seat !== c.you) others = true;
      this.heardTop = Math.max(this.heardTop ?? 0, e.version);
    }
    if (others) {
      if (this.version == null || this.heardTop > this.version) {
        // moves the page has not drawn yet: the next draw decides whether the turn is ours
        this.turnAt = null;
        this.othersMoved = true;
      } else if (this.wasMine) this.turnAt = this.version; // the page shows our turn after them
    }
    this.turnSaid();
  }

  say(text, version, kind) {
    const ol = $("#reader-said");
    if (!ol || !text) return;
    const li = document.createElement("li");
    li.textContent = text;
    li.dataset.version = version;
    li.dataset.kind = kind;
    ol.appendChild(li);
    while (ol.children.length > SAID) ol.firstElementChild.remove();
    const box = ol.parentElement;
    box.scrollTop = box.scrollHeight; // the newest line in sight
  }

  turnWords(c) {
    const v = c.view;
    const n = c.names;
    if (v.status === "finished") {
      const res = v.result;
      if (!res) return t("The game is over.");
      const who = and(res.winners.map((s) => n[s]));
      return res.winners.length > 1 ? t("The game is over. Shared win: {names}.", { names: who }) : t("The game is over. Winner: {names}.", { names: who });
    }
    if (v.status === "waiting") return t("Waiting for players to join.");
    if (v.status === "scoring") return t("The game is being scored.");
    if (v.status === "abandoned") return t("The host abandoned this game.");
    const deadlines = v.deadlines || (this.summary && this.summary.deadlines) || {};
    const mine = (c.actions || []).length > 0;
    const others = v.to_act.filter((s) => s !== c.you).map((s) => n[s]);
    const read = readAll(v, this.summary);
    const clock = v.to_act
      .filter((s) => deadlines[s] && !read.length)
      .map((s) => (s === c.you ? t("you must move by {time}", { time: fmtTime(deadlines[s]) }) : t("{name} must move by {time}", { name: n[s], time: fmtTime(deadlines[s]) })));
    const also = others.length ? (mine ? t("Also {names}.", { names: others.join(t(", ")) }) : t("Waiting for {names}.", { names: others.join(t(", ")) })) + " " : "";
    const moves = mine ? tn("({count} legal move).", "({count} legal moves).", c.actions.length) + " " : "";
    return html`${mine ? html`<b>${t("Your turn")}</b> ${moves}` : ""}${also}${clock.length ? `${t("{list}.", { list: clock.join(t("; ")) })} ` : ""}${read.length ? `${clocksWords(read, n, c.you, fmtTime)} ` : ""}${c.you == null ? t("You are watching.") + " " : ""}${t("{phase}; version {version}.", { phase: cap(plain(this.r.phase(v.state, c))), version: String(v.version) })}`;
  }

  drawMoves(c) {
    const acts = c.actions || [];
    const key = JSON.stringify([c.view.version, c.view.status, acts]);
    const heading = $("#reader-moves-h");
    heading.textContent = acts.length ? t("Your moves ({count})", { count: acts.length }) : t("Your moves");
    if (key === this.movesKey) return;
    this.movesKey = key;
    const el = $("#reader-moves-list");
    const groups = new Map();
    acts.forEach((a, i) => {
      const g = this.text.groupOf ? this.text.groupOf(a, c.view.state, c) : [].concat(this.r.groupOf(a)).filter(Boolean).join(" ");
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(i);
    });
    const none =
      c.you == null
        ? t("You are watching: players act from their seat links.")
        : c.view.status === "active"
          ? t("Nothing to do now: it is another seat's move.")
          : t("No moves.");
    let k = 0;
    mount(
      el,
      acts.length
        ? [...groups].map(([g, is]) => {
            const id = `reader-g${k++}`;
            return html`<h4 id="${id}" class="reader-group">${t("{group} ({count})", { group: g, count: is.length })}</h4>
              <ul class="reader-acts" aria-labelledby="${id}">${is.map(
                (i) => html`<li><button type="button" class="reader-act" data-i="${i}">${plain(this.r.describeAction(acts[i], c))}</button></li>`,
              )}</ul>`;
          })
        : html`<p>${none}</p>`,
    );
    $("#reader-find-box").hidden = acts.length < FIND_FROM;
    this.find();
    if (this.refocus) {
      // the button pressed is gone with its version: the list's heading takes the focus
      this.refocus = false;
      heading.focus();
    }
  }

  /** The box narrows the list to the moves whose words hold every word typed. */
  find() {
    const box = $("#reader-find");
    const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    const el = $("#reader-moves-list");
    let shown = 0;
    let all = 0;
    for (const ul of el.querySelectorAll("ul.reader-acts")) {
      let inGroup = 0;
      for (const li of ul.children) {
        const t = li.textContent.toLowerCase();
        const ok = words.every((w) => t.includes(w));
        li.hidden = !ok;
        if (ok) inGroup++;
        all++;
      }
      shown += inGroup;
      ul.hidden = !inGroup;
      const h = ul.previousElementSibling;
      if (h) h.hidden = !inGroup;
    }
    const n = $("#reader-find-n");
    const text = !words.length ? "" : shown ? t("{shown} of {all} moves match.", { shown, all }) : tn("No move matches; {count} move in all.", "No move matches; {count} moves in all.", all);
    if (n.textContent !== text) n.textContent = text;
  }

  async pick(btn) {
    const acts = (this.c && this.c.actions) || [];
    const a = acts[Number(btn.dataset.i)];
    if (!a) return;
    this.refocus = true;
    const box = $("#reader-find");
    if (box.value) box.value = ""; // it found this move; the next list is a new one
    for (const b of document.querySelectorAll("#reader-moves-list button")) /** @type {HTMLButtonElement} */ (b).disabled = true;
    try {
      await this.send(a, btn);
    } finally {
      // a refused move leaves the same list: drawn again, its buttons enabled
      if (this.c && document.querySelector("#reader-moves-list button:disabled")) {
        this.movesKey = "";
        this.drawMoves(this.c);
      }
      this.refocus = false;
    }
  }
}

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
