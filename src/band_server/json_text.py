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

__all__ = ["Answer", "Encoded", "answer_text", "dumps"]


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


_dumps = _built_once(json.JSONEncoder(), encode_basestring_ascii)


class Encoded(dict[str, Any]):
    """A JSON object written once with its text: ``text`` is ``json.dumps``'s (a JSON column
    stores it), ``compact`` is ``json.dumps(..., separators=(",", ":"))``'s (a push carries
    it). ``services.views.encoded_meta`` builds a post's metadata so; nothing changes one
    after it is built."""

    __slots__ = ("compact", "text")

    text: str
    compact: str


def dumps(value: Any) -> str:
    """``json.dumps(value)`` (SQLAlchemy's default serializer of JSON columns); an
    :class:`Encoded` object's own text."""
    if type(value) is Encoded:
        return value.text
    return _dumps(value)


_answer_text = _built_once(
    json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")),
    encode_basestring,
)


class Answer(dict[str, Any]):
    """An answer's ``data`` written once with its text: ``text`` is what :func:`answer_text`
    writes for it (``services.views.sent_answer`` builds a post's so); nothing changes one
    after it is built."""

    __slots__ = ("text",)

    text: str


def answer_text(value: Any) -> str:
    """What Starlette's ``JSONResponse.render`` writes, before UTF-8 (``json.dumps`` with
    ``ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")``); for
    ``{"data": <an Answer>}``, the :class:`Answer`'s own text inside."""
    if type(value) is dict and len(value) == 1 and type(data := value.get("data")) is Answer:
        return f'{{"data":{data.text}}}'
    return _answer_text(value)
