"""The envelope a bridge forwards for one platform event."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from band.platform.event import PlatformEvent

__all__ = ["FORWARDED_EVENTS", "envelope"]

FORWARDED_EVENTS = frozenset(
    {
        "message_created",
        "room_added",
        "room_removed",
        "room_deleted",
        "participant_added",
        "participant_removed",
    }
)


def envelope(agent_id: str, event: PlatformEvent) -> dict[str, Any]:
    """``{event_type, agent_id, room_id, payload, raw, forwarded_at}`` for ``event``."""
    raw = dict(event.raw or {})
    return {
        "event_type": event.type,
        "agent_id": agent_id,
        "room_id": event.room_id,
        "payload": raw,
        "raw": raw,
        "forwarded_at": datetime.now(UTC).isoformat(),
    }
