"""``OpencodeSessionState``: what a room's history says about its OpenCode session."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["OpencodeSessionState"]


@dataclass
class OpencodeSessionState:
    """The session to resume (from the adapter's latest ``task`` event, all ``None`` when
    there is none) and the room's messages to replay into a new session."""

    session_id: str | None = None
    mcp_server_name: str | None = None
    room_id: str | None = None
    created_at: datetime | None = None
    replay_messages: list[str] = field(default_factory=list)
