"""An error body's ``message`` in the request's language (contract: v2 additions, Languages).

English keeps the service's detailed text; Japanese and Chinese get the sentence of the
refusal's rule (its clause title from the players' rules in that language:
``service.http.docs``), reason or code.  Codes and ``details`` never change.  The language is
the request's (``service.http.languages``); the cookie sessions' refusals, made outside Flask,
are given ``translated_for`` when the app is built (``service.app``).
"""

from __future__ import annotations

from typing import Any

from service import i18n
from service.http import docs
from service.http.languages import language, language_of

_RULE_GAMES = {"AR": "artus", "KC": "kings-and-castles", "LA": "lancaster"}


def translated(code: str, message: str, details: dict[str, Any] | None) -> str:
    """An error's ``message`` in the request's language (English: ``message`` itself)."""
    return message_in(language(), code, message, details)


def translated_for(environ: dict[str, Any], code: str, message: str) -> str:
    """As ``translated``, for an answer made outside Flask (the cookie sessions' refusals)."""
    return message_in(language_of(environ), code, message, None)


def message_in(lang: str, code: str, message: str, details: dict[str, Any] | None) -> str:
    """An error's ``message`` in ``lang``: English keeps the service's own words."""
    if lang == i18n.DEFAULT:
        return message
    details = details or {}
    rule, reason = details.get("rule"), details.get("reason")
    if code == "illegal_action" and isinstance(rule, str):
        title = rule_title(rule, lang)
        if title:
            return i18n.gettext(lang, i18n.BROKEN_RULE, rule=rule, title=title)
        return i18n.gettext(lang, i18n.BROKEN_RULE_PLAIN, rule=rule)
    if isinstance(reason, str) and reason in i18n.REASONS:
        return i18n.gettext(lang, i18n.REASONS[reason])
    if code == "bad_request":
        fields = ", ".join(sorted(str(k) for k in details))
        if not fields:
            return i18n.gettext(lang, i18n.BAD_REQUEST_PLAIN)
        return i18n.gettext(lang, i18n.CODE_MESSAGES[code], fields=fields)
    if code == "version_conflict":
        version = details.get("current_version", "?")
        return i18n.gettext(lang, i18n.CODE_MESSAGES[code], version=version)
    if code in i18n.CODE_MESSAGES:
        return i18n.gettext(lang, i18n.CODE_MESSAGES[code])
    return i18n.gettext(lang, i18n.REFUSED)


def rule_title(rule: str, lang: str) -> str | None:
    """The title of rule ``rule``'s clause in the players' rules in ``lang`` (without its id),
    or None: ``KC-5.2`` in Japanese -> the Japanese heading of that section."""
    game = _RULE_GAMES.get(rule.split("-", 1)[0])
    found = docs.players_rules(game, lang) if game else None
    if found is None or found[0] != lang:
        return None
    parts = rule.split(".")
    for depth in range(len(parts), 0, -1):  # KC-5.2.1 -> KC-5.2 -> KC-5
        wanted = ".".join(parts[:depth])
        for _, anchor, words in found[1].sections:
            if anchor == wanted:
                return words.replace(f"({wanted})", "").strip() or None
    return None
