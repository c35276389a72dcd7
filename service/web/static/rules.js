// Links to a game's rules for players.  The rules page itself (/rules/<game>) is rendered by the
// server with an anchor per rule id (AR-3, KC-5.2, LA-2.1): these helpers only build links to it,
// so the client holds none of the rules.  A refused move's notice links to the rule it broke
// (the server names it in the refusal's details.rule).
import { t } from "./i18n.js";
import { html, mount, notice } from "./ui.js";

const RULE_ID = /^[A-Z]{2}-\d+(?:\.\d+)*$/;

/** "/rules/artus", or "/rules/artus#AR-3" when ``rule`` is a rule id (anything else is ignored),
 *  in the page's language (``<html lang>``, which i18n.js sets: the player's choice). */
export function rulesHref(game, rule) {
  const lang = typeof document === "undefined" ? "" : document.documentElement.lang;
  const page = `/rules/${encodeURIComponent(game)}${["ja", "zh-TW"].includes(lang) ? `?lang=${lang}` : ""}`;
  return typeof rule === "string" && RULE_ID.test(rule) ? `${page}#${rule}` : page;
}

/** The notice of a move the server refused: its message, and a link to the rule it names. */
export function refusalNotice(game, err) {
  const rule = err && err.details ? err.details.rule : null;
  const text = t("Refused: {reason}", { reason: err.message });
  notice(text);
  const el = document.getElementById("notice");
  if (!el || !(typeof rule === "string" && RULE_ID.test(rule))) return;
  mount(
    el,
    html`${text} <a class="rule-link" href="${rulesHref(game, rule)}" target="_blank"
      rel="noopener">${t("Read rule {rule}", { rule })}</a>`,
  );
}
