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


def encode(value: Any) -> Any:
    """JSON-compatible data for a state value (dict keys become strings)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(encode(v) for v in value)
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from ``encode`` output."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        return tp(**{name: decode(hints[name], data[name]) for name in data})
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return decode(inner[0], data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        return tuple(decode(a, v) for a, v in zip(args, data, strict=True))
    if origin is frozenset:
        return frozenset(decode(args[0], v) for v in data)
    if origin is dict or origin is typing.Mapping:
        key_type, value_type = args
        return {decode_key(key_type, k): decode(value_type, v) for k, v in data.items()}
    if tp is Any:
        return data
    return data


def decode_key(tp: Any, key: str) -> Any:
    return int(key) if tp is int else key
