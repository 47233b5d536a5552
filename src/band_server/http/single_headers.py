"""Headers a request must send at most once: a request that repeats one is ambiguous.

Two ``X-API-Key`` headers name two callers; two ``Idempotency-Key`` or ``Content-Type``
headers, two requests. Every reader takes the first (``raw_headers.header``, Starlette's
``Headers.get``), so such a request would be served as one of the two the client may have
meant: it is refused instead, 400 ``duplicate_header``, before any layer reads it.

Applied by the outermost HTTP layer (``http.front.Front``) to the REST API.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from band_server.http.errors import error_response

SINGLE = {
    b"x-api-key": "X-API-Key",
    b"idempotency-key": "Idempotency-Key",
    b"content-type": "Content-Type",
}


def repeated(scope: Scope) -> str | None:
    """The first header of :data:`SINGLE` the request sends more than once, or None."""
    seen: list[bytes] = []
    for key, _ in scope["headers"]:
        if key in SINGLE:
            if key in seen:
                return SINGLE[key]
            seen.append(key)
    return None


async def refuse(scope: Scope, receive: Receive, send: Send, name: str) -> None:
    """Answer 400 ``duplicate_header`` for a request that sent ``name`` more than once."""
    message = f"{name} was sent more than once; send it once"
    response = error_response(Request(scope), 400, "duplicate_header", message)
    await response(scope, receive, send)
