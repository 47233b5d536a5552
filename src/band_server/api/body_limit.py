"""A size limit on JSON request bodies of the REST API: 413 in the error envelope.

Without it a client could send any amount of JSON, and the idempotency layer and FastAPI
would hold all of it in memory before a model refused it. The largest legitimate body (a
32 KiB message, fully escaped) is far below the limit. File uploads (``PUT .../files``) are
streamed to the file store and limited there (``BAND_MAX_FILE_BYTES``), so they pass.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_response
from .raw_headers import header

MAX_JSON_BODY = 1 << 20  # 1 MiB
API_PREFIX = "/api/"


def _is_upload(scope: Scope) -> bool:
    return scope["method"] == "PUT" and str(scope["path"]).rstrip("/").endswith("/files")


class BodyLimit:
    """Pure ASGI middleware; see the module docstring."""

    def __init__(self, app: ASGIApp, limit: int = MAX_JSON_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not str(scope["path"]).startswith(API_PREFIX)
            or scope["method"] in ("GET", "HEAD", "OPTIONS")
            or _is_upload(scope)
        ):
            await self.app(scope, receive, send)
            return
        length = header(scope, b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.limit:
                await self._refuse(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
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
            if size > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            Request(scope),
            413,
            "payload_too_large",
            f"The request body is larger than {self.limit} bytes",
            {"limit": self.limit},
        )
        await response(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
