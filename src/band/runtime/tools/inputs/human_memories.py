"""Input models of the person-side memory tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import ToolInput
from .identifiers import ResourceId

__all__ = [
    "ArchiveUserMemoryInput",
    "DeleteUserMemoryInput",
    "GetUserMemoryInput",
    "ListUserMemoriesInput",
    "RestoreUserMemoryInput",
    "SupersedeUserMemoryInput",
]


class _MemoryIdInput(ToolInput):
    """An input naming one memory."""

    memory_id: ResourceId = Field(..., description="The memory's id (required).")


class ListUserMemoriesInput(ToolInput):
    """List the memories you can see."""

    chat_room_id: str | None = Field(None, description="Only this room's.")
    scope: str | None = Field(None, description="Only this scope.")
    system: str | None = Field(None, description="Only this memory system.")
    memory_type: str | None = Field(None, description="Only this memory type.")
    segment: str | None = Field(None, description="Only this segment.")
    content_query: str | None = Field(None, description="Words the content contains.")
    page_size: int | None = Field(None, description="Results per page.")
    status: str | None = Field(None, description="Only this status.")


class GetUserMemoryInput(_MemoryIdInput):
    """Show one memory."""


class SupersedeUserMemoryInput(_MemoryIdInput):
    """Mark a memory as superseded (outdated)."""


class ArchiveUserMemoryInput(_MemoryIdInput):
    """Archive a memory (hidden, kept)."""


class RestoreUserMemoryInput(_MemoryIdInput):
    """Restore an archived memory."""


class DeleteUserMemoryInput(_MemoryIdInput):
    """Delete a memory for good."""
