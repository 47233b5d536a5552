"""Small text helpers shared by tools and delivery."""

from __future__ import annotations

import unicodedata

__all__ = ["has_visible_text", "truncate_middle"]

_VISIBLE = frozenset("LNPS")


def has_visible_text(text: str | None) -> bool:
    """True when ``text`` has a letter, number, punctuation or symbol character."""
    return bool(text) and any(unicodedata.category(ch)[0] in _VISIBLE for ch in text or "")


def truncate_middle(text: str, limit: int, marker: str = "\n... [truncated] ...\n") -> str:
    """Keep head and tail of ``text`` so the result fits ``limit`` characters."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(marker))
    head = keep // 2
    return text[:head] + marker + text[len(text) - (keep - head) :]
