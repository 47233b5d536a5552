"""REST calls of a room's workspace: files (upload, download, listing) and the task board."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from ._http import HttpCore, error_from_response
from ._social import Page, get_page

__all__ = ["WorkspaceCalls", "task_ref"]


def task_ref(task_id: str | int) -> str:
    """A task id or board number as a path segment (``#3`` and ``3`` both name task 3)."""
    return quote(str(task_id).strip().removeprefix("#"), safe="")


class WorkspaceCalls:
    """Mixin of file and task calls; needs ``self.http``."""

    http: HttpCore

    # files

    async def upload_file(
        self, room_id: str, content: bytes, *, filename: str, content_type: str, sha256: str
    ) -> dict[str, Any]:
        """Store a file in the room (``PUT .../files``); returns its attachment descriptor."""
        headers = {"x-file-name": filename, "x-file-sha256": sha256, "content-type": content_type}
        response = await self.http.send(
            "PUT", f"/agent/chats/{room_id}/files", content=content, extra_headers=headers
        )
        if not response.is_success:
            raise error_from_response(response)
        return dict(response.json().get("data") or {})

    async def download_file(self, room_id: str, file_id: str) -> bytes:
        """The exact bytes of a room's file."""
        path = f"/agent/chats/{room_id}/files/{quote(file_id, safe='')}"
        response = await self.http.send("GET", path)
        if not response.is_success:
            raise error_from_response(response)
        return response.content

    async def _context_pages(self, room_id: str, cursor: str | None) -> AsyncIterator[Page]:
        seen: set[str] = set()
        while True:
            params = {"cursor": cursor, "limit": 100}
            messages, meta = await get_page(self.http, f"/agent/chats/{room_id}/context", params)
            yield messages, meta
            cursor = meta.get("next_cursor")
            if not (meta.get("has_more") and cursor) or cursor in seen:
                return
            seen.add(cursor)

    async def list_room_files(self, room_id: str, cursor: str | None = None) -> Page:
        """Files attached to one page of the agent's context (its messages and those
        mentioning it), deduplicated by id; metadata holds ``next_cursor`` and ``has_more``."""
        async for messages, meta in self._context_pages(room_id, cursor):
            found = {a["id"]: a for m in messages for a in m.get("attachments") or []}
            more = {"next_cursor": meta.get("next_cursor"), "has_more": bool(meta.get("has_more"))}
            return list(found.values()), more
        return [], {"next_cursor": None, "has_more": False}

    async def find_room_file(self, room_id: str, file_id: str) -> dict[str, Any] | None:
        """The descriptor of a file in the agent's context, searching every page."""
        async for messages, _ in self._context_pages(room_id, None):
            for message in messages:
                for attachment in message.get("attachments") or []:
                    if attachment.get("id") == file_id:
                        return dict(attachment)
        return None

    # tasks and the board

    async def list_tasks(
        self,
        room_id: str,
        state: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """One page of the room's tasks by number: ``{"data": [...], "metadata": {...}}``."""
        params = {"state": state, "cursor": cursor, "limit": limit}
        return await self.http.call_full("GET", f"/agent/chats/{room_id}/tasks", params=params)

    async def create_task(
        self,
        room_id: str,
        subject: str,
        detail: str | None = None,
        supersedes_id: str | None = None,
    ) -> dict[str, Any]:
        """Create a task on the room's board."""
        body: dict[str, Any] = {"subject": subject}
        if detail is not None:
            body["detail"] = detail
        if supersedes_id is not None:
            body["supersedes_id"] = str(supersedes_id).strip().removeprefix("#")
        return dict(await self.http.call("POST", f"/agent/chats/{room_id}/tasks", json=body) or {})

    async def get_task(
        self, room_id: str, task_id: str, include: str | None = None
    ) -> dict[str, Any]:
        """One task by id or board number (``include="history"`` embeds recent history)."""
        path = f"/agent/chats/{room_id}/tasks/{task_ref(task_id)}"
        return dict(await self.http.call("GET", path, params={"include": include}) or {})

    async def update_task(self, room_id: str, task_id: str, **fields: Any) -> dict[str, Any]:
        """Change a task: status, active_form, comment, subject, detail, state, ..."""
        body = {k: v for k, v in fields.items() if v is not None}
        path = f"/agent/chats/{room_id}/tasks/{task_ref(task_id)}"
        return dict(await self.http.call("POST", path, json=body) or {})

    async def get_task_history(
        self, room_id: str, task_id: str, cursor: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """One page of a task's append-only history, oldest first."""
        path = f"/agent/chats/{room_id}/tasks/{task_ref(task_id)}/history"
        return await self.http.call_full("GET", path, params={"cursor": cursor, "limit": limit})

    async def get_board(self, room_id: str, include: str | None = None) -> dict[str, Any]:
        """The room's goal."""
        path = f"/agent/chats/{room_id}/board"
        return dict(await self.http.call("GET", path, params={"include": include}) or {})

    async def set_board(
        self, room_id: str, goal_title: str | None = None, goal_summary: str | None = None
    ) -> dict[str, Any]:
        """Set or change the room's goal (only the fields given)."""
        pairs = (("goal_title", goal_title), ("goal_summary", goal_summary))
        body = {k: v for k, v in pairs if v is not None}
        path = f"/agent/chats/{room_id}/board"
        return dict(await self.http.call("PUT", path, json=body) or {})
