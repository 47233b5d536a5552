"""The base of the tool input models, and their shared field rule."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from band.core.content import BLANK_CONTENT_ERROR, has_visible_content

__all__ = ["ToolInput", "require_visible_content"]


class ToolInput(BaseModel):
    """Unknown arguments are ignored; fields are filled by name or alias."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


def require_visible_content(value: str) -> str:
    """A text field's rule: something visible, else the platform's "can't be blank"."""
    if not has_visible_content(value):
        raise ValueError(BLANK_CONTENT_ERROR)
    return value
