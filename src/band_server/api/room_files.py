"""Room files on both surfaces: ``PUT .../chats/{id}/files`` and ``GET .../files/{file_id}``.

One router factory, mounted under the agent surface (agent key) and the human surface (a
person's key). The body of an upload is the file itself and is streamed, never buffered.
"""

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.requests import ClientDisconnect

from band_protocol import Attachment, Envelope

from ..errors import ApiError
from ..files.serving import download_headers
from ..http.deps import PlatformDep
from ..http.json_body import JsonRoute
from ..services.identity.principals import Principal
from ..services.rooms import files
from .answers import one

__all__ = ["file_routes", "parse_range"]

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
BYTES = {"type": "string", "format": "binary"}
"""The OpenAPI schema of a file's raw bytes."""
UPLOAD = {
    "requestBody": {"required": True, "content": {"application/octet-stream": {"schema": BYTES}}}
}
"""``openapi_extra`` of a route that takes a file's bytes as its body."""
UPLOAD_REFUSALS: dict[int | str, dict[str, Any]] = {
    413: {"description": "The file is larger than the limit"},
    503: {"description": "The file store can't take the file right now"},
}
FileName = Annotated[str | None, Header(max_length=2000)]
FileSha256 = Annotated[str | None, Header(max_length=200)]
ContentType = Annotated[str | None, Header(max_length=200, include_in_schema=False)]
"""A transport header, read but not documented as a parameter (a client sets it)."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | bool | None:
    """``(start, end)`` (end exclusive) for one satisfiable span; ``None`` to send the whole
    file (no header, or one that can't be parsed); ``False`` when it is past the end (416)."""
    if not header:
        return None
    match = _RANGE.fullmatch(header.strip())
    if match is None or not (match[1] or match[2]):
        return None
    first, last = match[1], match[2]
    if not first:  # the last N bytes
        count = int(last)
        if count == 0:
            return False
        return max(0, size - count), size
    start = int(first)
    end = size if not last else int(last) + 1
    if last and end <= start:
        return None
    if start >= size:
        return False
    return start, min(end, size)


def file_routes(principal: Any) -> APIRouter:
    """The file routes, authenticated by the ``principal`` dependency of one surface."""
    router = APIRouter(route_class=JsonRoute)
    Caller = Annotated[Principal, Depends(principal)]

    @router.put(
        "/chats/{chat_id}/files",
        status_code=201,
        responses={
            **one(Attachment, 201),
            200: {
                "model": Envelope[Attachment],
                "description": "The same bytes were already stored in this room",
            },
            **UPLOAD_REFUSALS,
        },
        openapi_extra=UPLOAD,
    )
    async def upload_file(
        request: Request,
        platform: PlatformDep,
        me: Caller,
        chat_id: str,
        x_file_name: FileName = None,
        x_file_sha256: FileSha256 = None,
        # Transport headers, read but not documented as parameters (a client sets them).
        content_type: ContentType = None,
        content_length: Annotated[int | None, Header(ge=0, include_in_schema=False)] = None,
    ) -> JSONResponse:
        """Store a file in the room (the body is the file); attach it to a message with
        ``attachment_ids``. The same bytes uploaded again to the room answer the same record."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        meta = files.UploadMeta.parse(x_file_name, x_file_sha256, content_type)
        limit = platform.settings.max_file_bytes
        if content_length is not None and content_length > limit:
            raise files.too_large(limit)
        try:
            view, created = await files.upload(platform, me, snap.room, meta, request.stream())
        except ClientDisconnect as exc:
            raise ApiError("The upload was interrupted", code="upload_interrupted") from exc
        body = {"data": view.model_dump(mode="json")}
        return JSONResponse(body, status_code=201 if created else 200)

    @router.get(
        "/chats/{chat_id}/files/{file_id}",
        response_class=Response,
        responses={
            # Served as the stored content type, whatever it is.
            200: {"content": {"*/*": {"schema": BYTES}}, "description": "File bytes"},
            206: {"content": {"*/*": {"schema": BYTES}}, "description": "Part of it"},
            416: {"description": "The range starts past the end of the file"},
            503: {"description": "The file's bytes can't be read right now; retry"},
        },
    )
    async def download_file(
        platform: PlatformDep,
        me: Caller,
        chat_id: str,
        file_id: str,
        range: Annotated[str | None, Header(max_length=200)] = None,
    ) -> Response:
        """The exact bytes of a room's file: a download, or inline for an image of a safe type
        (PNG, JPEG, GIF, WebP), never sniffed (``files.serving``); ``Range`` reads a part."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        found = await files.find_file(platform, snap.room, file_id)
        size = found.bytes
        span = parse_range(range, size)
        headers = {
            **download_headers(found.name, found.content_type),
            "Accept-Ranges": "bytes",
            "ETag": f'"{found.sha256}"',
            "Cache-Control": "private, max-age=0",
        }
        if span is False:
            raise ApiError(
                "Range not satisfiable",
                code="range_not_satisfiable",
                status_code=416,
                headers={"Content-Range": f"bytes */{size}"},
            )
        opened = await files.open_file(platform, found, span if isinstance(span, tuple) else None)
        status = 200
        if isinstance(span, tuple):
            status = 206
            headers["Content-Range"] = f"bytes {opened.start}-{opened.end - 1}/{size}"
        headers["Content-Length"] = str(opened.length)
        return StreamingResponse(
            opened.chunks, status_code=status, headers=headers, media_type=opened.file.content_type
        )

    return router
