"""Turning game states (trees of frozen dataclasses) into JSON data and back.

Snapshots store folded states so that loading the current state costs a snapshot plus a short
tail, whatever the length of the log.  One generic codec serves every game: a state is a frozen
dataclass whose fields are ``int``, ``str``, ``bool``, ``None``, tuples, dicts with ``str`` or
``int`` keys, ``frozenset``, or nested frozen dataclasses, all described by type hints.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Union

_SCALARS = frozenset({int, str, bool, float, type(None)})


def encode(value: Any) -> Any:
    """JSON-compatible data for a state value (dict keys become strings).

    Most values of a state are ints and strings: they are answered first, by their class,
    and a dataclass's field names are looked up once per class (``dataclasses.fields`` and
    ``is_dataclass`` on every value cost most of a snapshot's encoding, which a move pays
    every ``SNAPSHOT_EVERY`` moves)."""
    cls = value.__class__
    if cls in _SCALARS:
        return value
    names = _field_names(cls)
    if names is not None:
        return {name: encode(getattr(value, name)) for name in names}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(encode(v) for v in value)
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


@cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass (None for any other class, ``type`` included: a
    dataclass itself, as a value, is not encoded as an instance)."""
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return None


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from ``encode`` output."""
    return _decoder(tp)(data)


Decoder = typing.Callable[[Any], Any]


def _same(data: Any) -> Any:
    return data


_PLAIN = (int, str, bool, float, type(None), Any)


@cache
def _decoder(tp: Any) -> Decoder:
    """The decoding function of ``tp``, built once per type: loading a game decodes its
    snapshot's state, thousands of values, and reading the type hints of every value each
    time cost most of a load."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        inner = _decoder(next(a for a in args if a is not type(None)))
        if type(None) not in args:
            return inner
        return lambda data: None if data is None else inner(data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] in _PLAIN:
                return tuple
            item = _decoder(args[0])
            return lambda data: tuple(map(item, data))
        items = tuple(_decoder(a) for a in args)
        return lambda data: tuple(f(v) for f, v in zip(items, data, strict=True))
    if origin is frozenset:
        item = _decoder(args[0])
        return lambda data: frozenset(map(item, data))
    if origin is dict or origin is typing.Mapping:
        key_type, value_type = args
        value = _decoder(value_type)
        if key_type is int:
            return lambda data: {int(k): value(v) for k, v in data.items()}
        return lambda data: {k: value(v) for k, v in data.items()}
    return _same


def _dataclass_decoder(tp: type) -> Decoder:
    fields: dict[str, Decoder] = {}  # filled at the first call (a type may refer to itself)

    def decode_instance(data: Any) -> Any:
        if not fields:
            fields.update({name: _decoder(hint) for name, hint in _hints(tp).items()})
        return tp(**{name: fields[name](v) for name, v in data.items()})

    return decode_instance


def decode_key(tp: Any, key: str) -> Any:
    return int(key) if tp is int else key
