"""Input models of the person-side room tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import RoomInput, ToolInput

__all__ = ["CreateMyChatRoomInput", "GetMyChatRoomInput", "ListMyChatsInput"]


class ListMyChatsInput(ToolInput):
    """List the rooms you take part in."""

    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")


class GetMyChatRoomInput(RoomInput):
    """Show one of your rooms."""


class CreateMyChatRoomInput(ToolInput):
    """Create a room you own."""

    task_id: str | None = Field(None, description="A task to attach the room to (optional).")
