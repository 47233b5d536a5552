"""The base of the tool input models, the paged and room-bound ones, and their shared field rule."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from band.core.content import BLANK_CONTENT_ERROR, has_visible_content

from .identifiers import ResourceId

__all__ = [
    "AgentPagedInput",
    "HumanPagedInput",
    "RoomInput",
    "ToolInput",
    "require_visible_content",
]


class ToolInput(BaseModel):
    """Unknown arguments are ignored; fields are filled by name or alias."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class AgentPagedInput(ToolInput):
    """An agent-side listing: the page first (from 1), 50 entries by default, 100 at most."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")


class HumanPagedInput(ToolInput):
    """A plain person-side listing: only the page and its size, both optional."""

    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")


class RoomInput(ToolInput):
    """An input about one room: ``chat_id`` first, then the tool's own fields."""

    chat_id: ResourceId = Field(..., description="The room's id (required).")


def require_visible_content(value: str) -> str:
    """A text field's rule: something visible, else the platform's "can't be blank"."""
    if not has_visible_content(value):
        raise ValueError(BLANK_CONTENT_ERROR)
    return value
