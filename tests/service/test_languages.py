"""The players' languages without a server: the language a request gets, the catalogues (every
message in every language, none left over, each compiled), the catalog's words with the same
keys in every language, the players' rules with the same rule ids in the same order, and the
glossaries' terms taken from the original rulebooks and used by the rules pages."""

from __future__ import annotations

import json
import re
from io import BytesIO
from pathlib import Path
from typing import Any

import flask_babel  # type: ignore[import-untyped]
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask

from service import i18n
from service.catalog import WORDS, words, words_file
from service.http.docs import render
from service.http.errors import ERRORS
from service.http.languages import install, language
from service.http.refusal_words import message_in, rule_title
from tests.conftest import ROOT
from tests.service.test_languages_games import games_keys

RULES = ROOT / "docs" / "rules"
GAMES = ("artus", "kings-and-castles", "lancaster")
OTHERS = ("ja", "zh-TW")
SEEDS = ROOT.parent / "shared" / "seeds"  # the original rulebooks, beside a checkout


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ja-JP,ja;q=0.9,en;q=0.8", "ja"),
        ("zh-TW", "zh-TW"),
        ("zh-Hant-HK", "zh-TW"),
        ("zh-HK,en;q=0.5", "zh-TW"),
        ("zh", "zh-TW"),
        ("zh-CN,zh;q=0.9", "zh-TW"),  # Simplified first, then plain Chinese
        ("zh-CN,en;q=0.8", "en"),  # Simplified is not served Traditional
        ("fr-FR,de;q=0.9", None),
        ("en;q=0.1,ja;q=0.9", "ja"),  # by quality, not by order
        ("ja;q=0", None),
        ("*", None),
        ("", None),
    ],
)
def test_accept_language_is_negotiated(header: str, expected: str | None) -> None:
    assert i18n.negotiate(header) == expected


def test_the_account_comes_first_then_the_header_then_english() -> None:
    assert i18n.chosen("ja", "zh-TW") == "ja"
    assert i18n.chosen(None, "zh-TW,ja") == "zh-TW"
    assert i18n.chosen("", "fr") == "en"
    assert i18n.chosen("xx", None) == "en"


def _extracted() -> set[str]:
    """The message ids the source marks (pybabel extract, with babel.cfg's method map)."""
    found = extract_from_dir(str(ROOT / "service"), [("**.py", "python")])
    return {str(message) for _, _, message, _, _ in found if isinstance(message, str)}


def _po(lang: str) -> Any:
    path = i18n.TRANSLATIONS / i18n.gettext_name(lang) / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        return read_po(f, locale=i18n.gettext_name(lang))


def test_every_message_is_in_every_catalogue_and_none_is_left_over() -> None:
    """A message marked in the code and missing from a catalogue, or translated and no longer
    used, fails here: ``pybabel extract`` + ``pybabel update`` put them right."""
    used = _extracted()
    assert len(used) >= 50
    with (i18n.TRANSLATIONS / "messages.pot").open("rb") as f:
        template = {str(m.id) for m in read_po(f) if m.id}
    assert template == used, "messages.pot is stale: run pybabel extract (docs/play/languages.md)"
    for lang in OTHERS:
        catalogue = _po(lang)
        ids = {str(m.id) for m in catalogue if m.id}
        assert ids - used == set(), f"{lang}: translated but no longer used"
        assert used - ids == set(), f"{lang}: not translated"
        for m in catalogue:
            if m.id:
                assert m.string and not m.fuzzy, (lang, m.id)
                assert sorted(re.findall(r"%\(\w+\)s", str(m.id))) == sorted(
                    re.findall(r"%\(\w+\)s", str(m.string))
                ), (lang, m.id)


@pytest.mark.parametrize("lang", OTHERS)
def test_each_compiled_catalogue_is_its_po(lang: str) -> None:
    """The committed .mo says what its .po says (pybabel compile after every change)."""
    mo = i18n.TRANSLATIONS / i18n.gettext_name(lang) / "LC_MESSAGES" / "messages.mo"
    compiled = read_mo(BytesIO(mo.read_bytes()))
    expected = {str(m.id): str(m.string) for m in _po(lang) if m.id}
    assert {str(m.id): str(m.string) for m in compiled if m.id} == expected
    assert i18n.gettext(lang, "Contents") == expected["Contents"] != "Contents"


def test_every_code_and_reason_has_its_sentence() -> None:
    """Each error code of the table, and each ``details.reason`` the service raises, has a
    sentence to be translated (a new code or reason without one fails here)."""
    assert set(i18n.CODE_MESSAGES) == {e.code for e in ERRORS}
    sources = [*(ROOT / "domain").rglob("*.py"), *(ROOT / "service").rglob("*.py")]
    raised = set()
    for path in sources:
        raised |= set(re.findall(r"(?:Forbidden|UndoRefused)\(\s*\"(\w+)\"", path.read_text()))
    assert raised and raised <= set(i18n.REASONS), raised - set(i18n.REASONS)


def test_messages_in_each_language() -> None:
    detail = "seat 2 is not to act now"
    reason = {"reason": "not_your_turn"}
    assert message_in("en", "forbidden", detail, reason) == detail
    assert message_in("ja", "forbidden", detail, reason) == "あなたの手番ではありません。"
    assert message_in("zh-TW", "forbidden", detail, reason) == "現在不是你的回合。"
    said = message_in("ja", "illegal_action", "KC-5.2: too many", {"rule": "KC-5.2"})
    assert said.startswith("KC-5.2: ") and "余剰なユニットは使えない" in said
    said = message_in("zh-TW", "illegal_action", "AR-4.1: no", {"rule": "AR-4.1"})
    assert said == "AR-4.1：規則不允許這一步（騎士卡）。"  # noqa: RUF001
    said = message_in("ja", "bad_request", "invalid request: players", {"players": ["x"]})
    assert said == "リクエストが正しくありません: players。"
    said = message_in("zh-TW", "version_conflict", "stale", {"current_version": 7})
    assert "7" in said and said != "stale"


def test_a_rule_title_falls_back_to_its_parent_clause() -> None:
    assert rule_title("LA-2.4", "ja") == "議会: 投票"
    assert rule_title("KC-5.2.9", "zh-TW") == "不可浪費棋子"
    assert rule_title("XX-1", "ja") is None


def _keys(doc: Any, prefix: str = "") -> set[str]:
    if not isinstance(doc, dict):
        return {prefix}
    out: set[str] = set()
    for k, v in doc.items():
        out |= _keys(v, f"{prefix}/{k}")
    return out


@pytest.mark.parametrize("lang", OTHERS)
def test_the_catalog_words_have_the_same_keys_in_every_language(lang: str) -> None:
    english = json.loads(WORDS.read_text(encoding="utf-8"))
    translated = json.loads(words_file(lang).read_text(encoding="utf-8"))
    assert _keys(translated) == _keys(english)
    said = words(lang)
    assert said["bots"]["random"]["label"] != english["bots"]["random"]["label"]
    assert _keys(said) == _keys(english)


def _rule_ids(path: Path) -> list[str]:
    return [anchor for _, anchor, _ in render(path.read_text(encoding="utf-8")).sections]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", OTHERS)
def test_the_rules_have_the_same_ids_in_the_same_order(game: str, lang: str) -> None:
    english = _rule_ids(RULES / f"{game}.en.md")
    assert len(english) >= 8 and all(re.fullmatch(r"[A-Z]{2}-\d+(\.\d+)*", i) for i in english)
    assert _rule_ids(RULES / f"{game}.{lang}.md") == english


def _glossary(game: str) -> dict[str, Any]:
    return dict(json.loads((RULES / f"glossary.{game}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("game", GAMES)
def test_the_glossary_is_used_by_the_rules_pages(game: str) -> None:
    """Each term of a language appears in that language's rules page: the pages say the
    seed's words (and our chosen translations), not synonyms."""
    glossary = _glossary(game)
    assert glossary["game"] == game and len(glossary["terms"]) >= 20
    for lang in OTHERS:
        page = (RULES / f"{game}.{lang}.md").read_text(encoding="utf-8")
        unused = [t[lang] for t in glossary["terms"] if t[lang] not in page]
        assert unused == [], (game, lang, unused)


@pytest.mark.parametrize("game", GAMES)
def test_the_glossary_terms_are_the_seeds(game: str) -> None:
    """Each term in the seed's language is found in the original rulebook (the seeds folder
    kept beside the checkout; skipped where it is not)."""
    glossary = _glossary(game)
    seed = SEEDS / glossary["seed"]
    if not seed.is_file():
        pytest.skip(f"the seed {seed} is not beside this checkout")
    text = seed.read_text(encoding="utf-8")
    missing = [t[glossary["seed_language"]] for t in glossary["terms"]]
    missing = [term for term in missing if term not in text]
    assert missing == []


def test_the_catalog_uses_the_glossary() -> None:
    """The catalog's words for a game say the glossary's terms (a sample per language)."""
    assert "基本ルール" in json.dumps(words("ja")["games"]["artus"], ensure_ascii=False)
    assert "初階規則" in json.dumps(words("zh-TW")["games"]["artus"], ensure_ascii=False)
    kc = json.dumps(words("ja")["games"]["kings-and-castles"], ensure_ascii=False)
    assert "王位継承リスト" in kc and "親衛隊" in kc
    assert "權力點" in words("zh-TW")["games"]["lancaster"]["description"]


def _client_keys() -> set[str]:
    """The words the client marks (t, tn, N_ in service/web/static), as babel.cfg extracts."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg, "babel.cfg")  # its files and options
    found = extract_from_dir(
        str(ROOT / "service" / "web" / "static"),
        method_map,
        options_map,
        keywords={"t": None, "tn": (1, 2), "N_": None},
    )
    keys = set()
    for _, _, message, _, _ in found:
        keys.add(str(message[0] if isinstance(message, tuple) else message))
    return keys


def test_every_client_word_is_in_every_catalogue() -> None:
    used = _client_keys()
    static = ROOT / "service" / "web" / "static"
    marked = set()
    for page in static.glob("*.html"):
        marked |= set(re.findall(r'data-i18n(?:-label)?="([^"]+)"', page.read_text()))
    assert marked and marked <= used, marked - used  # a page's marked word is extracted too
    with (i18n.TRANSLATIONS / "client.pot").open("rb") as f:
        template = {str(m.id[0] if isinstance(m.id, tuple) else m.id) for m in read_po(f) if m.id}
    assert template == used, "client.pot is stale: see babel.cfg"
    for lang in OTHERS:
        name = i18n.gettext_name(lang)
        with (i18n.TRANSLATIONS / name / "LC_MESSAGES" / "client.po").open("rb") as f:
            catalogue = read_po(f, locale=name)
        ids = {str(m.id[0] if isinstance(m.id, tuple) else m.id) for m in catalogue if m.id}
        assert ids == used, (lang, ids ^ used)
        assert all(m.string and not m.fuzzy for m in catalogue if m.id), lang
        served = json.loads(i18n.client_json(lang))
        games = games_keys()  # the games' words are served with the client's (client_games)
        assert set(served["messages"]) == used | games and served["lang"] == lang
    assert json.loads(i18n.client_json("en"))["messages"] == {}


def test_flask_babel_follows_the_requests_language() -> None:
    """flask-babel's gettext and locale in a request are the request's language (the same
    choice as the API's messages)."""
    app = Flask(__name__)
    install(app)
    with app.test_request_context(headers={"Accept-Language": "zh-HK, ja;q=0.5"}):
        assert str(flask_babel.get_locale()) == "zh_Hant_TW"  # Babel says the script
        assert flask_babel.gettext("Contents") == "目錄"
        assert language() == "zh-TW"
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert str(flask_babel.get_locale()) == "en"
        assert flask_babel.gettext("Contents") == "Contents"
    assert language() == "en"  # outside a request
