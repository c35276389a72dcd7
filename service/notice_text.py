"""The words of a notice: its subject and lines, the mail's text and HTML (contract: v2
additions, Notices to people), in the account's language.

Made from the seat's redacted view only (the view ``GET .../view`` gives that seat) and the
public names of the table: the game, the other players, the version, the seat's own hand where
the game has one, and the table's link ``<public>/play/<id>`` (no token: the account's cookie
plays it).  The kinds of notice are named here; ``service.notices`` decides when each is sent.

**Languages.**  Every sentence is a ``messages`` catalogue entry (``N_`` here, translated with
``service.i18n.gettext`` when used: a worker has no request, so not flask-babel's), with
``%(name)s`` placeholders so that Japanese and Chinese put the words in their own order.  The
language is the account's ``locale`` (none: English).  Moments are written by Babel in that
locale and the account's time zone, lists and scores by Babel too.  What stays as it is in
every language: names (the site's, the game's as the catalog gives it, the players'), versions
and seat numbers.  The cards of a hand are said as the table page says them, in the page's own
words for them (``service.card_words``).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_time
from babel.lists import format_list
from babel.numbers import format_decimal

from projections.views import SEAT, Caller
from service import catalog, i18n
from service.card_words import card_words
from service.i18n import N_
from service.loading import Current

if TYPE_CHECKING:
    from domain.engine import Game
    from service.chronicle import Chronicle

YOUR_TURN, GAME_OVER = "your_turn", "game_over"
REMINDER, INVITATION = "reminder", "invitation"  # service.reminders, service.invitations
ENGLISH = i18n.DEFAULT

# The sentences (``%(name)s`` placeholders: each language puts them where it needs them).
TURN_SUBJECT = N_("Your turn in %(game)s")
TURN_LINE = N_("It is your turn in %(game)s with %(players)s (version %(version)s).")
HAND_LINE = N_("Your hand: %(cards)s.")
REMINDER_SUBJECT = N_("Your time in %(game)s runs out soon")
REMINDER_LINE = N_("Your turn in %(game)s with %(players)s ends at %(when)s.")
OVER_SUBJECT = N_("%(game)s is over")
OVER_LINE = N_("Your game of %(game)s with %(players)s is over.")
SEAT_NAME = N_("seat %(n)s")  # a seat nobody named: counted from 1, as the pages do
NO_RESULT = N_("It ended without a result.")
WON_BY = N_("Won by %(winners)s.")
NOBODY_WON = N_("Nobody won.")
WITH_SCORES = N_("%(won)s Scores: %(scores)s.")
A_SCORE = N_("%(name)s %(score)s")
OPEN_TABLE = N_("Open the table")
OPEN_TABLE_AT = N_("Open the table: %(link)s")
STOP = N_("Your mail program's Unsubscribe turns these emails off; so do your notice settings.")


def language(locale: str | None) -> str:
    """The language of an account's notices: its ``locale``, else English."""
    return i18n.supported(locale) or ENGLISH


def say(lang: str, message: str, **params: object) -> str:
    """``message`` in ``lang`` with its placeholders filled (``service.i18n.gettext``)."""
    return i18n.gettext(lang, message, **params)


def babel_locale(lang: str) -> Locale:
    """Babel's locale of one of ``i18n.LANGUAGES`` (``zh-TW`` is ``zh_Hant_TW``)."""
    return Locale.parse(i18n.gettext_name(lang))


def game_name(game: Game, lang: str) -> str:
    """The game's name as the catalog says it in ``lang`` (``GET /catalog``: a name is a name,
    the same in every language unless the catalog's words give one)."""
    said = catalog.words(lang)["games"].get(game.id, {})
    return str(said.get("name") or game.name)


def listed(lang: str, items: Sequence[str], conjunction: bool = False) -> str:
    """Names as a list: English as it always was (``A, B``; ``A and B`` for winners);
    Japanese and Chinese with 、 (winners by Babel's list rules: ``A、B和C``)."""
    if lang == ENGLISH:
        return (" and " if conjunction else ", ").join(items)
    if conjunction and items:
        return format_list(list(items), locale=babel_locale(lang))
    return "、".join(items)  # Japanese and Chinese alike


def number(lang: str, value: Any) -> str:
    """A score as the language writes numbers (``1,234.5``); anything else as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_decimal(value, locale=babel_locale(lang))
    return str(value)


def zone(name: str | None) -> ZoneInfo:
    """The account's time zone; UTC when it has none (or one this process does not know)."""
    if name:
        try:
            return ZoneInfo(name)
        except (KeyError, ValueError, OSError):  # not found (a KeyError), malformed, a folder
            pass
    return ZoneInfo("UTC")


def notice_lines(
    ch: Chronicle,
    cur: Current,
    seat: int,
    kind: str,
    base: str,
    marker: int = 0,
    timezone: str | None = None,
    lang: str = ENGLISH,
) -> tuple[str, list[str], str]:
    """``(subject, lines, table link)`` of a notice in ``lang``, from the seat's redacted view
    and the table's public names only (the mail's and the push's words)."""
    view = ch.view(cur, Caller(SEAT, seat), None, False)
    title = game_name(cur.game, lang)
    names = [
        str(s.get("name") or say(lang, SEAT_NAME, n=i + 1)) for i, s in enumerate(cur.meta.seats)
    ]
    others = [n for i, n in enumerate(names) if i != seat]
    table = f"{base}/play/{cur.game_id}"
    players = listed(lang, others)  # never empty: every game seats two at least
    lines: list[str] = []
    if kind == YOUR_TURN:
        subject = say(lang, TURN_SUBJECT, game=title)
        version = view["version"]
        lines.append(say(lang, TURN_LINE, game=title, players=players, version=version))
        hand = (view.get("state") or {}).get("hand")
        if isinstance(hand, list) and hand:
            cards = listed(lang, [card_words(cur.meta.game, str(c), lang) for c in hand])
            lines.append(say(lang, HAND_LINE, cards=cards))
    elif kind == REMINDER:
        subject = say(lang, REMINDER_SUBJECT, game=title)
        at = when(marker, timezone, lang)
        lines.append(say(lang, REMINDER_LINE, game=title, players=players, when=at))
    else:
        subject = say(lang, OVER_SUBJECT, game=title)
        lines.append(say(lang, OVER_LINE, game=title, players=players))
        lines.append(_result(view.get("result"), names, lang))
    return subject, lines, table


def page(lang: str, paragraphs: Sequence[str]) -> str:
    """An HTML part: its ``paragraphs`` (HTML already) in a page that says its language."""
    body = "\n".join(paragraphs)
    return f'<!doctype html>\n<html lang="{lang}"><body>\n{body}\n</body></html>\n'


def message(subject: str, lines: list[str], table: str, lang: str = ENGLISH) -> tuple[str, str]:
    """``(text, html)`` of a notice's mail in ``lang``, from its ``notice_lines``."""
    stop = say(lang, STOP)
    text = "\n\n".join([*lines, say(lang, OPEN_TABLE_AT, link=table), stop]) + "\n"
    paragraphs = [f"<p>{html.escape(line)}</p>" for line in lines]
    link = html.escape(table, quote=True)
    paragraphs.append(f'<p><a href="{link}">{html.escape(say(lang, OPEN_TABLE))}</a></p>')
    paragraphs.append(f"<p><small>{html.escape(stop)}</small></p>")
    return text, page(lang, paragraphs)


def mail_headers(lang: str, headers: Mapping[str, str]) -> dict[str, str]:
    """A notice mail's headers: ``headers`` and ``Content-Language`` (RFC 3282)."""
    return {**headers, "Content-Language": lang}


def when(at_ms: int, timezone: str | None, lang: str = ENGLISH) -> str:
    """A moment as the account reads it, in its language and time zone: ``Dec 8, 2026, 9:30 AM
    (Europe/Paris)``, ``2026/12/08 9:30 (Europe/Paris)``, ``2026年12月8日 上午9:30 (...)``."""
    place = zone(timezone)
    local = datetime.fromtimestamp(at_ms / 1000, UTC).astimezone(place)
    where = babel_locale(lang)
    pattern = str(where.datetime_formats["medium"])
    said = pattern.format(
        format_time(local, "short", tzinfo=place, locale=where),
        format_date(local, "medium", locale=where),
    )
    return f"{said} ({place.key})"


def day(iso: str, lang: str) -> str:
    """A local date (``2026-12-08``) as the language writes it in full."""
    return format_date(date.fromisoformat(iso), "full", locale=babel_locale(lang))


def _result(result: Any, names: Sequence[str], lang: str) -> str:
    if not isinstance(result, Mapping):
        return say(lang, NO_RESULT)
    seats = range(len(names))
    winners = [names[w] for w in result.get("winners") or () if w in seats]
    scores = result.get("scores") or {}
    said = listed(
        lang,
        [
            say(lang, A_SCORE, name=names[int(s)], score=number(lang, v))
            for s, v in scores.items()
            if _seat(s) in seats
        ],
    )
    won = (
        say(lang, WON_BY, winners=listed(lang, winners, conjunction=True))
        if winners
        else say(lang, NOBODY_WON)
    )
    return say(lang, WITH_SCORES, won=won, scores=said) if said else won


def _seat(key: Any) -> int:
    return int(key) if str(key).isdigit() else -1
