"""A room's Letta agent as the adapter keeps it, and the one user message of each turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage


@dataclass
class RoomContext:
    """A room's Letta agent (and conversation, shared mode) and what the next turn needs."""

    agent_id: str
    conversation_id: str | None = None
    last_interaction: datetime | None = None
    summary: str | None = None
    tools: AgentToolsProtocol | None = None  # the turn in progress (Band's MCP tools use it)
    pending_seed: list[str] = field(default_factory=list)


def turn_content(
    msg: PlatformMessage,
    room: RoomContext,
    participants_msg: str | None,
    contacts_msg: str | None,
    *,
    bootstrap: bool,
    shared_room_id: str | None,
) -> str:
    """The one user message of a turn: context lines as ``[System]:``, then the message.
    ``shared_room_id``: the room, when one agent serves every room (each call names it)."""
    parts: list[str] = []
    if room.pending_seed:
        parts.append(
            "[System]: You are joining a conversation already under way. Earlier messages, "
            "oldest first (context only; do not answer them again):\n"
            + "\n".join(room.pending_seed)
        )
    if bootstrap and room.last_interaction is not None:
        when = f"{room.last_interaction:%Y-%m-%d %H:%M} UTC"
        note = f"[System]: You are back in this room (last here {when})."
        parts.append(note + (f" Previous topic: {room.summary}" if room.summary else ""))
    if shared_room_id is not None:
        parts.append(
            f"[System]: Current chat_id: {shared_room_id}. Pass it as `chat_id` in every tool call."
        )
    parts += [f"[System]: {text}" for text in (participants_msg, contacts_msg) if text]
    parts.append(msg.format_for_llm())
    return "\n\n".join(parts)
