// Chronicle's service worker (served at /sw.js, scope "/"): it makes the pages an installable
// app and shows the notices the server pushes (service/push.py), even with no tab open.
//
// It has no fetch handler: every request goes to the network as without it (the pages are
// revalidated on each load, and a stale copy of a table would mislead).  A push message is
// the JSON {title, body, url} the server encrypted for this browser (RFC 8291; the browser
// decrypts it before this runs); a click on the notice focuses a window already on that
// table, else takes a window of this site there, else opens one.  Only a path of this site
// is ever opened, whatever the message says.
/* eslint-env serviceworker */
// Type-checked apart from the pages, with the service worker's own globals (tsconfig.sw.json).
/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self);

sw.addEventListener("install", () => sw.skipWaiting());
sw.addEventListener("activate", (event) => event.waitUntil(sw.clients.claim()));

/** A path of this site to open for a notice (never another origin). */
function tablePath(url) {
  try {
    const u = new URL(String(url || "/"), sw.location.origin);
    return u.pathname + u.search;
  } catch {
    return "/";
  }
}

sw.addEventListener("push", (event) => {
  let doc = {};
  try {
    doc = event.data ? event.data.json() : {};
  } catch {
    doc = { body: event.data ? event.data.text() : "" };
  }
  const path = tablePath(doc.url);
  event.waitUntil(
    sw.registration.showNotification(String(doc.title || "Chronicle"), {
      body: String(doc.body || ""),
      icon: "/assets/icon.svg",
      badge: "/assets/icon-turn.svg",
      tag: path, // a newer notice of the same table replaces the older one
      data: { path },
    }),
  );
});

/** Focus the window on ``path``, else take one of this site's windows there, else open one. */
async function openTable(path) {
  const url = new URL(path, sw.location.origin).href;
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = windows.find((c) => new URL(c.url).pathname === new URL(url).pathname);
  if (same) return same.focus();
  const ours = windows.find((c) => new URL(c.url).origin === sw.location.origin);
  if (ours) {
    const there = await ours.navigate(url);
    await (there || ours).focus().catch(() => undefined); // focus needs the click's activation
    return there || ours;
  }
  return sw.clients.openWindow(url);
}

// a property (not addEventListener) so that the handler is one function a test can call
sw.onnotificationclick = (event) => {
  event.notification.close();
  event.waitUntil(openTable(tablePath((event.notification.data || {}).path)));
};
