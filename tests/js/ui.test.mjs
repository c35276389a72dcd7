// ui.js: the html`` template escapes what it is given (the client's only defence against a
// player's name or a chat line that holds markup), and morph() patches the page in place.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HOSTILE, client, dom } from "./support.mjs";

const { html, raw, esc, mount, morph, Raw, plural, until } = await client("ui.js");
const { plain } = await client("reader.js");

test("every interpolation is escaped, in text and in attributes", () => {
  const out = String(html`<p title="${HOSTILE}">${HOSTILE}</p>`);
  assert.ok(!out.includes("<script"), out);
  assert.ok(!out.includes("<img"), out);
  assert.ok(!/title="[^"]*"[^>]*onerror/.test(out), out);
  const p = dom(out).querySelector("p");
  assert.equal(p.textContent, HOSTILE); // the name reads as typed
  assert.equal(p.getAttribute("title"), HOSTILE);
  assert.equal(p.children.length, 0);
  assert.equal(esc(`'"&<>`), "&#39;&quot;&amp;&lt;&gt;");
});

test("lists are joined and escaped item by item; null, undefined and false draw nothing", () => {
  const items = ["<b>", html`<i>${"&"}</i>`, null, undefined, false, 0];
  assert.equal(String(html`${items}`), "&lt;b&gt;<i>&amp;</i>0");
});

test("nested html`` and raw() go in as they are, once: nothing is escaped twice", () => {
  const inner = html`<b>${"a&b"}</b>`;
  assert.ok(inner instanceof Raw);
  assert.equal(String(html`<p>${inner}</p>`), "<p><b>a&amp;b</b></p>");
  assert.equal(String(html`${raw("<hr>")}`), "<hr>");
});

test("mount puts escaped markup in an element", () => {
  const el = document.createElement("div");
  mount(el, html`<span>${HOSTILE}</span>`);
  assert.equal(el.querySelectorAll("script, img").length, 0);
  assert.equal(el.textContent, HOSTILE);
});

test("morph keeps the nodes that did not change and patches the rest", () => {
  const el = document.createElement("div");
  const draw = (cls, second, extra) =>
    html`<ul><li class="${cls}">one</li><li>${second}</li></ul><svg viewBox="0 0 9 9"><text x="1">t</text></svg>${extra ? html`<p>${extra}</p>` : ""}`;
  morph(el, draw("a", "two", "more"));
  const li = el.querySelector("li");
  const svgText = el.querySelector("text").firstChild;
  morph(el, draw("b", "three", ""));
  assert.equal(el.querySelector("li"), li, "the same <li>, its class patched");
  assert.equal(li.getAttribute("class"), "b");
  assert.equal(el.querySelector("text").firstChild, svgText, "an unchanged SVG text node is kept");
  assert.equal(el.querySelectorAll("li")[1].textContent, "three");
  assert.equal(el.querySelector("p"), null, "what the new markup lacks is removed");
  morph(el, html`<ul><li>one</li></ul>`);
  assert.equal(el.querySelector("li").hasAttribute("class"), false, "a dropped attribute is removed");
  assert.equal(el.innerHTML, "<ul><li>one</li></ul>");
});

test("plain() reads markup as words and anything else as a string", () => {
  assert.equal(plain(html`<p>a <b>${"<x>"}</b></p>\n  <svg><text>hi</text></svg>`), "a <x> hi");
  assert.equal(plain("a <b>"), "a <b>");
  assert.equal(plain(null), "");
});

test("plural and until say numbers in words", () => {
  assert.equal(plural(1, "move"), "1 move");
  assert.equal(plural(2, "move"), "2 moves");
  assert.equal(plural(2, "party", "parties"), "2 parties");
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(until("2026-01-01T00:02:05Z", now), "2 min 5 s left");
  assert.equal(until("2026-01-02T04:00:00Z", now), "1 d 4 h left");
  assert.equal(until("2025-12-31T23:59:00Z", now), "time is up");
  assert.equal(until("not a time", now), "");
});
