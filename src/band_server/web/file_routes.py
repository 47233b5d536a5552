"""Room files in the web app: the composer's upload, the timeline's download links and the
previews' thumbnails.

An upload is the file itself as the request body (streamed, never buffered), named by the
``X-File-Name`` header (percent-encoded UTF-8, as the script sends it) and protected by the
session's CSRF token in ``X-CSRF-Token``: there is no form body to carry it. The same service
as ``PUT /api/v1/me/chats/{id}/files`` stores it, with the same limit (413) and name rules.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.requests import ClientDisconnect

from band_protocol import Attachment

from ..errors import ApiError
from ..files.serving import download_headers
from ..services import files, thumbnails
from ..services.identity.web_sessions import SignedIn
from .respond import api_failure, forbidden_form, json, platform_of, session_of, signed_out, view
from .security import secure_headers, tokens_match

router = APIRouter()


def _declared_length(request: Request) -> int | None:
    raw = request.headers.get("content-length", "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


async def _store(request: Request, me: SignedIn, room_id: str) -> Response:
    platform = platform_of(request)
    snap = await platform.rosters.room_for(platform.db, me.person, room_id)
    meta = files.UploadMeta.parse(
        request.headers.get("x-file-name"), None, request.headers.get("content-type")
    )
    limit = platform.settings.max_file_bytes
    declared = _declared_length(request)
    if declared is not None and declared > limit:
        raise files.too_large(limit)
    try:
        stored, created = await files.upload(platform, me.person, snap.room, meta, request.stream())
    except ClientDisconnect as exc:
        raise ApiError("The upload was interrupted", code="upload_interrupted") from exc
    return json({"data": stored.model_dump(mode="json")}, 201 if created else 200)


@router.post("/rooms/{room_id}/files")
async def upload(request: Request, room_id: str) -> Response:
    """Store a file in the room for the composer; the message that shows it comes next."""
    me = await session_of(request)
    if me is None:
        return signed_out(request)
    if not tokens_match(me.csrf_token, request.headers.get("x-csrf-token")):
        return forbidden_form(request, me)
    try:
        return await _store(request, me, room_id)
    except ApiError as exc:
        return api_failure(request, me, exc)


async def _room_file(request: Request, me: SignedIn, room_id: str, file_id: str) -> Attachment:
    """A file of a room the person is in (404 for anything else)."""
    platform = platform_of(request)
    snap = await platform.rosters.room_for(platform.db, me.person, room_id)
    return await files.find_file(platform, snap.room, file_id)


@router.get("/rooms/{room_id}/files/{file_id}")
async def download(request: Request, room_id: str, file_id: str) -> Response:
    """A file shared in the room: a download, or an image of a safe type shown inline; never
    rendered as a page (``files.serving``)."""

    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        found = await _room_file(request, me, room_id, file_id)
        opened = await files.open_file(platform, found)
        headers = {
            **download_headers(found.name, found.content_type),
            "Content-Length": str(opened.length),
        }
        return secure_headers(
            StreamingResponse(opened.chunks, headers=headers, media_type=opened.file.content_type)
        )

    return await view(request, run)


# A thumbnail never changes for a file (its content is fixed): a browser keeps it, privately.
THUMB_CACHE = "private, max-age=31536000, immutable"


@router.get("/rooms/{room_id}/files/{file_id}/thumbnail")
async def thumbnail(request: Request, room_id: str, file_id: str) -> Response:
    """A small WebP of an image shared in the room, for the timeline's previews: decoded on
    the server within bounds, stripped of metadata (``services.thumbnails``)."""

    async def run(me: SignedIn) -> Response:
        found = await _room_file(request, me, room_id, file_id)
        thumb = await thumbnails.thumbnail_of(platform_of(request), found)
        headers = {
            **download_headers(f"{found.name}.thumbnail.webp", thumb.content_type),
            "Cache-Control": THUMB_CACHE,
            "ETag": thumb.etag,
        }
        if request.headers.get("if-none-match") == thumb.etag:
            return secure_headers(Response(status_code=304, headers=headers))
        return secure_headers(Response(thumb.data, headers=headers, media_type=thumb.content_type))

    return await view(request, run)
