"""Input models of the person-side message tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field, field_validator

from ._base import RoomInput, require_visible_content

__all__ = ["ListMyChatMessagesInput", "SendMyChatMessageInput"]


class ListMyChatMessagesInput(RoomInput):
    """List a room's messages."""

    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")
    message_type: str | None = Field(None, description="Only this type: text, tool_call...")
    since: str | None = Field(None, description="Only after this ISO 8601 time (optional).")


class SendMyChatMessageInput(RoomInput):
    """Send a message to a room."""

    content: str = Field(..., description="The text (required).")
    recipients: str = Field(
        ..., description="Comma-separated names of the participants to @mention (at least one)."
    )

    _validate_content = field_validator("content")(require_visible_content)
