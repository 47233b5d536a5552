"""What counts as visible content: the platform's own rule, so both sides refuse alike."""

from __future__ import annotations

from band_protocol.text import has_visible_text

__all__ = ["BLANK_CONTENT_ERROR", "has_visible_content"]

BLANK_CONTENT_ERROR = "can't be blank"


def has_visible_content(value: str) -> bool:
    """True when ``value`` has a letter, number, punctuation or symbol (not only spaces)."""
    return has_visible_text(value)
