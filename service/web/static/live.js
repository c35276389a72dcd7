// Live updates of one game: Server-Sent Events on /stream when the server has it (a one-minute
// ticket from /stream-ticket, so no token is ever in a URL), otherwise the long-poll
// GET /events?after=N&wait=S that every server has (short waits, so an undo, which appends
// nothing, shows within a few seconds).  Either way the callbacks receive
// onEvents(events, version), onUndo(version), onChat(line, via) and onStatus(version).
// Table chat (when the server has it) comes the same way: `event: chat` on the stream, from
// the last line held (?chat_after=, so nothing said while it reconnects is lost), or, while
// the page polls, GET /chat?after= beside each long-poll.  A hide comes as the line again,
// without its text.
import { api } from "./api.js";

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

  async stream() {
    this.setMode("stream");
    let url = `/api/v1/games/${this.id}/stream?after=${this.after}`;
    if (this.features.chat) url += `&chat_after=${this.chat}`;
    try {
      if (this.token) {
        const t = await api(`/games/${this.id}/stream-ticket`, { method: "POST", token: this.token });
        url += `&ticket=${encodeURIComponent(t.ticket)}`;
      }
    } catch {
      this.poll();
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
    es.addEventListener("status", (e) => this.h.onStatus(parse(e).version));
    es.onerror = () => {
      // A ticket lasts a minute: reconnect with a fresh one, resuming after what we have.
      es.close();
      if (!this.stopped) setTimeout(() => this.stream(), 1000);
    };
  }

  async poll() {
    this.setMode("poll");
    while (!this.stopped) {
      await this.pollChat();
      this.abort = new AbortController();
      try {
        const r = await api(`/games/${this.id}/events?after=${this.after}&wait=4&limit=1000`, {
          token: this.token,
          signal: this.abort.signal,
        });
        if (this.stopped) return;
        if (r.version < this.after) {
          this.after = r.version;
          this.h.onUndo(r.version);
        } else if (r.events.length) {
          this.seen(r.events[r.events.length - 1].version);
          this.h.onEvents(r.events, r.version);
        }
      } catch (e) {
        if (this.stopped) return;
        await sleep(e.status === 429 ? 5000 : 2000);
      }
    }
  }
}
