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


# ---- the texts orjson writes (compact_bytes, normal, answer_encoder, log_encoder) ----------


def _documents(floats: st.SearchStrategy[float] | None) -> st.SearchStrategy[Any]:
    leaves = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text()
    return st.recursive(
        leaves if floats is None else leaves | floats,
        lambda inner: (
            st.lists(inner, max_size=5)
            | st.tuples(inner, inner)
            | st.dictionaries(st.text(max_size=8), inner, max_size=5)
        ),
        max_leaves=30,
    )


exact = _documents(None)  # no float: orjson writes these byte for byte as the C encoder
finite = _documents(st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(exact)
def test_orjson_texts_are_the_c_encoders_byte_for_byte_without_floats(value: Any) -> None:
    assert jsontext.compact_bytes(value) == json.dumps(value, **_compact()).encode()
    answer = jsontext.answer_encoder(_refuse)  # ASCII, as Flask's provider writes
    assert answer(value) == json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    log = jsontext.log_encoder()  # ASCII: no line separator of any kind in a log line
    assert log(value) == json.dumps(value, default=str, separators=(",", ":"))


@settings(max_examples=300, deadline=None)
@given(finite)
def test_orjson_texts_read_back_as_the_c_encoders_do(value: Any) -> None:
    expected = json.loads(json.dumps(value))
    assert json.loads(jsontext.compact_bytes(value)) == expected
    assert json.loads(jsontext.answer_encoder(_refuse)(value)) == expected
    assert jsontext.normal(value) == expected


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(), scalars, max_size=5))
def test_what_orjson_refuses_goes_to_the_c_encoder(value: dict[int, Any]) -> None:
    assert jsontext.normal(value) == json.loads(json.dumps(value))
    assert jsontext.compact_bytes(value) == json.dumps(value, **_compact()).encode()


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


def test_normal_data_holds_no_nan_and_no_infinity() -> None:
    """Not JSON (``json`` wrote and read ``NaN``): normalised as orjson writes them, None,
    so what is hashed and what is stored and read back agree."""
    value = {"x": float("nan"), "y": [float("inf")]}
    assert jsontext.normal(value) == {"x": None, "y": [None]}
    assert json.loads(jsontext.compact_bytes(value)) == jsontext.normal(value)


def test_an_answers_default_writes_what_json_does_not_hold_and_subclasses_keep_their_text() -> None:
    import dataclasses
    import datetime
    import enum

    from flask.json.provider import _default

    @dataclasses.dataclass
    class Seat:
        n: int

    class Colour(enum.IntEnum):
        RED = 1

    answer = jsontext.answer_encoder(_default)
    day = datetime.date(2026, 12, 5)
    value = {"b": Seat(2), "a": day, "c": Colour.RED, "d": "é"}
    expected = json.dumps(value, default=_default, sort_keys=True, separators=(",", ":"))
    assert answer(value).decode() == expected
    assert '"a":"Sat, 05 Dec 2026 00:00:00 GMT"' in expected  # Flask's date, not orjson's
    with pytest.raises(TypeError):
        answer({"a": {1, 2}})
