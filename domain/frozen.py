"""A faster ``dataclasses.replace`` for the games' frozen state dataclasses.

``dataclasses.replace`` reads every field and re-runs ``__init__``; for a state of thirty
fields that was most of the time of a replay fold.  ``replace`` here copies the instance
dictionary and updates it.  The games' state classes have neither ``__post_init__`` nor
``init=False`` fields nor ``__slots__``, so the result equals what ``dataclasses.replace``
builds; unknown field names are refused the same way (``TypeError``).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")
_FIELDS: dict[type, frozenset[str]] = {}


def replace(obj: T, /, **changes: Any) -> T:
    cls = obj.__class__
    names = _FIELDS.get(cls)
    if names is None:
        if not is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        names = _FIELDS[cls] = frozenset(f.name for f in fields(cls))
    if not names.issuperset(changes):
        unknown = ", ".join(sorted(set(changes) - names))
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}")
    d = obj.__dict__.copy()
    d.update(changes)
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", d)
    return new
