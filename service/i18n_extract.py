"""Finding the games' words in the web client's JavaScript for the ``client_games`` catalogue
(``babel_games.cfg`` names this as its extraction method: ``service.i18n_extract:extract``).

Babel's own JavaScript extractor misses a marked word in three places the board renderers and
the text view use all the time: a call inside another call's arguments
(``t("{a} and {b}", { b: t("c") })``), a call inside a template literal's ``${...}`` inside a
function inside another template, and an attribute ``aria-label="${t("...")}"`` (the quote
ends its string early).  This extractor reads every ``t(``, ``tn(`` and ``N_(`` whose first
arguments are string literals, wherever it stands: the words are always written as plain
double- or single-quoted strings (never template literals), which keeps this a small scanner
rather than a JavaScript parser.  ``tests/service/test_languages.py`` compares its findings
with the catalogues.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

# A keyword call: the name (not a property, not part of a longer name), "(", then one or two
# string literals (tn's singular and plural).
_STRING = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
_CALL = re.compile(
    rf"(?<![\w$.])(?P<name>[A-Za-z_$][\w$]*)\(\s*(?P<first>{_STRING})(?:\s*,\s*(?P<second>{_STRING}))?"
)


def _unquote(literal: str) -> str:
    """A JavaScript string literal's text (the escapes JSON shares with it)."""
    body = literal[1:-1]
    if literal[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    return str(json.loads(f'"{body}"'))


def extract(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, str | tuple[str, ...], list[str]]]:
    """Babel's extraction method interface: (line, keyword, message or its forms, comments)."""
    text = fileobj.read().decode(str(options.get("encoding", "utf-8")))
    for match in _CALL.finditer(text):
        name = match.group("name")
        if name not in keywords:
            continue
        line = text.count("\n", 0, match.start()) + 1
        forms = [_unquote(match.group("first"))]
        if match.group("second") is not None:
            forms.append(_unquote(match.group("second")))
        yield line, name, forms[0] if len(forms) == 1 else tuple(forms), []
