"""A size limit on JSON request bodies of the REST API: 413 in the error envelope.

Without it a client could send any amount of JSON, and the idempotency layer and FastAPI
would hold all of it in memory before a model refused it. The largest legitimate body (a
32 KiB message, fully escaped) is far below the limit. File uploads (``PUT .../files``) are
streamed to the file store and limited there (``BAND_MAX_FILE_BYTES``), so they pass.

Applied by the outermost HTTP layer (``http.front.Front``), before anything reads a body.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from band_server.http.errors import error_response
from band_server.http.raw_headers import header

MAX_JSON_BODY = 1 << 20  # 1 MiB
API_PREFIX = "/api/"


def _is_upload(scope: Scope) -> bool:
    return scope["method"] == "PUT" and str(scope["path"]).rstrip("/").endswith("/files")


def needs_reading(scope: Scope, limit: int = MAX_JSON_BODY) -> bool:
    """Whether :func:`admitted` must see the request: its body is limited here (a JSON API
    call that may carry one) and it does not declare a length within ``limit`` (then
    :func:`admitted` would hand its ``receive`` back as it is: no coroutine needed to know)."""
    method = scope["method"]
    if method in ("GET", "HEAD", "OPTIONS") or not str(scope["path"]).startswith(API_PREFIX):
        return False
    if method == "PUT" and _is_upload(scope):
        return False
    length = header(scope, b"content-length")
    return length is None or not length.isdigit() or int(length) > limit


async def admitted(
    scope: Scope, receive: Receive, send: Send, limit: int = MAX_JSON_BODY
) -> Receive | None:
    """The request's ``receive`` if its body is within ``limit`` (a replaying one when the
    body had to be read to know: no length given), or None once it was answered 413."""
    length = header(scope, b"content-length")
    if length is not None:
        if not length.isdigit() or int(length) > limit:
            await _refuse(scope, receive, send, limit)
            return None
        return receive
    # No length (chunked): read up to the limit, then hand the body on unchanged.
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            await _refuse(scope, receive, send, limit)
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return replay(b"".join(chunks), receive)


async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    response = error_response(
        Request(scope),
        413,
        "payload_too_large",
        f"The request body is larger than {limit} bytes",
        {"limit": limit},
    )
    await response(scope, receive, send)


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app ``body`` (already read) once, then the client's own."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
