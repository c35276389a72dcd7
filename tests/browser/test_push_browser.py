"""The installable app in Chromium: the service worker registers at ``/sw.js`` with the whole
site as its scope, the web manifest the pages link to is valid, and a push message delivered
to the service worker shows a notification whose click takes the site's window to the table.

What is real and what is simulated: the push message is delivered by Chromium itself through
the DevTools protocol (``ServiceWorker.deliverPushMessage``), so the worker's real ``push``
event runs and calls ``showNotification``; the test reads the notification back with
``self.registration.getNotifications()`` in the worker.  A click on a system notification
cannot be made from a test, so the click is simulated: the worker's own
``onnotificationclick`` handler is called, in the worker, with the real notification and an
event object whose ``waitUntil`` hands back the handler's promise (a synthetic
``NotificationEvent`` would be untrusted, and its ``waitUntil`` throws).  What it does then
is real: it finds the site's open window and navigates it to the table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.browser.conftest import Console
from tests.support.accounts import Stack, accounts_stack

API = "/api/v1"
READY_JS = """async () => {
  const r = await navigator.serviceWorker.ready;
  return { script: r.active && r.active.scriptURL, scope: r.scope };
}"""
MANIFEST_JS = """async () => {
  const link = document.querySelector('link[rel="manifest"]');
  const r = await fetch(link.href);
  return { href: link.href, type: r.headers.get("content-type"), text: await r.text() };
}"""
NOTIFICATIONS_JS = """async () => (await self.registration.getNotifications()).map(
  (n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }))"""
CLICK_JS = """async () => {
  const [n] = await self.registration.getNotifications();
  let done = null;
  self.onnotificationclick({ notification: n, waitUntil: (p) => { done = p; } });
  await done;
  return (await self.registration.getNotifications()).length;
}"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("push-web")) as found:
        yield found


def a_table(stack: Stack) -> str:
    body: dict[str, Any] = {"game": "artus", "players": [{"name": "Bob"}, {"name": "Ann"}]}
    r = requests.post(stack.base + API + "/games", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def registration_id(cdp: Any, page: Any, scope: str) -> str:
    """The id Chromium gives the site's service worker registration (DevTools protocol)."""
    found: dict[str, str] = {}

    def updated(event: dict[str, Any]) -> None:
        for reg in event.get("registrations", []):
            if reg.get("scopeURL") == scope and not reg.get("isDeleted"):
                found["id"] = reg["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    for _ in range(600):  # up to 30 s: a loaded machine
        if "id" in found:
            return found["id"]
        page.wait_for_timeout(50)
    raise AssertionError("no registration reported for the site's scope")


def shown_notice(worker: Any, page: Any, seconds: float = 30.0) -> Any:
    """The notifications the service worker shows, once it shows one (a loaded machine may take
    seconds to run the push event)."""
    for _ in range(int(seconds / 0.05)):
        shown = worker.evaluate(NOTIFICATIONS_JS)
        if shown:
            return shown
        page.wait_for_timeout(50)
    raise AssertionError(f"no notification shown within {seconds} s of the push")


def test_the_app_installs_and_a_pushed_notice_opens_its_table(
    browser: Any, console: Console, stack: Stack
) -> None:
    ctx = browser.new_context()
    try:
        ctx.grant_permissions(["notifications"], origin=stack.public)
        page = console.watch(ctx.new_page(), "lobby")
        page.goto(stack.public + "/")
        ready = page.evaluate(READY_JS)
        assert ready == {"script": f"{stack.public}/sw.js", "scope": f"{stack.public}/"}

        got = page.evaluate(MANIFEST_JS)
        assert got["href"] == f"{stack.public}/assets/manifest.webmanifest"
        assert got["type"].startswith("application/manifest+json")
        manifest = json.loads(got["text"])
        assert manifest["name"] == "Chronicle" and manifest["short_name"]
        assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
        assert manifest["scope"] == "/"
        for icon in manifest["icons"]:
            r = requests.get(stack.base + icon["src"], timeout=10)
            assert r.status_code == 200 and r.headers["Content-Type"] == icon["type"]
        csp = requests.get(stack.base + "/", timeout=10).headers["Content-Security-Policy"]
        assert "worker-src 'self'" in csp and "manifest-src 'self'" in csp

        # the page is controlled once the worker has claimed it
        page.reload()
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        [worker] = ctx.service_workers
        cdp = ctx.new_cdp_session(page)
        reg = registration_id(cdp, page, f"{stack.public}/")
        table = a_table(stack)
        notice = {
            "title": "Your turn in Artus",
            "body": "It is your turn in Artus with Bob (version 7).",
            "url": f"{stack.public}/play/{table}",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": stack.public, "registrationId": reg, "data": json.dumps(notice)},
        )
        shown = shown_notice(worker, page)
        assert shown == [
            {
                "title": notice["title"],
                "body": notice["body"],
                "tag": f"/play/{table}",
                "data": {"path": f"/play/{table}"},
            }
        ]

        left = worker.evaluate(CLICK_JS)  # the simulated click (see the module's docstring)
        assert left == 0, "the clicked notice is closed"
        page.wait_for_url(f"{stack.public}/play/{table}")
        page.wait_for_selector("#app h1, #app .table, #app [data-game]", timeout=10_000)
        assert table in page.url
        assert console.errors == []
    finally:
        ctx.close()


def test_a_notice_from_elsewhere_opens_only_this_site(
    browser: Any, console: Console, stack: Stack
) -> None:
    """A message's url of another origin is taken as a path of this site."""
    ctx = browser.new_context()
    try:
        ctx.grant_permissions(["notifications"], origin=stack.public)
        page = console.watch(ctx.new_page(), "lobby")
        page.goto(stack.public + "/")
        page.evaluate(READY_JS)
        page.reload()
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        [worker] = ctx.service_workers
        cdp = ctx.new_cdp_session(page)
        reg = registration_id(cdp, page, f"{stack.public}/")
        table = a_table(stack)
        notice = {"title": "t", "body": "b", "url": f"https://evil.example/play/{table}"}
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": stack.public, "registrationId": reg, "data": json.dumps(notice)},
        )
        shown_notice(worker, page)
        worker.evaluate(CLICK_JS)
        page.wait_for_url(f"{stack.public}/play/{table}")
        assert console.errors == []
    finally:
        ctx.close()
