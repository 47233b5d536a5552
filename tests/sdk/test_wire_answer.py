"""``answer_of`` against ``httpx.Response(content=...)``: a differential property test.

The aiohttp wire builds its ``httpx.Response`` without httpx's constructor when the body has
no ``Content-Encoding``. Generated statuses, header lists (with and without
``Content-Length``, charsets, repeated names, odd case) and bodies (JSON, text in several
encodings, bytes, empty) go through both; everything a caller can read must match, and so
must the response's state afterwards.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import httpx
from hypothesis import given
from hypothesis import strategies as st

from band.platform._wire import _Answer, answer_of

NAMES = st.sampled_from(
    [b"content-type", b"Content-Type", b"x-request-id", b"Retry-After", b"set-cookie", b"date"]
)
VALUES = st.sampled_from(
    [b"application/json", b"text/plain; charset=latin-1", b"text/html", b"1", b"a=b", b"x"]
)
JSON_BODIES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
).map(lambda value: json.dumps({"data": value}).encode())
BODIES = st.one_of(
    JSON_BODIES,
    st.binary(max_size=64),
    st.text(max_size=30).map(lambda t: t.encode("utf-8")),
    st.text(alphabet="aé€ü", max_size=10).map(lambda t: t.encode("latin-1", "replace")),
    st.just(b""),
)
REASONS = st.sampled_from([None, "", "OK", "Not Found", "Unprocessable Entity"])


def reference(
    status: int, headers: list[tuple[bytes, bytes]], body: bytes, reason: str | None
) -> httpx.Response:
    """What the wire answered before: httpx's own constructor."""
    extensions = {"reason_phrase": (reason or "").encode(), "http_version": b"HTTP/1.1"}
    return _Answer(status, headers=headers, content=body, extensions=extensions)


def observed(response: httpx.Response) -> dict[str, Any]:
    """Everything a caller reads from a response, then its state."""
    seen: dict[str, Any] = {
        "status": response.status_code,
        "headers": response.headers.multi_items(),
        "raw_headers": response.headers.raw,
        "content": response.content,
        "reason": response.reason_phrase,
        "http_version": response.http_version,
        "extensions": response.extensions,
        "encoding": response.encoding,
        "text": response.text,
        "is_success": response.is_success,
        "is_error": response.is_error,
        "num_bytes": response.num_bytes_downloaded,
        "closed": (response.is_closed, response.is_stream_consumed),
        "bytes": list(response.iter_bytes()),
        "history": response.history,
        "next_request": response.next_request,
    }
    try:
        seen["json"] = response.json()
    except ValueError as exc:
        seen["json"] = type(exc)
    try:
        response.raise_for_status()
        seen["raised"] = None
    except httpx.HTTPStatusError as exc:
        seen["raised"] = str(exc)
    seen["request"] = (response.request.method, str(response.request.url))
    return seen


@given(
    status=st.sampled_from([200, 201, 204, 301, 400, 404, 409, 422, 429, 500, 503]),
    headers=st.lists(st.tuples(NAMES, VALUES), max_size=5),
    length=st.sampled_from(["none", "right", "upper"]),
    body=BODIES,
    reason=REASONS,
)
def test_answer_matches_httpx_constructor(
    status: int, headers: list[tuple[bytes, bytes]], length: str, body: bytes, reason: str | None
) -> None:
    if length == "right":
        headers = [(b"content-length", str(len(body)).encode()), *headers]
    elif length == "upper":
        headers = [*headers, (b"Content-Length", str(len(body)).encode())]
    fast = answer_of(status, list(headers), body, reason)
    slow = reference(status, list(headers), body, reason)
    for response in (fast, slow):
        response._method, response._url = "POST", "http://platform.test/api/v1/x"
    state = {k: v for k, v in vars(slow).items() if k != "_decoder"}
    assert {k: v for k, v in vars(fast).items() if k != "_decoder"}.keys() == state.keys()
    assert observed(fast) == observed(slow)


def test_encoded_body_is_decoded_as_httpx_does() -> None:
    body = json.dumps({"data": {"id": "m1"}}).encode()
    headers = [(b"content-encoding", b"gzip"), (b"content-type", b"application/json")]
    fast = answer_of(200, list(headers), gzip.compress(body), "OK")
    slow = reference(200, list(headers), gzip.compress(body), "OK")
    assert fast.content == slow.content == body
    assert observed(fast) == observed(slow)
