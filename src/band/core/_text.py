"""Small text helpers shared by tools and delivery."""

from __future__ import annotations

from band_protocol.text import has_visible_text

__all__ = ["has_visible_text", "truncate_middle"]


def truncate_middle(text: str, limit: int, marker: str = "\n... [truncated] ...\n") -> str:
    """Keep head and tail of ``text`` so the result fits ``limit`` characters."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(marker))
    head = keep // 2
    return text[:head] + marker + text[len(text) - (keep - head) :]
