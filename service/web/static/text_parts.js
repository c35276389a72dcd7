// Small pieces the text view (reader.js) and its per-game texts share: a data table with a
// caption and header cells, a section with its heading, and a plain list.  Everything goes
// through the escaping html template; nothing here scrolls sideways (a table wraps its words; on a phone a
// table of five columns or more shows each row as lines).
import { t } from "./i18n.js";
import { html } from "./ui.js";

/** A table a screen reader can walk: a caption, column headers, each row's first cell its
 *  header.  ``rows`` are arrays of cells (text or html).
 *  @param {import("./ui.js").Content} caption
 *  @param {string[]} heads
 *  @param {import("./ui.js").Content[][]} rows
 *  @param {{ cls?: string }} [options] */
export function dataTable(caption, heads, rows, { cls = "" } = {}) {
  // five columns or more: on a phone each row is a block of "label: value" lines (wide.css)
  const wide = heads.length >= 5 ? " wide" : "";
  return html`<table class="reader-table${wide}${cls ? " " + cls : ""}">
    <caption>${caption}</caption>
    <thead><tr>${heads.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr>${r.map((x, j) => (j === 0 ? html`<th scope="row">${x}</th>` : html`<td data-label="${heads[j]}">${x}</td>`))}</tr>`,
    )}</tbody>
  </table>`;
}

/** A titled part of the text view: a region named by its heading (level 3, or 4 inside).
 *  @param {string} id
 *  @param {import("./ui.js").Content} title
 *  @param {import("./ui.js").Content} body
 *  @param {3 | 4} [level] */
export function part(id, title, body, level = 3) {
  const h = level === 4 ? html`<h4 id="${id}-h">${title}</h4>` : html`<h3 id="${id}-h">${title}</h3>`;
  return html`<section id="${id}" class="reader-part" aria-labelledby="${id}-h">${h}${body}</section>`;
}

/** A plain list of words (``empty`` when there is nothing).
 *  @param {import("./ui.js").Content[]} items
 *  @param {string} [empty] */
export function list(items, empty) {
  return items.length ? html`<ul>${items.map((x) => html`<li>${x}</li>`)}</ul>` : html`<p>${empty ?? t("none")}</p>`;
}

/** "a, b and c" (in the page's language: 「a、bとc」)
 *  @param {(string | null | undefined)[]} items */
export function and(items) {
  const xs = items.filter((x) => x != null && x !== "");
  if (xs.length <= 1) return xs.join("");
  return t("{first} and {last}", { first: xs.slice(0, -1).join(t(", ")), last: xs[xs.length - 1] });
}
