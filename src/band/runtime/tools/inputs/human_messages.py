"""Input models of the person-side message tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field, field_validator

from ._base import ToolInput, require_visible_content
from .identifiers import ResourceId

__all__ = ["ListMyChatMessagesInput", "SendMyChatMessageInput"]


class ListMyChatMessagesInput(ToolInput):
    """List a room's messages."""

    chat_id: ResourceId = Field(..., description="The room's id (required).")
    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")
    message_type: str | None = Field(None, description="Only this type: text, tool_call...")
    since: str | None = Field(None, description="Only after this ISO 8601 time (optional).")


class SendMyChatMessageInput(ToolInput):
    """Send a message to a room."""

    chat_id: ResourceId = Field(..., description="The room's id (required).")
    content: str = Field(..., description="The text (required).")
    recipients: str = Field(
        ..., description="Comma-separated names of the participants to @mention (at least one)."
    )

    _validate_content = field_validator("content")(require_visible_content)
