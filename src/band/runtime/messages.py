"""``band.PlatformMessage``: a message as ``BandLink`` hands it to host code.

A mutable dataclass (unlike ``band.core.types.PlatformMessage``, the frozen one adapters
receive): content is the platform's text as stored (mention tokens untouched), ``metadata``
a plain dict. ``from_payload`` builds one from a pushed or REST message dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = ["PlatformMessage"]


def _timestamp(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return datetime.now(UTC)


@dataclass
class PlatformMessage:
    """One room message: who sent it, what it says, its metadata and time."""

    id: str
    room_id: str
    content: str
    sender_id: str
    sender_type: str
    sender_name: str | None
    message_type: str
    metadata: dict[str, Any]
    created_at: datetime

    def format_for_llm(self) -> str:
        """``[<sender_name or sender_type>]: <content>``."""
        return f"[{self.sender_name or self.sender_type}]: {self.content}"

    @classmethod
    def from_payload(
        cls, payload: Mapping[str, Any], room_id: str | None = None
    ) -> PlatformMessage:
        """From a message dict (``message_created`` push, ``/next``, list or context item)."""
        metadata = payload.get("metadata")
        name = payload.get("sender_name")
        return cls(
            id=str(payload.get("id") or ""),
            room_id=str(room_id or payload.get("chat_room_id") or ""),
            content=str(payload.get("content") or ""),
            sender_id=str(payload.get("sender_id") or ""),
            sender_type=str(payload.get("sender_type") or ""),
            sender_name=name if isinstance(name, str) else None,
            message_type=str(payload.get("message_type") or "text"),
            metadata=dict(metadata) if isinstance(metadata, dict) else {},
            created_at=_timestamp(payload.get("inserted_at")),
        )
