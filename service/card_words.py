"""A hand's cards in words for notices (``service.notice_text``), as the table page says them.

Artus is the one game whose view has a hand.  Its cards' words are the web client's (the
``CARDS`` of ``service/web/static/artus.js``), translated from the ``client_games`` catalogue
the page itself uses, so that a mail, a push and the page name a card alike in every
language; ``tests/service/test_card_words.py`` keeps this table equal to the page's.  A card
this table does not name keeps its id (``yellow/K1-5B``), as the API's view says it.
"""

from __future__ import annotations

from service.i18n import game_word

# the card's id after its colour ("yellow/K1-5B") -> the page's English words for it
ARTUS = {
    "K1-5B": "Knight 1-5 ⇄",
    "K3-6": "Knight 3-6",
    "K2-5": "Knight 2-5",
    "K7-9": "Knight 7-9",
    "K1-3": "Knight 1-3",
    "K2-4": "Knight 2-4",
    "K4-7": "Knight 4-7",
    "K5-8": "Knight 5-8",
    "M4-8": "King move 4-8 (silver, bronze)",
    "M1-7S": "King move 1-7 (silver)",
    "M1-7B": "King move 1-7 (bronze)",
    "M1-5B": "King move 1-5 ⇄ (silver, bronze)",
    "RS": "Ring (silver)",
    "RB": "Ring (bronze)",
    "RX1": "Ring (silver or bronze)",
    "RX2": "Ring (silver or bronze)",
    "S-all": "Scoring: all your knights",
    "S-neg": "Scoring: all your knights, negated",
    "S-gyr": "Scoring: green + yellow + red (or −15)",  # noqa: RUF001 (the page's minus sign)
    "S-carpet": "Scoring: two on the carpet (or −25)",  # noqa: RUF001 (the page's minus sign)
    "S-red": "Scoring: three on red (or −50)",  # noqa: RUF001 (the page's minus sign)
    "S-choice": "Scoring: your choice",
}
CARDS = {"artus": ARTUS}


def card_words(game: str, card: str, lang: str) -> str:
    """``card`` of ``game`` in words in ``lang`` (its id where the game names no such card)."""
    words = CARDS.get(game, {}).get(card.rpartition("/")[2])
    return card if words is None else game_word(lang, words)
