"""Invisible and reordering characters, refused in player names and chat lines.

A name is how players tell each other apart, in every list, summary and chat line: a
right-to-left override (U+202E) makes ``Ann\\u202enb`` read as ``Annbn``, a zero-width space
makes ``Ann`` and ``An\\u200bn`` two names that look the same.  Refused, everywhere a name or a
line enters (the HTTP schemas, ``service.chat.post``, an import's chat lines), by ``problem``:

- every character of the Unicode general category ``Cf`` (format): the bidirectional
  embeddings, overrides, isolates and marks (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
  U+061C), the zero-width ones (U+200B..U+200D, U+2060..U+2064, U+FEFF), the soft hyphen, the
  Mongolian vowel separator (U+180E), the interlinear annotations, the tag characters;
- the line and paragraph separators U+2028 and U+2029 (a name is one line, and a chat line
  breaks with a newline);
- the fillers that are letters but show nothing (U+3164 and U+FFA0 Hangul fillers, U+115F and
  U+1160, U+034F combining grapheme joiner, U+17B4 and U+17B5).

A chat line keeps what running text needs: the joiners U+200C and U+200D (emoji sequences
such as a family or a rainbow flag; Persian and Indic spelling) and emoji tag sequences (a
subdivision flag: U+1F3F4, tags, U+E007F).  Names do not: there a joiner only helps a
look-alike.  Variation selectors (U+FE00..U+FE0F: emoji presentation; U+E0100..U+E01EF: the
kanji variants of Japanese names) and the Mongolian free variation selectors are not format
characters and stay allowed, as does all Chinese, Japanese and Korean text.
"""

from __future__ import annotations

import re
import unicodedata

# Refused besides the format characters (category Cf): fillers that show nothing, and the
# line and paragraph separators.
NOT_FORMAT = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0\u2028\u2029")
JOINERS = frozenset("\u200c\u200d")  # allowed in chat lines only
# A subdivision flag: the black flag, tag characters, the cancel tag.
FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def problem(text: str, line: bool = False) -> str | None:
    """Why ``text`` is refused as a name (``line``: as a chat line), naming the first refused
    character by its code point, or None."""
    if text.isascii():  # no format character is ASCII: the common case costs nothing more
        return None
    if line:
        text = FLAG_TAGS.sub("\U0001f3f4", text)
    for c in text:
        if (c in NOT_FORMAT or unicodedata.category(c) == "Cf") and not (line and c in JOINERS):
            name = unicodedata.name(c, "")
            return (
                f"contains U+{ord(c):04X}{f' {name}' if name else ''}, an invisible "
                "character that changes how the text reads"
            )
    return None
