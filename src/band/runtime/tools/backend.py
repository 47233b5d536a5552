"""What the room tools need from the platform: the REST calls, as a protocol.

``BandRestClient`` satisfies it; ``band.testing`` provides an in-memory one.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Page", "ToolBackend"]

Page = tuple[list[dict[str, Any]], dict[str, Any]]


class ToolBackend(Protocol):
    """The REST calls behind the platform tools (room-scoped ones take ``room_id``)."""

    async def post_message(
        self,
        room_id: str,
        content: str,
        mentions: list[dict[str, Any]],
        attachment_ids: list[str] | None = None,
    ) -> dict[str, Any]: ...

    async def post_event(
        self,
        room_id: str,
        content: str,
        message_type: str,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]: ...

    async def get_participants(self, room_id: str) -> list[dict[str, Any]]: ...

    async def get_context(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Page: ...

    async def add_participant(
        self, room_id: str, participant_id: str, role: str | None = None
    ) -> dict[str, Any]: ...

    async def remove_participant(self, room_id: str, participant_id: str) -> dict[str, Any]: ...

    async def lookup_peers(
        self, page: int = 1, page_size: int = 50, not_in_chat: str | None = None
    ) -> Page: ...

    async def create_chat(self, title: str | None = None, task_id: str | None = None) -> Any: ...

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> Page: ...

    async def add_contact(self, handle: str, message: str | None = None) -> dict[str, Any]: ...

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> dict[str, Any]: ...

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> tuple[dict[str, Any], dict[str, Any]]: ...

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> dict[str, Any]: ...

    async def list_memories(self, **filters: Any) -> Page: ...

    async def store_memory(self, **fields: Any) -> dict[str, Any]: ...

    async def get_memory(self, memory_id: str) -> dict[str, Any]: ...

    async def supersede_memory(self, memory_id: str) -> dict[str, Any]: ...

    async def archive_memory(self, memory_id: str) -> dict[str, Any]: ...

    # files (Capability.FILES)

    async def upload_file(
        self, room_id: str, content: bytes, *, filename: str, content_type: str, sha256: str
    ) -> dict[str, Any]: ...

    async def download_file(self, room_id: str, file_id: str) -> bytes: ...

    async def list_room_files(self, room_id: str, cursor: str | None = None) -> Page: ...

    async def find_room_file(self, room_id: str, file_id: str) -> dict[str, Any] | None: ...

    # tasks and the board (Capability.TASKS)

    async def list_tasks(
        self,
        room_id: str,
        state: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]: ...

    async def create_task(
        self,
        room_id: str,
        subject: str,
        detail: str | None = None,
        supersedes_id: str | None = None,
    ) -> dict[str, Any]: ...

    async def get_task(
        self, room_id: str, task_id: str, include: str | None = None
    ) -> dict[str, Any]: ...

    async def update_task(self, room_id: str, task_id: str, **fields: Any) -> dict[str, Any]: ...

    async def get_task_history(
        self, room_id: str, task_id: str, cursor: str | None = None, limit: int | None = None
    ) -> dict[str, Any]: ...

    async def get_board(self, room_id: str, include: str | None = None) -> dict[str, Any]: ...

    async def set_board(
        self, room_id: str, goal_title: str | None = None, goal_summary: str | None = None
    ) -> dict[str, Any]: ...
