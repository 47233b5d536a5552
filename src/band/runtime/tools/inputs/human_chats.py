"""Input models of the person-side room tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import ToolInput
from .identifiers import ResourceId

__all__ = ["CreateMyChatRoomInput", "GetMyChatRoomInput", "ListMyChatsInput"]


class ListMyChatsInput(ToolInput):
    """List the rooms you take part in."""

    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")


class GetMyChatRoomInput(ToolInput):
    """Show one of your rooms."""

    chat_id: ResourceId = Field(..., description="The room's id (required).")


class CreateMyChatRoomInput(ToolInput):
    """Create a room you own."""

    task_id: str | None = Field(None, description="A task to attach the room to (optional).")
