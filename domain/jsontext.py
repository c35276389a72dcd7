"""JSON text from encoders built once: what a move's path uses instead of ``json.dumps``.

``json.dumps`` with any keyword argument builds a ``JSONEncoder`` and then a C encoder on every
call, which costs more than writing the small documents a move writes.  A move writes nine such
documents (its events' copy, the chain's canonical record, the stored
event, four fields of the meta, the answer, the log line).  These are the same C encoders,
built once, and the text is what ``json.dumps`` gives with the same options, byte for byte
(``tests/domain/test_jsontext.py`` checks it on generated documents).

The one difference: no check for circular references (``json.dumps`` raises ``ValueError``;
here Python's recursion limit raises ``RecursionError``).  Nothing encoded here can hold a
cycle: these are documents made of the events' data and the service's own dicts and lists.
Pure: no I/O, no state but the encoders.

**orjson** writes the texts whose bytes nothing hashes (a stored event's body, the JSON an event's
data is normalised through, the meta's fields, an answer, a log line): it is faster than the C
encoder on a move's small documents, which are a visible share of a move's CPU (the figures:
``docs/benchmarks``).  Its text is the C encoder's with the same options
(``tests/domain/test_jsontext.py`` checks it on generated documents) but for two things: a float's
exponent has no padding (``1e-7``, not ``1e-07``: the same number), and ``NaN`` and the infinities,
which are not JSON, are written ``null`` (``json`` wrote ``NaN``).  orjson writes UTF-8, so an
answer or a log line, ASCII as before, is orjson's text only where that is ASCII, else the C
encoder's.  What orjson refuses (an int beyond 64 bits, a key that is not a string, a subclass of a
JSON type) goes to the C encoder, which writes it, or refuses it, as before.  The chain's canonical
text stays the C encoder's (``canonical``): a stored event's hash is of that text, byte for byte,
for ever.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from json import encoder as _json
from typing import Any

import orjson

Dumps = Callable[[Any], str]

COMPACT = (",", ":")
SPACED = (", ", ": ")  # json.dumps's own separators


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def encoder(
    *,
    separators: tuple[str, str] = SPACED,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
) -> Dumps:
    """A ``json.dumps`` with these options bound, its C encoder built once (or ``json.dumps``
    itself where the C encoder is missing)."""
    make: Any = getattr(_json, "c_make_encoder", None)  # typeshed does not declare it
    if make is None:  # pragma: no cover - CPython always has it
        return partial(
            json.dumps,
            separators=separators,
            sort_keys=sort_keys,
            ensure_ascii=ensure_ascii,
            default=default,
        )
    strings = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    item, key = separators
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys,
    # allow_nan): no markers, no indent, as json.dumps with check_circular=False
    encode = make(None, default or _refuse, strings, None, key, item, sort_keys, False, True)
    join = "".join

    def dumps(value: Any) -> str:
        return join(encode(value, 0))

    return dumps


plain: Dumps = encoder()  # json.dumps(value)
compact_ascii: Dumps = encoder(separators=COMPACT)  # json.dumps(value, separators=COMPACT)
compact: Dumps = encoder(separators=COMPACT, ensure_ascii=False)
canonical: Dumps = encoder(separators=COMPACT, ensure_ascii=False, sort_keys=True)


# orjson hands these to ``default`` (none: refused, and the C encoder decides) instead of
# writing them its own way: a subclass of str, int, dict or list (an ``IntEnum``), a
# dataclass, a date or time (Flask's ``default`` writes a date as an HTTP date).
_AS_JSON = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_orjson_dumps = orjson.dumps
_orjson_loads = orjson.loads


def compact_bytes(value: Any) -> bytes:
    """``compact(value).encode()``, written by orjson (see the module's note)."""
    try:
        return _orjson_dumps(value, option=_AS_JSON)
    except TypeError:
        return compact(value).encode()


def normal(value: Any) -> Any:
    """``value`` as it reads back from its JSON text: tuples as lists, keys as strings, NaN
    and the infinities as None.  Through orjson, else (what it refuses) through the C
    encoder and ``json.loads``."""
    try:
        return _orjson_loads(_orjson_dumps(value, option=_AS_JSON))
    except TypeError:
        return json.loads(plain(value))


def _ascii(fallback: Dumps, default: Callable[[Any], Any], option: int) -> Callable[[Any], bytes]:
    """orjson's text of a document where it is ASCII, else ``fallback``'s (an ASCII C
    encoder: ``\\u`` escapes and all), also for what orjson refuses.  DEL (0x7f) is ASCII
    but the C encoder escapes it (``\\u007f``) and orjson does not: a text holding one is
    the C encoder's too."""

    def dumps(value: Any) -> bytes:
        try:
            out: bytes = _orjson_dumps(value, default=default, option=option)
        except TypeError:
            return fallback(value).encode()
        return out if out.isascii() and b"\x7f" not in out else fallback(value).encode()

    return dumps


def answer_encoder(default: Callable[[Any], Any], sort_keys: bool = True) -> Callable[[Any], bytes]:
    """The compact ASCII text of an API answer as bytes, ``default`` for what is not JSON's
    own (Flask's: dates, UUIDs, dataclasses; see the module's note)."""
    fallback = encoder(separators=COMPACT, sort_keys=sort_keys, default=default)
    return _ascii(fallback, default, _AS_JSON | (orjson.OPT_SORT_KEYS if sort_keys else 0))


def log_encoder() -> Callable[[Any], str]:
    """A log line's compact ASCII text, ``str`` of anything not JSON's own (see the module's
    note).  ASCII: a line separator (U+2028) or a NEL in a logged path must not split the line
    for a reader of the log.  A subclass of a JSON type is written as its type (``str`` would
    make an ``IntEnum`` a string)."""
    option = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
    dumps = _ascii(encoder(separators=COMPACT, default=str), str, option)
    return lambda value: dumps(value).decode()
