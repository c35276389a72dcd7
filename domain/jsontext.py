"""JSON text from encoders built once: what a move's path uses instead of ``json.dumps``.

``json.dumps`` with any keyword argument builds a ``JSONEncoder`` and then a C encoder on every
call: about 2 µs before the first byte, for documents that take well under 1 µs to write.  A
move writes nine such documents (its events' copy, the chain's canonical record, the stored
event, four fields of the meta, the answer, the log line).  These are the same C encoders,
built once, and the text is what ``json.dumps`` gives with the same options, byte for byte
(``tests/domain/test_jsontext.py`` checks it on generated documents).

The one difference: no check for circular references (``json.dumps`` raises ``ValueError``;
here Python's recursion limit raises ``RecursionError``).  Nothing encoded here can hold a
cycle: these are documents made of the events' data and the service's own dicts and lists.
Pure: no I/O, no state but the encoders.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from json import encoder as _json
from typing import Any

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
