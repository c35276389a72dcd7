"""``projections.chain.hmac_hex``, the chain's HMAC from a key's remembered pads, is
``hmac.new(key, message, sha256)`` for any key (shorter than a block, a block, longer: hashed
first) and any message: every stored hash depends on it."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given, settings
from hypothesis import strategies as st

from projections import chain


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=130), st.lists(st.binary(max_size=300), min_size=1, max_size=4))
def test_the_remembered_pads_give_hmac_sha256(key: bytes, messages: list[bytes]) -> None:
    for message in messages:  # again and again on one key's pads: the copies stay apart
        assert chain.hmac_hex(key, message) == hmac.new(key, message, hashlib.sha256).hexdigest()


def test_a_seeds_chain_key_links_as_the_reference_hmac() -> None:
    key = chain.chain_key("seed-1")
    assert key == hashlib.sha256(b"chronicle-chain:seed-1").digest()
    message = b'prev{"a":1}'
    assert chain.hmac_hex(key, message) == hmac.new(key, message, "sha256").hexdigest()
