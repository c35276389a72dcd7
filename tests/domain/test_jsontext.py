"""``domain.jsontext``'s encoders write what ``json.dumps`` writes with the same options, byte
for byte: the chain hashes the canonical text, and the stored meta and events are read back by
``json.loads`` (a difference would break a hash, not just a look)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import jsontext

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text()
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)
OPTIONS: dict[str, dict[str, Any]] = {
    "plain": {},
    "compact_ascii": {"separators": (",", ":")},
    "compact": {"separators": (",", ":"), "ensure_ascii": False},
    "canonical": {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": True},
}


@settings(max_examples=300, deadline=None)
@given(documents)
def test_each_encoder_writes_what_json_dumps_writes(value: Any) -> None:
    for name, options in OPTIONS.items():
        assert getattr(jsontext, name)(value) == json.dumps(value, **options), name


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(), scalars, max_size=5))
def test_integer_keys_become_strings_as_json_dumps_makes_them(value: dict[int, Any]) -> None:
    assert jsontext.canonical(value) == json.dumps(value, sort_keys=True, **_compact())
    assert jsontext.plain(value) == json.dumps(value)


def _compact() -> dict[str, Any]:
    return {"separators": (",", ":"), "ensure_ascii": False}


def test_what_json_cannot_hold_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        jsontext.plain({"a": {1, 2}})
    with pytest.raises(ValueError):
        json.dumps(float("nan"), allow_nan=False)  # json.dumps's own default allows NaN ...
    assert jsontext.plain(float("nan")) == json.dumps(float("nan")) == "NaN"  # ... and so here


def test_a_default_is_used_for_what_json_cannot_hold() -> None:
    dumps = jsontext.encoder(default=str)
    assert dumps({"when": {1}}) == json.dumps({"when": {1}}, default=str)
