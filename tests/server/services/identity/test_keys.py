"""``keys.hash_key`` (CPython's builtin SHA-256) against ``hashlib.sha256``, the digest every
stored key was written with, on generated keys and texts."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from band_server.services.identity import keys


@settings(max_examples=400, deadline=None, database=None)
@given(key=st.text(max_size=300) | st.sampled_from(["", "band_a_", keys.new_key("agent")]))
def test_hash_key_is_hashlibs_sha256(key: str) -> None:
    assert keys.hash_key(key) == hashlib.sha256(key.encode("utf-8")).hexdigest()


def test_new_keys_hash_as_hashlib_does() -> None:
    for kind in ("agent", "user"):
        key = keys.new_key(kind)
        assert keys.hash_key(key) == hashlib.sha256(key.encode()).hexdigest()
        assert len(keys.hash_key(key)) == 64
