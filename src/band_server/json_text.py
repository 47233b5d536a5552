"""JSON text from C encoders built once: the standard library's text, without its per-call setup.

``json.dumps`` and ``JSONEncoder.encode`` build a C encoder on every call (with a fresh dict to
detect cycles) and pass through two Python frames; each post encodes its answer and its
message's metadata this way. The encoders here are built once, with the same options, and do
not look for cycles (the values are plain data built by the server: a cycle would be a bug,
raised as ``RecursionError`` instead of ``ValueError``). ``tests/server/test_json_text.py``
compares their text and errors with the standard library's on generated values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import (  # type: ignore[attr-defined]
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any

__all__ = ["answer_text", "dumps"]


def _built_once(fallback: json.JSONEncoder, encoder: Callable[[str], str]) -> Callable[[Any], str]:
    if c_make_encoder is None:  # an interpreter without the C accelerator
        return fallback.encode
    make = c_make_encoder(
        None,  # no cycle check (see the module docstring)
        fallback.default,
        encoder,
        None,
        fallback.key_separator,
        fallback.item_separator,
        fallback.sort_keys,
        fallback.skipkeys,
        fallback.allow_nan,
    )

    def encode(value: Any) -> str:
        return "".join(make(value, 0))

    return encode


dumps = _built_once(json.JSONEncoder(), encode_basestring_ascii)
"""``json.dumps(value)`` (SQLAlchemy's default serializer of JSON columns)."""

answer_text = _built_once(
    json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")),
    encode_basestring,
)
"""What Starlette's ``JSONResponse.render`` writes, before UTF-8 (``json.dumps`` with
``ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")``)."""
