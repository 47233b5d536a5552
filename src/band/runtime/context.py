"""``ConversationContext``: what an execution knows about its room at one moment."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["ConversationContext"]


@dataclass
class ConversationContext:
    """A room's hydrated context: its messages (oldest first) and participants."""

    room_id: str
    messages: list[dict[str, Any]]
    participants: list[dict[str, Any]]
    hydrated_at: datetime
