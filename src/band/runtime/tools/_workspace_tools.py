"""File and task tools (the FILES and TASKS capability groups).

Files: the platform has no "list files" call, so listing and lookup go through the agent's
context (messages it sent or was mentioned in carry their ``attachments``). Reading branches
on the descriptor before downloading: small text inline, a small image as an image block,
anything else described. Sending uploads text and posts it with a message (the reply).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from band.core._text import has_visible_text
from band.core.exceptions import BandToolError
from band.core.turn import Turn
from band.platform.errors import BandRestError
from band_protocol import TurnEffect

from .backend import ToolBackend
from .roster import Roster

__all__ = [
    "DEFAULT_FILE_CAPTION",
    "FILE_UNAVAILABLE_MESSAGE",
    "MAX_INLINE_IMAGE_BYTES",
    "MAX_INLINE_TEXT_BYTES",
    "MAX_SEND_CONTENT_BYTES",
    "WorkspaceTools",
]

T = TypeVar("T")

MAX_SEND_CONTENT_BYTES = 1_000_000  # what one tool call may compose, not the platform's limit
MAX_INLINE_TEXT_BYTES = 16 * 1024
MAX_INLINE_IMAGE_BYTES = 5 * 1024 * 1024
PREVIEWABLE_IMAGE_CONTENT_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DEFAULT_FILE_CAPTION = "Shared a file: {filename}"
# The platform answers one 404 for "no such file here" and "files are off": say both.
FILE_UNAVAILABLE_MESSAGE = "File not found, or file transfer is unavailable in this room."
FILENAME_HEADER_SAFE_PATTERN = re.compile(r"[\x20-\x7e]+")


class WorkspaceTools:
    """Mixin; needs ``backend``, ``turn``, ``room_id``, ``roster``, ``strict_mentions`` and
    ``send_message(content, mentions, attachment_ids=...)``."""

    backend: ToolBackend
    turn: Turn
    room_id: str
    roster: Roster
    strict_mentions: bool

    send_message: Callable[..., Awaitable[Any]]

    def _seen(self, effect: TurnEffect, value: T) -> T:
        self.turn.record(effect)
        return value

    # files

    async def list_room_files(self, cursor: str | None = None) -> dict[str, Any]:
        """Files attached to messages the agent sent or was mentioned in (one page)."""
        files, meta = await self.backend.list_room_files(self.room_id, cursor)
        return self._seen(
            TurnEffect.OBSERVE, {"data": files, "next_cursor": meta.get("next_cursor")}
        )

    async def _find_file(self, file_id: str) -> dict[str, Any]:
        found = await self.backend.find_room_file(self.room_id, file_id)
        if found is None:
            raise BandToolError(FILE_UNAVAILABLE_MESSAGE)
        return found

    async def _download(self, file_id: str) -> bytes:
        try:
            return await self.backend.download_file(self.room_id, file_id)
        except BandRestError as exc:
            if exc.status == 404:
                raise BandToolError(FILE_UNAVAILABLE_MESSAGE) from exc
            raise

    async def read_room_file(self, file_id: str) -> dict[str, Any]:
        """Small text inline, a small previewable image as an image block, else a description."""
        found = await self._find_file(file_id)
        kind = str(found.get("content_type") or "application/octet-stream")
        size = int(found.get("bytes") or 0)
        about = {"name": found.get("name"), "content_type": kind, "bytes": size}
        if kind.startswith("text/") and size <= MAX_INLINE_TEXT_BYTES:
            text = (await self._download(file_id)).decode("utf-8", errors="replace")
            result: dict[str, Any] = {**about, "text": text}
            if "\ufffd" in text:
                result["description"] = (
                    "The file is not valid UTF-8; undecodable bytes were replaced with \ufffd."
                )
            return self._seen(TurnEffect.OBSERVE, result)
        if kind in PREVIEWABLE_IMAGE_CONTENT_TYPES and size <= MAX_INLINE_IMAGE_BYTES:
            data = base64.b64encode(await self._download(file_id)).decode("ascii")
            block = {"type": "image", "data": data, "mimeType": kind}
            return self._seen(TurnEffect.OBSERVE, {"content": [block]})
        if kind.startswith("text/"):
            why = f"it is larger than the {MAX_INLINE_TEXT_BYTES}-byte inline text limit"
        elif kind in PREVIEWABLE_IMAGE_CONTENT_TYPES:
            why = f"it is larger than the {MAX_INLINE_IMAGE_BYTES}-byte inline image limit"
        else:
            why = "it is not a previewable text or image type"
        description = f"File not shown inline: {why}. Its contents were not fetched."
        return self._seen(TurnEffect.OBSERVE, {**about, "description": description})

    async def send_room_file(
        self,
        content: str,
        filename: str,
        caption: str = "",
        mentions: list[str] | None = None,
    ) -> dict[str, Any]:
        """Upload ``content`` as a file and post it with ``caption``; this answers the turn."""
        if not FILENAME_HEADER_SAFE_PATTERN.fullmatch(filename):
            raise BandToolError(
                f"Filename {filename!r} must use plain printable ASCII characters only (no "
                "accents, CJK, emoji, line breaks or control characters). Rename it and retry."
            )
        body = content.encode("utf-8")
        if len(body) > MAX_SEND_CONTENT_BYTES:
            raise BandToolError(
                f"File content is {len(body)} bytes, over the {MAX_SEND_CONTENT_BYTES}-byte limit "
                "of band_send_room_file. Send shorter content."
            )
        # Resolve first: a bad mention must fail before the upload leaves an orphan file.
        wire = self.roster.resolve(mentions, strict=self.strict_mentions)
        if not has_visible_text(caption):
            caption = DEFAULT_FILE_CAPTION.format(filename=filename)
        try:
            attachment = await self.backend.upload_file(
                self.room_id,
                body,
                filename=filename,
                content_type="text/plain",
                sha256=hashlib.sha256(body).hexdigest(),
            )
        except BandRestError as exc:
            if exc.status == 404:
                raise BandToolError(FILE_UNAVAILABLE_MESSAGE) from exc
            raise
        sent = await self.send_message(caption, wire, attachment_ids=[str(attachment["id"])])
        message_id = sent.get("id") if isinstance(sent, dict) else getattr(sent, "id", None)
        return {"attachment": attachment, "message_id": message_id}

    # tasks and the board

    async def list_tasks(
        self, state: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """The room's tasks by number (active ones by default)."""
        page = await self.backend.list_tasks(self.room_id, state, cursor, limit)
        return self._seen(TurnEffect.OBSERVE, page)

    async def create_task(
        self, subject: str, detail: str | None = None, supersedes_id: str | None = None
    ) -> dict[str, Any]:
        """Create a task on the board (the agent is not assigned to it)."""
        task = await self.backend.create_task(self.room_id, subject, detail, supersedes_id)
        return self._seen(TurnEffect.ACT, task)

    async def get_task(self, id: str, include: str | None = None) -> dict[str, Any]:
        """One task by id or board number."""
        task = await self.backend.get_task(self.room_id, id, include)
        return self._seen(TurnEffect.OBSERVE, task)

    async def update_task(
        self,
        id: str,
        status: str | None = None,
        active_form: str | None = None,
        comment: str | None = None,
        subject: str | None = None,
        detail: str | None = None,
        state: str | None = None,
    ) -> dict[str, Any]:
        """Report the agent's status, comment, edit, or change the task's lifecycle."""
        fields = {
            "status": status,
            "active_form": active_form,
            "comment": comment,
            "subject": subject,
            "detail": detail,
            "state": state,
        }
        if all(v is None for v in fields.values()):
            raise ValueError(
                "give at least one of status, active_form, comment, subject, detail, state"
            )
        task = await self.backend.update_task(self.room_id, id, **fields)
        return self._seen(TurnEffect.ACT, task)

    async def get_task_history(
        self,
        id: str,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """A task's append-only history, oldest first."""
        page = await self.backend.get_task_history(self.room_id, id, cursor, limit)
        return self._seen(TurnEffect.OBSERVE, page)

    async def get_board(self, include: str | None = None) -> dict[str, Any]:
        """The room's goal."""
        return self._seen(TurnEffect.OBSERVE, await self.backend.get_board(self.room_id, include))

    async def set_board(
        self, goal_title: str | None = None, goal_summary: str | None = None
    ) -> dict[str, Any]:
        """Set or change the room's goal (at least one field)."""
        if goal_title is None and goal_summary is None:
            raise ValueError("give goal_title, goal_summary or both")
        board = await self.backend.set_board(self.room_id, goal_title, goal_summary)
        return self._seen(TurnEffect.ACT, board)
