"""``band_server.json_text`` writes the standard library's JSON text, and fails as it does.

Generated values (nested objects and arrays, any text including surrogates and non-ASCII,
big integers, floats with NaN and infinities, booleans, None) go through each encoder built
once and through the library call it stands for; the text, or the error's class and message,
must be the same.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from band_server import json_text

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _outcome(encode: Any, value: Any) -> tuple[str, str]:
    try:
        return ("text", encode(value))
    except (ValueError, TypeError) as exc:
        return (type(exc).__name__, str(exc))


def _answer_by_library(value: Any) -> str:
    return json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    )


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_dumps_writes_json_dumps_text(value: Any) -> None:
    assert _outcome(json_text.dumps, value) == _outcome(json.dumps, value)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_answer_text_writes_what_json_response_renders(value: Any) -> None:
    assert _outcome(json_text.answer_text, value) == _outcome(_answer_by_library, value)


def test_what_json_cannot_hold_fails_alike() -> None:
    for value in ({"x": float("nan")}, [float("inf")], {"when": object()}, {1: {2, 3}}):
        assert _outcome(json_text.answer_text, value) == _outcome(_answer_by_library, value)
        assert _outcome(json_text.dumps, value) == _outcome(json.dumps, value)
    assert json_text.answer_text({"a": "é"}) == '{"a":"é"}'
    assert json_text.dumps({"a": "é"}) == '{"a": "\\u00e9"}'


_KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_ANSWERS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _bytes_outcome(render: Any, value: Any) -> tuple[str, Any]:
    try:
        return ("bytes", render(value))
    except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
        return (type(exc).__name__, str(exc))


@settings(max_examples=400, deadline=None)
@given(_ANSWERS)
def test_the_fast_lanes_body_is_what_starlettes_json_response_renders(value: Any) -> None:
    """The fast lane's answer body (``answer_text`` then UTF-8) against Starlette's own
    ``JSONResponse.render`` (the library the lane stands beside), keys of every JSON-able
    kind included."""
    from starlette.responses import JSONResponse

    ours = _bytes_outcome(lambda v: json_text.answer_text(v).encode("utf-8"), value)
    theirs = _bytes_outcome(JSONResponse(None).render, value)
    assert ours == theirs
