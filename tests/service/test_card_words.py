"""``service.card_words``: a notice names a hand's cards as the table page does.  The table is
the page's own (``artus.js``'s ``CARDS``, read here), every card of the game's data has words,
and each is translated from the page's catalogue in every language; an unknown id stays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from service.card_words import ARTUS, card_words
from service.i18n import CLIENT_DOMAINS, translations

ROOT = Path(__file__).resolve().parents[2]


def page_cards() -> dict[str, str]:
    """``CARDS`` of artus.js: ``id: N_("words")`` lines."""
    source = (ROOT / "service/web/static/artus.js").read_text()
    start = source.index("const CARDS = {")
    block = source[start : source.index("};", start)]
    pairs = re.findall(r'^\s*"?([\w-]+)"?: N_\("(.*)"\),$', block, re.M)
    return dict(pairs)


def test_the_words_are_the_pages_and_name_every_card_of_the_game() -> None:
    assert page_cards() == ARTUS
    data = json.loads((ROOT / "domain/games/artus/data.json").read_text())
    ids = {c["id"] for kind in ("knight_cards", "king_cards", "scoring_cards") for c in data[kind]}
    assert ids <= set(ARTUS), ids - set(ARTUS)


@pytest.mark.parametrize("lang", ["ja", "zh-TW"])
def test_each_card_is_said_in_the_accounts_language(lang: str) -> None:
    catalogue = translations(lang, CLIENT_DOMAINS[1])
    for card, words in ARTUS.items():
        said = card_words("artus", f"yellow/{card}", lang)
        assert said == catalogue.gettext(words) and said != words, (card, said)


def test_english_and_unknown_cards() -> None:
    assert card_words("artus", "red/K1-5B", "en") == "Knight 1-5 ⇄"
    assert card_words("artus", "red/XX", "ja") == "red/XX"
    assert card_words("lancaster", "K1-5B", "en") == "K1-5B"
