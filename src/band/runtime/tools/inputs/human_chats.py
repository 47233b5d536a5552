"""Input models of the person-side room tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import HumanPagedInput, RoomInput, ToolInput

__all__ = ["CreateMyChatRoomInput", "GetMyChatRoomInput", "ListMyChatsInput"]


class ListMyChatsInput(HumanPagedInput):
    """List the rooms you take part in."""


class GetMyChatRoomInput(RoomInput):
    """Show one of your rooms."""


class CreateMyChatRoomInput(ToolInput):
    """Create a room you own."""

    task_id: str | None = Field(None, description="A task to attach the room to (optional).")
