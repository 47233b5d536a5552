"""Text rules both sides apply: a message or task line must carry something visible."""

from __future__ import annotations

import unicodedata

__all__ = ["has_visible_text"]

_VISIBLE = frozenset("LNPS")


def has_visible_text(text: str | None) -> bool:
    """True when ``text`` has a letter, number, punctuation or symbol character."""
    return bool(text) and any(unicodedata.category(ch)[0] in _VISIBLE for ch in text or "")
