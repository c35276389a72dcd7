"""The games' words in the web client (the move texts, the text view, the boards' labels), the
``client_games`` catalogue: every word marked in the games' files is in every catalogue and
none is left over, each compiled, served with the client's words, and each glossary term a
word uses is said with the glossary's translation (the rulebooks' own words)."""

from __future__ import annotations

import json
import re
from io import BytesIO
from pathlib import Path
from typing import Any, cast

import pytest
from babel.messages.extract import extract as babel_extract
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from babel.util import pathmatch

from service import i18n
from service.i18n_extract import extract as games_extract
from tests.conftest import ROOT

STATIC = ROOT / "service" / "web" / "static"
OTHERS = ("ja", "zh-TW")
KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2), "N_": None}
# Babel's stubs type an extraction method's results as extract()'s own: the method, as Any.
extract = cast(Any, games_extract)
# Each game's own files (reader.js and text_parts.js are every game's: no one glossary).
GAME_FILES = {
    "artus": ("artus.js", "artus_text.js"),
    "kings-and-castles": ("kings_and_castles.js", "kings_and_castles_text.js"),
    "lancaster": ("lancaster.js", "lancaster_text.js"),
}


def _key(message: str | tuple[str, ...] | list[str]) -> str:
    """A message's key: its text, or its singular (a .mo gives the forms as a list)."""
    return str(message[0] if isinstance(message, (tuple, list)) else message)


def _said(string: str | tuple[str, ...] | list[str] | None) -> str:
    """A translation's text (the one form Japanese and Chinese have)."""
    return _key(string or "")


def _mapping(cfg: str) -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    with (ROOT / cfg).open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, cfg)
    return method_map, options_map


def games_keys() -> set[str]:
    """The words the games' files mark, as babel_games.cfg extracts them (the client_games
    catalogue); test_languages.py checks the served JSON holds them with the client's."""
    method_map, options_map = _mapping("babel_games.cfg")
    found = extract_from_dir(str(STATIC), method_map, options_map, keywords=KEYWORDS)
    return {_key(message) for _, _, message, _, _ in found}


def _po(lang: str) -> Any:
    name = i18n.gettext_name(lang)
    with (i18n.TRANSLATIONS / name / "LC_MESSAGES" / "client_games.po").open("rb") as f:
        return read_po(f, locale=name)


def _translations(lang: str) -> dict[str, str]:
    out = {}
    for m in _po(lang):
        if m.id:
            out[_key(m.id)] = str(m.string[0] if isinstance(m.string, tuple) else m.string)
    return out


def test_each_js_file_is_in_one_domain() -> None:
    """babel.cfg (client) and babel_games.cfg (client_games) take disjoint files, so a word
    is translated in one catalogue; the games' files are the games'."""

    def method(cfg: str, name: str) -> str | None:
        for pattern, how in _mapping(cfg)[0]:
            if pathmatch(pattern, name):
                return None if how == "ignore" else how
        return None

    games = set()
    for path in STATIC.glob("*.js"):
        client, game = method("babel.cfg", path.name), method("babel_games.cfg", path.name)
        assert not (client and game), path.name
        if game:
            games.add(path.name)
    assert games == {f for files in GAME_FILES.values() for f in files} | {
        "reader.js",
        "text_parts.js",
    }


def test_the_extractor_finds_words_inside_calls_and_templates() -> None:
    """Babel's JavaScript extractor misses these; ours (service/i18n_extract.py) does not."""
    source = b"""const a = t("a {x}", { x: t("b") });
const c = svg`<g>${xs.map(() => { const q = t('d') + tn("one {count}", "many {count}", n); })}</g>`;
const d = html`<svg aria-label="${t("it's \\"e\\"")}">`;
const f = other.t("not this") + st("nor this") + N_("f");"""
    found = [m for _, m, _, _ in babel_extract(extract, BytesIO(source), KEYWORDS)]
    assert "a {x}" in found and "b" in found and "d" in found and "f" in found
    assert ("one {count}", "many {count}") in found and 'it\'s "e"' in found
    assert "not this" not in found and "nor this" not in found
    with (STATIC / "reader.js").open("rb") as f:
        assert len(list(extract(f, KEYWORDS, [], {}))) >= 30


def test_every_games_word_is_in_every_catalogue_and_none_is_left_over() -> None:
    used = games_keys()
    assert len(used) >= 400
    with (i18n.TRANSLATIONS / "client_games.pot").open("rb") as f:
        template = {_key(m.id) for m in read_po(f) if m.id}
    assert template == used, "client_games.pot is stale: see babel_games.cfg"
    for lang in OTHERS:
        catalogue = _po(lang)
        ids = {_key(m.id) for m in catalogue if m.id}
        assert ids == used, (lang, ids ^ used)
        for m in catalogue:
            if not m.id:
                continue
            assert m.string and all(m.string) and not m.fuzzy, (lang, m.id)
            said = m.string[0] if isinstance(m.string, tuple) else m.string
            assert sorted(re.findall(r"\{\w+\}", _key(m.id))) == sorted(
                re.findall(r"\{\w+\}", str(said))
            ), (lang, m.id)


@pytest.mark.parametrize("lang", OTHERS)
def test_each_compiled_games_catalogue_is_its_po(lang: str) -> None:
    mo = i18n.TRANSLATIONS / i18n.gettext_name(lang) / "LC_MESSAGES" / "client_games.mo"
    compiled = {_key(m.id): _said(m.string) for m in read_mo(BytesIO(mo.read_bytes())) if m.id}
    expected = {_key(m.id): _said(m.string) for m in _po(lang) if m.id}
    assert compiled == expected, "pybabel compile -D client_games (docs/play/languages.md)"


@pytest.mark.parametrize("lang", OTHERS)
def test_the_games_words_are_served_with_the_clients(lang: str) -> None:
    """One JSON per language; a word both catalogues hold says the same in both (the merge
    cannot pick one over the other)."""
    served = json.loads(i18n.client_json(lang))["messages"]
    games = _translations(lang)
    assert served["Knight pile"] == games["Knight pile"] != "Knight pile"
    name = i18n.gettext_name(lang)
    with (i18n.TRANSLATIONS / name / "LC_MESSAGES" / "client.po").open("rb") as f:
        client = {_key(m.id): _said(m.string) for m in read_po(f, locale=name) if m.id}
    for key in set(client) & set(games):
        assert client[key] == games[key], (lang, key, client[key], games[key])


def _words_of(game: str) -> set[str]:
    keys: set[str] = set()
    for name in GAME_FILES[game]:
        keys |= {_key(m) for _, m, _, _ in extract_from_file(extract, STATIC / name, KEYWORDS)}
    return keys


def _term(english: str) -> re.Pattern[str]:
    """A glossary term as a pattern over English words: without its parenthesis and leading
    article, hyphens as spaces, each word singular or plural ("counties", "nobles")."""
    text = re.sub(r"\([^)]*\)", " ", english).replace("-", " ").lower().split()
    if text and text[0] in ("the", "a"):
        text = text[1:]
    words = []
    for w in text:
        w = re.escape(w)
        if w.endswith(("ies", "y")):
            words.append(re.sub(r"(ies|y)$", "", w) + "(?:y|ies)")
        elif w.endswith("s") and not w.endswith("ss"):
            words.append(w[:-1] + "(?:s|es)?")
        else:
            words.append(w + "(?:s|es)?")
    return re.compile(r"\b" + r"\s+".join(words) + r"\b", re.IGNORECASE)


@pytest.mark.parametrize("game", GAME_FILES)
def test_the_games_words_say_the_glossarys_terms(game: str) -> None:
    """A word of one game's files that contains a term of its glossary (the longest terms
    first: "round table" before "round") says that term's translation in each language.  A
    word several games share (colours, "Player") is every game's, and held to none."""
    glossary = json.loads((ROOT / "docs" / "rules" / f"glossary.{game}.json").read_text("utf-8"))
    terms: dict[str, dict[str, str]] = {}
    for t in glossary["terms"]:
        terms.setdefault(_term(t["en"]).pattern, t)  # "castle (board)" after "castle"
    ordered = sorted(terms.items(), key=lambda kv: -len(kv[0]))
    others = set().union(*(_words_of(g) for g in GAME_FILES if g != game))
    own = _words_of(game) - others
    assert len(own) >= 100
    checked, wrong = 0, []
    said = {lang: _translations(lang) for lang in OTHERS}
    for key in sorted(own):
        english = re.sub(r"\{\w+\}", " ", key).replace("-", " ")
        for pattern, term in ordered:
            if re.search(pattern, english, re.IGNORECASE):
                english = re.sub(pattern, " ", english, flags=re.IGNORECASE)
                checked += 1
                wrong += [
                    (key, lang, term[lang]) for lang in OTHERS if term[lang] not in said[lang][key]
                ]
    assert checked >= 50 and wrong == [], wrong


def test_a_few_words_in_each_language() -> None:
    """Spot checks of the rulebooks' words (the Chinese Artus, the Japanese Kings and Castles
    and Lancaster)."""
    ja, zh = _translations("ja"), _translations("zh-TW")
    assert ja["Knight pile"] == "騎士カードの山札" and zh["Knight pile"] == "騎士卡疊"
    assert "王位継承マス" in ja["Square {square} is over."]
    assert "親衛隊" in zh["{counters} from the household"]
    assert "従者駒" in ja["Send {knight} to {county} with {count} squire"]
    assert "權力點" in zh["Chapel +1 power"]


def test_no_games_file_is_left_unmarked() -> None:
    """The games' files hold no English sentence outside t()/tn()/N_: a string literal of
    three words or more that is not marked (a markup attribute or a data key is not one)."""
    unmarked = []
    shared = {"reader.js", "text_parts.js"}
    for name in {f for files in GAME_FILES.values() for f in files} | shared:
        text = Path(STATIC / name).read_text(encoding="utf-8")
        for m in re.finditer(r'(?<![\w$.(])"([A-Z][a-z]+(?: [a-z]+){2,}[.!]?)"', text):
            before = text[max(0, m.start() - 4) : m.start()]
            if not re.search(r"(?:t|tn|N_)\($|, $", before):
                unmarked.append((name, m.group(1)))
    assert unmarked == []
