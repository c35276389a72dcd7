// The one entry point: picks the page from the path.  No framework, no build, no dependency.
import { ready, t } from "./i18n.js";
import { notice } from "./ui.js";

/** @type {[RegExp, (id: string) => Promise<unknown>][]} */
const routes = [
  [/^\/$/, () => import("./lobby.js").then((m) => m.lobby())],
  [/^\/play\/([^/]+)$/, (id) => import("./table.js").then((m) => m.table(id))],
  [/^\/join\/([^/]+)$/, (id) => import("./lobby.js").then((m) => m.join(id))],
  [/^\/replay\/([^/]+)$/, (id) => import("./replay.js").then((m) => m.replay(id))],
];

async function start() {
  await ready; // the page's words (i18n.js) before any is drawn
  for (const [re, page] of routes) {
    const m = location.pathname.match(re);
    if (m) {
      try {
        await page(m[1] && decodeURIComponent(m[1]));
      } catch (e) {
        notice(e.message || String(e));
        document.getElementById("app").textContent = t("This page could not be shown.");
      }
      return;
    }
  }
  document.getElementById("app").textContent = t("No such page.");
}

start();
