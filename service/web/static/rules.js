// Links to a game's rules for players.  The rules page itself (/rules/<game>) is rendered by the
// server with an anchor per rule id (AR-3, KC-5.2, LA-2.1): these helpers only build links to it,
// so the client holds none of the rules.  A refused move's notice links to the rule it broke
// (the server names it in the refusal's details.rule).
import { html, mount, notice } from "./ui.js";

const RULE_ID = /^[A-Z]{2}-\d+(?:\.\d+)*$/;

/** "/rules/artus", or "/rules/artus#AR-3" when ``rule`` is a rule id (anything else is ignored). */
export function rulesHref(game, rule) {
  const page = `/rules/${encodeURIComponent(game)}`;
  return typeof rule === "string" && RULE_ID.test(rule) ? `${page}#${rule}` : page;
}

/** The notice of a move the server refused: its message, and a link to the rule it names. */
export function refusalNotice(game, err) {
  const rule = err && err.details ? err.details.rule : null;
  const text = `Refused: ${err.message}`;
  notice(text);
  const el = document.getElementById("notice");
  if (!el || !(typeof rule === "string" && RULE_ID.test(rule))) return;
  mount(
    el,
    html`${text} <a class="rule-link" href="${rulesHref(game, rule)}" target="_blank"
      rel="noopener">Read rule ${rule}</a>`,
  );
}
