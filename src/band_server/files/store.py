"""Where file bytes live. ``FileStore`` is the seam; ``LocalFileStore`` the data-folder default.

An upload is first *staged* (streamed to a temporary object while it is hashed and counted,
refused as soon as it passes the limit), then either *kept* under its sha256 or discarded.
``keep`` returns only once the bytes are durable, so the caller may commit the database row
and answer 2xx right after it. Blobs are content-addressed: identical bytes are stored once.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import BinaryIO, Protocol

__all__ = ["FileMissing", "FileStore", "FileTooLarge", "LocalFileStore", "StagedFile"]

HEAD_BYTES = 8192  # enough for content sniffing
READ_CHUNK = 64 * 1024


class FileTooLarge(Exception):
    """The upload passed ``max_bytes``; nothing was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"file is larger than {limit} bytes")
        self.limit = limit


class FileMissing(Exception):
    """The store has no bytes for a recorded sha256 (a storage fault, not bad input)."""


class StagedFile(Protocol):
    """An upload that was fully received but is not kept yet."""

    sha256: str
    size: int
    head: bytes  # the first bytes, for content sniffing

    async def keep(self) -> None:
        """Make the bytes durable under ``sha256`` (idempotent)."""

    async def discard(self) -> None:
        """Drop the staged bytes unless they were kept (safe to call twice)."""


class FileStore(Protocol):
    """Content-addressed blob storage."""

    async def stage(self, chunks: AsyncIterable[bytes], *, max_bytes: int) -> StagedFile:
        """Receive ``chunks``; raise ``FileTooLarge`` as soon as they pass ``max_bytes``."""

    def read(self, sha256: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes]:
        """Bytes ``start`` to ``end`` (exclusive; None = to the end); ``FileMissing`` if gone."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _LocalStaged:
    def __init__(self, store: LocalFileStore, tmp: Path, sha256: str, size: int, head: bytes):
        self._store = store
        self._tmp: Path | None = tmp
        self.sha256 = sha256
        self.size = size
        self.head = head

    async def keep(self) -> None:
        if self._tmp is not None:
            await asyncio.to_thread(self._store._place, self._tmp, self.sha256)
            self._tmp = None

    async def discard(self) -> None:
        if self._tmp is not None:
            tmp, self._tmp = self._tmp, None
            await asyncio.to_thread(tmp.unlink, missing_ok=True)


class LocalFileStore:
    """Blobs at ``<root>/<first two hex digits>/<sha256>``; staging in ``<root>/tmp``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_of(self, sha256: str) -> Path:
        return self.root / sha256[:2] / sha256

    async def stage(self, chunks: AsyncIterable[bytes], *, max_bytes: int) -> StagedFile:
        tmp_dir = self.root / "tmp"
        await asyncio.to_thread(tmp_dir.mkdir, parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=tmp_dir, prefix="upload-")
        tmp = Path(name)
        digest = hashlib.sha256()
        size = 0
        head = bytearray()
        try:
            with os.fdopen(fd, "wb") as out:
                async for chunk in chunks:
                    if not chunk:
                        continue
                    size += len(chunk)
                    if size > max_bytes:
                        raise FileTooLarge(max_bytes)
                    digest.update(chunk)
                    if len(head) < HEAD_BYTES:
                        head += chunk[: HEAD_BYTES - len(head)]
                    await asyncio.to_thread(out.write, chunk)
                await asyncio.to_thread(_flush, out)
        except BaseException:
            await asyncio.to_thread(tmp.unlink, missing_ok=True)
            raise
        return _LocalStaged(self, tmp, digest.hexdigest(), size, bytes(head))

    def _place(self, tmp: Path, sha256: str) -> None:
        target = self.path_of(sha256)
        if target.exists():  # same bytes already stored (and durable)
            tmp.unlink(missing_ok=True)
            return
        created = not target.parent.exists()
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
        if created:
            _fsync_dir(self.root)

    async def read(
        self, sha256: str, start: int = 0, end: int | None = None
    ) -> AsyncIterator[bytes]:
        path = self.path_of(sha256)
        try:
            handle = await asyncio.to_thread(path.open, "rb")
        except FileNotFoundError as exc:
            raise FileMissing(sha256) from exc
        try:
            await asyncio.to_thread(handle.seek, start)
            left = None if end is None else max(0, end - start)
            while left is None or left > 0:
                want = READ_CHUNK if left is None else min(READ_CHUNK, left)
                chunk = await asyncio.to_thread(handle.read, want)
                if not chunk:
                    break
                if left is not None:
                    left -= len(chunk)
                yield chunk
        finally:
            handle.close()


def _flush(out: BinaryIO) -> None:
    out.flush()
    os.fsync(out.fileno())
