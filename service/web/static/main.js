// The one entry point: picks the page from the path.  No framework, no build, no dependency.
import { notice } from "./ui.js";

/** @type {[RegExp, (id: string) => Promise<unknown>][]} */
const routes = [
  [/^\/$/, () => import("./lobby.js").then((m) => m.lobby())],
  [/^\/play\/([^/]+)$/, (id) => import("./table.js").then((m) => m.table(id))],
  [/^\/join\/([^/]+)$/, (id) => import("./lobby.js").then((m) => m.join(id))],
  [/^\/replay\/([^/]+)$/, (id) => import("./replay.js").then((m) => m.replay(id))],
];

async function start() {
  for (const [re, page] of routes) {
    const m = location.pathname.match(re);
    if (m) {
      try {
        await page(m[1] && decodeURIComponent(m[1]));
      } catch (e) {
        notice(e.message || String(e));
        document.getElementById("app").textContent = "This page could not be shown.";
      }
      return;
    }
  }
  document.getElementById("app").textContent = "No such page.";
}

start();
