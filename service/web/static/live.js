// Live updates of one game: Server-Sent Events on /stream when the server has it (a one-minute
// ticket from /stream-ticket, so no token is ever in a URL), otherwise the long-poll
// GET /events?after=N&wait=S that every server has (short waits, so an undo, which appends
// nothing, shows within a few seconds).  Either way the callbacks receive
// onEvents(events, version), onUndo(version), onChat(line, via) and onStatus(version, {status, to_act}), and
// onResync() when the stream or the poll is back after a break (the page reads the table again).
// Neither gives up while the page is open: each retries with a backoff.
// Table chat (when the server has it) comes the same way: `event: chat` on the stream, from
// the last line held (?chat_after=, so nothing said while it reconnects is lost), or, while
// the page polls, GET /chat?after= beside each long-poll.  A hide comes as the line again,
// without its text.
import { api, backoff } from "./api.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Live {
  constructor(id, token, features, handlers) {
    this.id = id;
    this.token = token;
    this.features = features;
    this.h = handlers;
    this.after = 0;
    this.chat = 0; // the last chat line id received
    this.stopped = false;
    this.mode = "none";
  }

  start(after) {
    this.after = after;
    if (this.features.stream) this.stream();
    else this.poll();
  }

  setMode(mode) {
    this.mode = mode;
    document.body.dataset.live = mode; // which channel the page follows (tests, support)
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.es) this.es.close();
    if (this.abort) this.abort.abort();
  }

  seen(version) {
    this.after = Math.max(this.after, version);
  }

  heard(line, via) {
    if (!line || typeof line.id !== "number") return;
    this.chat = Math.max(this.chat, line.id);
    if (this.h.onChat) this.h.onChat(line, via);
  }

  /** The chat lines after the last one held (poll mode, or right after saying one). */
  async pollChat() {
    if (!this.features.chat) return;
    try {
      const r = await api(`/games/${this.id}/chat?after=${this.chat}`, { token: this.token });
      for (const line of r.lines || []) this.heard(line, "poll");
    } catch {
      /* chat is optional; the next round tries again */
    }
  }

  /** The stream (or the poll) is back after a break: the page reads the table again, in
   *  case a change came while it was away (an undo the resume cannot show, a status). */
  resynced() {
    if (this.h.onResync) this.h.onResync();
  }

  async stream() {
    this.setMode("stream");
    let url = `/api/v1/games/${this.id}/stream?after=${this.after}`;
    if (this.features.chat) url += `&chat_after=${this.chat}`;
    try {
      if (this.token) {
        const t = await api(`/games/${this.id}/stream-ticket`, { method: "POST", token: this.token });
        url += `&ticket=${encodeURIComponent(t.ticket)}`;
      }
    } catch (e) {
      if (this.stopped) return;
      if (e.status === 404 || e.status === 405) {
        this.poll(); // no stream here after all: the long-poll every server has
        return;
      }
      this.broke(); // a network error or a busy server: try the stream again, later
      return;
    }
    if (this.stopped) return;
    const es = new EventSource(url);
    this.es = es;
    const parse = (e) => {
      try {
        return JSON.parse(e.data);
      } catch {
        return {};
      }
    };
    es.onopen = () => {
      if (this.breaks) this.resynced();
      this.breaks = 0;
    };
    es.addEventListener("events", (e) => {
      const d = parse(e);
      this.seen(d.version || 0);
      this.h.onEvents(d.events || [], d.version);
    });
    es.addEventListener("undo", (e) => {
      const d = parse(e);
      this.after = d.version;
      this.h.onUndo(d.version);
    });
    es.addEventListener("chat", (e) => this.heard(parse(e), "stream"));
    es.addEventListener("status", (e) => {
      const d = parse(e);
      this.h.onStatus(d.version, d);
    });
    es.onerror = () => {
      // A ticket lasts a minute, a stream an hour, and a network drops: reconnect with a
      // fresh ticket, resuming after what we have (the browser's own retry would reuse the
      // spent ticket).
      es.close();
      this.broke();
    };
  }

  /** The stream broke: reconnect after a backoff (1 s, doubling up to 15 s, reset once a
   *  stream opens), forever while the page is open. */
  broke() {
    if (this.stopped) return;
    this.breaks = (this.breaks || 0) + 1;
    const wait = backoff(this.breaks - 1, 1000, 15000, 300);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.stream(), wait);
  }

  async poll() {
    this.setMode("poll");
    let failures = 0;
    while (!this.stopped) {
      await this.pollChat();
      this.abort = new AbortController();
      try {
        const r = await api(`/games/${this.id}/events?after=${this.after}&wait=4&limit=1000`, {
          token: this.token,
          signal: this.abort.signal,
        });
        if (this.stopped) return;
        if (failures) this.resynced();
        failures = 0;
        if (r.version < this.after) {
          this.after = r.version;
          this.h.onUndo(r.version);
        } else if (r.events.length) {
          this.seen(r.events[r.events.length - 1].version);
          this.h.onEvents(r.events, r.version);
        }
      } catch {
        if (this.stopped) return;
        failures++;
        await sleep(backoff(failures - 1, 1000, 15000));
      }
    }
  }
}
