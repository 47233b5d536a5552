"""``LettaHistoryConverter``: the Letta agent (and conversation) a room resumes, and its text.

The latest ``task`` event naming ``letta_agent_id`` says which agent to resume; the room's
text messages, as ``[Name]: text`` lines, seed a new agent when none can be resumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from band.converters.helpers import task_metadata
from band.core.protocols import HistoryConverter

__all__ = ["LettaHistoryConverter", "LettaSessionState"]


@dataclass
class LettaSessionState:
    """What a room's history holds for the Letta adapter."""

    agent_id: str | None = None
    conversation_id: str | None = None
    room_id: str | None = None
    created_at: datetime | None = None
    replay_messages: list[str] = field(default_factory=list)

    def has_agent(self) -> bool:
        return bool(self.agent_id)


class LettaHistoryConverter(HistoryConverter[LettaSessionState]):
    """Reads the latest ``letta_*`` task metadata and the text transcript."""

    def set_agent_name(self, name: str) -> None:
        """Not needed: the transcript names every speaker."""

    def convert(self, raw: list[dict[str, Any]]) -> LettaSessionState:
        replay = [_line(item) for item in raw if _is_text(item)]
        for item in reversed(raw):
            metadata = task_metadata(item)
            if metadata and metadata.get("letta_agent_id"):
                return LettaSessionState(
                    agent_id=str(metadata["letta_agent_id"]),
                    conversation_id=_text(metadata.get("letta_conversation_id")),
                    room_id=_text(metadata.get("letta_room_id")),
                    created_at=_when(metadata.get("letta_created_at")),
                    replay_messages=replay,
                )
        return LettaSessionState(replay_messages=replay)


def _is_text(item: dict[str, Any]) -> bool:
    return item.get("message_type", "text") == "text" and bool(
        str(item.get("content") or "").strip()
    )


def _line(item: dict[str, Any]) -> str:
    speaker = item.get("sender_name") or item.get("sender_type") or "Unknown"
    return f"[{speaker}]: {item['content']}"


def _text(value: Any) -> str | None:
    return str(value) if value else None


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None
