"""The players' languages (contract: v2 additions, Languages): which one a request gets, and the
words of the API's messages in each.

- **Which language.** The account's ``locale`` when the caller is signed in, else the first
  language of ``Accept-Language`` (by its quality values) that we have, else English.  Tags
  are matched by language and script or region: ``ja-JP`` is ``ja``; ``zh-TW``, ``zh-Hant``
  (any region), ``zh-HK``, ``zh-MO`` and a bare ``zh`` are ``zh-TW`` (the one Chinese we
  have, Traditional); ``zh-CN``, ``zh-SG`` and ``zh-Hans`` are not: a reader who asked for
  Simplified gets their next language, else English (docs/adr/0011-languages.md).
- **The words.** gettext catalogues (``translations/<locale>/LC_MESSAGES/messages.po``, made
  with Babel from ``messages.pot``; the compiled ``.mo`` files are committed beside them, and
  a test fails when one is older than its ``.po``).  English is the source language: its
  messages are the detailed ones the service raises; in Japanese and Chinese, a refusal's
  message is its code's (or its reason's, or its rule's) sentence below, with the rule's
  clause title from the players' rules in that language.  Codes, ids and details never change.

This module has no I/O of its own beyond reading the catalogues once; the HTTP side (the
request's language, ``Content-Language``) is ``service.http.languages``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from babel import Locale
from babel.messages.mofile import read_mo
from babel.support import NullTranslations, Translations
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

LANGUAGES = ("en", "ja", "zh-TW")  # the contract's; the first is the default
DEFAULT = LANGUAGES[0]
TRANSLATIONS = Path(__file__).with_name("translations")
DOMAIN = "messages"
CLIENT_DOMAIN = "client"  # the web client's words (service/web/static/i18n.js)
# The games' words in the client (move texts, the text view, the boards): their own catalogue,
# served merged with the client's (one JSON per language; the keys never overlap, babel.cfg
# and babel_games.cfg extract disjoint files).
CLIENT_DOMAINS = (CLIENT_DOMAIN, "client_games")

# Language tags (lower case) that name one of ours; anything else falls through.
_TRADITIONAL = ("zh-tw", "zh-hant", "zh-hk", "zh-mo")
_SIMPLIFIED = ("zh-cn", "zh-sg", "zh-hans")


def N_(message: str) -> str:  # gettext's name for "mark for extraction"
    """Marks a message for the catalogues (pybabel extract); translated when it is used."""
    return message


def supported(tag: str | None) -> str | None:
    """One of ``LANGUAGES`` for a language tag, or None: ``ja-JP`` -> ``ja``,
    ``zh-Hant-HK`` -> ``zh-TW``, ``zh-CN`` -> None, ``fr`` -> None."""
    if not tag:
        return None
    t = tag.strip().replace("_", "-").lower()
    if t in ("en", "ja", "zh"):
        return {"en": "en", "ja": "ja", "zh": "zh-TW"}[t]
    if t.startswith(_SIMPLIFIED):
        return None
    if t.startswith(_TRADITIONAL):
        return "zh-TW"
    if t.startswith("en-"):
        return "en"
    if t.startswith("ja-"):
        return "ja"
    return None


def negotiate(header: str | None) -> str | None:
    """The best of our languages that ``Accept-Language`` asks for (werkzeug parses it and
    orders it by quality), or None if it asks for none of them (or for ``*`` only)."""
    if not header:
        return None
    for tag, quality in parse_accept_header(header, LanguageAccept):
        if quality > 0 and (found := supported(tag)) is not None:
            return found
    return None


def chosen(locale: str | None, accept_language: str | None) -> str:
    """The contract's order: the account's locale, else Accept-Language, else English."""
    return supported(locale) or negotiate(accept_language) or DEFAULT


def gettext_name(lang: str) -> str:
    """The catalogue's directory name, Babel's locale identifier (``Locale.parse``, as
    flask-babel looks it up): ``ja`` -> ``ja``, ``zh-TW`` -> ``zh_Hant_TW``."""
    return str(Locale.parse(lang, sep="-"))


@cache
def translations(lang: str, domain: str = DOMAIN) -> NullTranslations:
    """The compiled catalogue ``domain`` of ``lang`` (English: none, the messages are
    English)."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [gettext_name(lang)], domain)


def gettext(lang: str, message: str, **params: object) -> str:
    """``message`` in ``lang``, its ``%(name)s`` placeholders filled with ``params`` (the
    same as ``flask_babel.gettext`` does in a request)."""
    text = translations(lang).gettext(message)
    return text % params if params else text


def game_word(lang: str, message: str) -> str:
    """A word of the games' client catalogue (``client_games``) in ``lang``, itself where it
    has none: where a notice names what the page names (``service.card_words``)."""
    return translations(lang, CLIENT_DOMAINS[1]).gettext(message)


@cache
def client_json(lang: str) -> bytes:
    """The client's catalogue of ``lang`` as the JSON ``i18n.js`` reads (``/i18n/<lang>.json``):
    ``{"lang", "messages": {english: text, or [forms] for a plural, keyed by its singular}}``,
    from the compiled ``client.mo`` and ``client_games.mo`` merged (English: no messages, the
    keys are the words)."""
    messages: dict[str, str | list[str]] = {}
    for domain in CLIENT_DOMAINS:
        path = TRANSLATIONS / gettext_name(lang) / "LC_MESSAGES" / f"{domain}.mo"
        if lang == DEFAULT or not path.is_file():
            continue
        with path.open("rb") as f:
            for m in read_mo(f):
                if not m.id or not m.string:
                    continue
                if isinstance(m.id, (list, tuple)):
                    messages[str(m.id[0])] = [str(s) for s in m.string]
                else:
                    messages[str(m.id)] = str(m.string)
    doc = {"lang": lang, "messages": messages}
    return json.dumps(doc, ensure_ascii=False, sort_keys=True).encode()


# The sentence of each error code, for a caller whose language is not English (the English
# message stays the detailed one the service wrote).
CODE_MESSAGES: dict[str, str] = {
    "bad_request": N_("The request is not valid: %(fields)s."),
    "unauthorized": N_("This needs a valid token: sign in, or open your seat's link."),
    "forbidden": N_("You may not do this now."),
    "not_found": N_("There is nothing here: no such game or page."),
    "method_not_allowed": N_("This address does not take this method."),
    "version_conflict": N_(
        "The game has moved on (it is at version %(version)s): reload and try again."
    ),
    "undo_refused": N_("This move cannot be taken back."),
    "seat_taken": N_("That seat is already taken."),
    "game_not_waiting": N_("The game has started: nobody joins any more."),
    "csrf_failed": N_("The page's security check is missing: reload the page."),
    "insufficient_scope": N_("This token may only read, not play."),
    "seat_claimed": N_("Another account holds this seat."),
    "turn_timed_out": N_("The turn ran out of time before this move arrived."),
    "game_not_finished": N_("A review is offered only for a finished game."),
    "vacations_off": N_("The host allowed no vacations at this table."),
    "on_vacation": N_("This seat is on vacation already."),
    "not_on_vacation": N_("This seat is not on vacation."),
    "precondition_failed": N_("The game has moved on since you loaded it: reload."),
    "request_timeout": N_("The request did not arrive in time."),
    "payload_too_large": N_("The request is too large."),
    "uri_too_long": N_("The address is too long."),
    "illegal_action": N_("The rules do not allow this."),
    "idempotency_key_reused": N_("This Idempotency-Key was used before for another request."),
    "rate_limited": N_("Too many requests: try again in a moment."),
    "headers_too_large": N_("The request's headers are too large."),
    "internal": N_("Something went wrong on our side; it has been logged."),
    "unavailable": N_("The game store is unavailable; try again shortly."),
    "storage_full": N_("The game store is full; nothing was saved."),
}
BAD_REQUEST_PLAIN = N_("The request is not valid.")
REFUSED = N_("This was refused.")  # a code outside the table (never expected)
# A move the rules refuse: the rule id and the clause's title in the player's language.
BROKEN_RULE = N_("%(rule)s: the rules do not allow this move (%(title)s).")
BROKEN_RULE_PLAIN = N_("%(rule)s: the rules do not allow this move.")

# ``details.reason`` of 403 ``forbidden`` and 409 ``undo_refused``: one sentence each.
REASONS: dict[str, str] = {
    "not_your_turn": N_("It is not your turn."),
    "game_over": N_("The game is over: no more moves are taken."),
    "not_started": N_("The game has not started yet."),
    "not_a_player": N_("Only the players' seats may do this."),
    "not_host": N_("Only the host may do this."),
    "not_an_open_seat": N_("This seat was named when the game was made: it cannot be left."),
    "seat_open": N_("This seat is open: join it instead."),
    "played_by_bot": N_("This seat is played by a bot."),
    "no_deadline": N_("This seat has no running clock."),
    "not_due": N_("This seat still has time on its clock."),
    "too_many_tokens": N_("You have too many tokens: revoke one first."),
    "invitation_required": N_("This table is private: join it with an invitation."),
    "bad_invitation": N_("The invitation is not valid for this table."),
    "blocked": N_("The host of this table does not take you at it."),
    "rated_needs_account": N_("A rated table's seats are taken signed in."),
    "rated_one_seat": N_("You already hold a seat at this rated table."),
    "game_finished": N_("A finished game is never undone."),
    "not_allowed": N_("This game's undo rule does not allow this."),
    "nothing_to_undo": N_("There is nothing to take back."),
    "other_seat_acted": N_("Another player has moved since: it can no longer be taken back."),
    "to_version_required": N_("Say which move to go back to (to_version)."),
    "undo_disabled": N_("This game has no undo."),
    "hidden_information_revealed": N_(
        "Something hidden was revealed since: it can no longer be taken back."
    ),
    "bad_version": N_("The game cannot go back to that version."),
    "not_finished": N_("The game is not finished yet."),
    "not_your_seat": N_("Only this seat's player may do this."),
    "host_not_signed_in": N_("Invitations come from a host who is signed in."),
}

# The words of the rules page (``/rules/<game>``, service.web) around the rules themselves.
RULES_PAGE_WORDS = {
    "language": N_("Language"),
    "contents": N_("Contents"),
    "developers": N_("For developers:"),
    "digest_name": N_("the rules digest"),
    "digest_says": N_("(action ids, the public view)."),
    "back": N_("Back to the lobby"),
}

# The language switcher's names, each in its own language (also the client's).
LANGUAGE_NAMES = {"en": "English", "ja": "日本語", "zh-TW": "繁體中文"}
