"""A room file's thumbnail, as the web app's previews ask for it: made once per file content
(``files.thumbnails``, in a worker thread, at most two at a time) and kept in the data folder
under the file's sha256, so the next request is a read. Only images of the types the previews
show have one; an image too large or damaged to decode gets a 422 in words."""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from band_protocol import Attachment

from ..errors import ApiError, NotFound
from ..files.serving import INLINE_TYPES
from ..files.thumbnails import MAX_SIDE, MAX_SOURCE_BYTES, THUMB_TYPE, NotAThumbnail, thumbnail
from .files import open_file
from .ports import Filed

_DECODERS = asyncio.Semaphore(2)


@dataclass(frozen=True)
class Thumb:
    """A thumbnail's bytes, type and validator (the same for the same file content)."""

    data: bytes
    content_type: str
    etag: str


def _unusable(message: str) -> ApiError:
    return ApiError(message, code="thumbnail_unavailable", status_code=422)


def _cached(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _keep(path: Path, data: bytes) -> None:
    """Write atomically: a reader sees the whole thumbnail or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def thumbnail_of(platform: Filed, file: Attachment) -> Thumb:
    """The file's thumbnail: 404 for a file that is no previewable image, 422 for an image
    too large (bytes or pixels) or too damaged to decode."""
    if file.content_type not in INLINE_TYPES:
        raise NotFound("This file has no thumbnail", code="no_thumbnail")
    if file.bytes > MAX_SOURCE_BYTES:
        raise _unusable(f"The image is larger than {MAX_SOURCE_BYTES} bytes: open it instead")
    etag = f'"{file.sha256}-{MAX_SIDE}"'
    path = platform.settings.data_dir / "thumbnails" / f"{file.sha256}-{MAX_SIDE}.webp"
    kept = await asyncio.to_thread(_cached, path)
    if kept is not None:
        return Thumb(kept, THUMB_TYPE, etag)
    async with _DECODERS:
        opened = await open_file(platform, file)
        data = b"".join([chunk async for chunk in opened.chunks])
        try:
            made = await asyncio.to_thread(thumbnail, data)
        except NotAThumbnail as exc:
            raise _unusable(f"No thumbnail: {exc}") from None
    await asyncio.to_thread(_keep, path, made)
    return Thumb(made, THUMB_TYPE, etag)
