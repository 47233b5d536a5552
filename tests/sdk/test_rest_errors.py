"""The platform's error envelope reads the same through both REST clients.

``BandRestClient`` builds its errors from the HTTP answer (``error_from_response``), the
band-client-rest errors (``NotFoundError(body)`` ...) from the body alone; both parse the
``{"error": {...}}`` envelope once (``BandRestError.from_envelope``). The answer adds what a
body cannot carry: the reason phrase and the ``x-request-id`` header.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from band.client.rest import NotFoundError, UnauthorizedError
from band.platform import BandRestError
from band.platform._http import error_from_response


def _facts(error: BandRestError) -> tuple[Any, ...]:
    return (error.status, error.code, error.message, error.details, error.request_id)


@pytest.mark.parametrize(
    ("envelope", "expected"),
    [
        (
            {"code": "room_not_found", "message": "No such room", "request_id": "req-1"},
            (404, "room_not_found", "No such room", {}, "req-1"),
        ),
        (
            {"code": "invalid", "message": "Bad id", "details": {"id": "r1"}},
            (404, "invalid", "Bad id", {"id": "r1"}, None),
        ),
        (
            {"message": "No such room", "details": ["not", "a", "dict"]},
            (404, "http_404", "No such room", {}, None),
        ),
    ],
)
def test_an_envelope_reads_alike_from_the_answer_and_from_the_body(
    envelope: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    body = {"error": envelope}
    assert _facts(error_from_response(httpx.Response(404, json=body))) == expected
    assert _facts(NotFoundError(body)) == expected


def test_the_answer_fills_what_the_envelope_leaves_out() -> None:
    answer = httpx.Response(
        404, json={"error": {"code": "room_not_found"}}, headers={"x-request-id": "hdr-7"}
    )
    error = error_from_response(answer)
    assert _facts(error) == (404, "room_not_found", "Not Found", {}, "hdr-7")
    # The body alone has no reason phrase nor header.
    typed = NotFoundError({"error": {"code": "room_not_found"}})
    assert _facts(typed) == (404, "room_not_found", "", {}, None)


def test_an_answer_without_an_envelope_keeps_its_text_and_status_code() -> None:
    answer = httpx.Response(502, text="  upstream down  ", headers={"x-request-id": "hdr-8"})
    assert _facts(error_from_response(answer)) == (502, "http_502", "upstream down", {}, "hdr-8")
    assert _facts(error_from_response(httpx.Response(503))) == (
        503,
        "http_503",
        "Service Unavailable",
        {},
        None,
    )
    typed = UnauthorizedError("bad key")
    assert _facts(typed) == (401, "http_401", "bad key", {}, None)
    assert typed.status_code == 401 and typed.body == "bad key"
