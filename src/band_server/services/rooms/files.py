"""Room files: uploading, finding, attaching to messages and opening for download.

Principal-agnostic like the message services: the caller has checked that the principal is
in the room. Bytes go to ``platform.files`` (a ``FileStore``); the row goes to ``room_files``.
Order of an upload: stage (stream + hash + size limit) → check → keep (durable) → commit the
row → answer. A refused upload keeps nothing; identical bytes in one room are one record.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import MAX_ATTACHMENTS, Attachment
from band_server.errors import ApiError, NotFound, ValidationFailed
from band_server.files import FileMissing, FileTooLarge
from band_server.files.naming import InvalidFileName, clean_file_name
from band_server.files.sniff import content_type_of
from band_server.files.store import HEAD_BYTES
from band_server.services.identity.principals import Principal
from band_server.services.ports import Filed
from band_server.services.unit import write
from band_server.services.views import from_row
from band_server.store.models import Room, RoomFile

__all__ = [
    "FileUnavailable",
    "OpenFile",
    "UploadMeta",
    "attachments_for",
    "file_view",
    "find_file",
    "get_file",
    "open_file",
    "too_large",
    "upload",
]

_SHA256 = re.compile(r"[0-9a-f]{64}")
log = logging.getLogger("band_server.files")


class FileUnavailable(ApiError):
    """503: the row exists but the store can't serve the bytes right now."""

    status_code = 503
    code = "file_unavailable"


def too_large(limit: int) -> ApiError:
    return ApiError(
        f"File is larger than the {limit}-byte limit",
        code="payload_too_large",
        status_code=413,
        details={"limit": limit},
    )


def _invalid(pointer: str, code: str, message: str) -> ApiError:
    return ApiError(message, code=code, status_code=422, details={pointer: [message]})


@dataclass(frozen=True)
class UploadMeta:
    """What the upload's headers said, checked before a byte of the body is read."""

    name: str
    declared_type: str | None
    sha256: str | None

    @classmethod
    def parse(cls, name: str | None, sha256: str | None, content_type: str | None) -> UploadMeta:
        try:
            clean = clean_file_name(name)
        except InvalidFileName as exc:
            raise _invalid("/x-file-name", "invalid_file_name", str(exc)) from exc
        digest = sha256.strip().lower() if sha256 else None
        if digest is not None and not _SHA256.fullmatch(digest):
            raise _invalid(
                "/x-file-sha256", "checksum_mismatch", "x-file-sha256 must be 64 hex digits"
            )
        return cls(clean, content_type, digest)


def file_view(row: RoomFile) -> Attachment:
    return from_row(Attachment, row, bytes=row.size)


async def _existing(session: AsyncSession, room_id: str, sha256: str) -> RoomFile | None:
    found: RoomFile | None = await session.scalar(
        select(RoomFile).where(RoomFile.room_id == room_id, RoomFile.sha256 == sha256)
    )
    return found


async def upload(
    platform: Filed,
    uploader: Principal,
    room: Room,
    meta: UploadMeta,
    chunks: AsyncIterable[bytes],
) -> tuple[Attachment, bool]:
    """Store an upload; returns its descriptor and whether a new record was made."""
    limit = platform.settings.max_file_bytes
    try:
        staged = await platform.files.stage(chunks, max_bytes=limit)
    except FileTooLarge as exc:
        raise too_large(exc.limit) from exc
    except OSError as exc:  # disk full, read-only, ...: nothing was kept
        log.warning("file store refused an upload: %s", exc)
        raise FileUnavailable("The file store can't take the file right now") from exc
    try:
        if staged.size == 0:
            raise _invalid("/", "empty_file", "The file is empty")
        if meta.sha256 is not None and meta.sha256 != staged.sha256:
            raise _invalid(
                "/x-file-sha256", "checksum_mismatch", "x-file-sha256 does not match the bytes"
            )
        content_type = content_type_of(
            staged.head, meta.declared_type, complete=staged.size <= HEAD_BYTES
        )
        await staged.keep()
    except OSError as exc:
        log.warning("file store could not keep an upload: %s", exc)
        raise FileUnavailable("The file store can't take the file right now") from exc
    finally:
        await staged.discard()
    for attempt in range(2):
        try:
            async with write(platform) as uow:
                row = await _existing(uow.session, room.id, staged.sha256)
                if row is not None:
                    return file_view(row), False
                row = RoomFile(
                    room_id=room.id,
                    sha256=staged.sha256,
                    name=meta.name,
                    content_type=content_type,
                    size=staged.size,
                    uploader_id=uploader.id,
                    uploader_type=uploader.sender_type,
                )
                uow.session.add(row)
                await uow.session.flush()
                return file_view(row), True
        except IntegrityError:
            # A concurrent upload of the same bytes to this room won the insert: use its row.
            if attempt:
                raise
    raise AssertionError("unreachable")


async def get_file(session: AsyncSession, room: Room, file_id: str) -> RoomFile:
    """A file of this room; any other id (another room's, unknown) is the same 404."""
    row = await session.get(RoomFile, file_id) if len(file_id) <= 36 else None
    if row is None or row.room_id != room.id:
        raise NotFound("File not found")
    return row


async def attachments_for(
    session: AsyncSession, room: Room, file_ids: Sequence[str]
) -> list[dict[str, Any]]:
    """Descriptors for a message's ``attachment_ids`` (in order, duplicates dropped).

    Any id that is not a file of this room refuses the whole message (422
    ``unknown_attachment``), so nothing is written.
    """
    ids = list(dict.fromkeys(file_ids))
    if len(ids) > MAX_ATTACHMENTS:
        raise ValidationFailed(
            f"at most {MAX_ATTACHMENTS} attachments per message",
            {"/message/attachment_ids": [f"at most {MAX_ATTACHMENTS} files"]},
        )
    rows = {
        r.id: r
        for r in await session.scalars(
            select(RoomFile).where(RoomFile.room_id == room.id, RoomFile.id.in_(ids))
        )
    }
    missing = [i for i, file_id in enumerate(ids) if file_id not in rows]
    if missing:
        pointers = [f"/message/attachment_ids/{i}" for i in missing]
        raise ApiError(
            "unknown_attachment",
            code="unknown_attachment",
            status_code=422,
            details={key: ["is not a file in this room"] for key in pointers},
        )
    return [file_view(rows[file_id]).model_dump(mode="json") for file_id in ids]


@dataclass
class OpenFile:
    """A file ready to stream: its descriptor, the byte span and the first chunk read."""

    file: Attachment
    start: int
    end: int  # exclusive
    chunks: AsyncIterator[bytes]

    @property
    def length(self) -> int:
        return self.end - self.start


async def find_file(platform: Filed, room: Room, file_id: str) -> Attachment:
    """The descriptor of a room's file (404 for anything else)."""
    async with platform.db.read() as session:
        return file_view(await get_file(session, room, file_id))


async def open_file(
    platform: Filed, file: Attachment, span: tuple[int, int] | None = None
) -> OpenFile:
    """Open a file (all of it, or ``span`` = [start, end)) for streaming.

    The first read happens here, so a store fault is a 503 before any byte is sent.
    """
    start, end = span if span is not None else (0, file.bytes)
    source = platform.files.read(file.sha256, start, end)
    try:
        first = await anext(source, b"")
    except FileMissing as exc:
        raise FileUnavailable("The file's bytes can't be read right now; retry") from exc

    async def chunks() -> AsyncIterator[bytes]:
        if first:
            yield first
        async for chunk in source:
            yield chunk

    return OpenFile(file, start, end, chunks())
