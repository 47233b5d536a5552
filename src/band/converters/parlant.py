"""``ParlantHistoryConverter``: room history as the messages the Parlant adapter replays.

Parlant rebuilds a session from the whole conversation, this agent's own replies included, so
every text message is kept: an assistant's as it is (with its sender), anyone else's as
``[name]: text``. Events (tool calls, thoughts) are left out.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypedDict

from ._named import AgentNamed

__all__ = ["ParlantHistoryConverter", "ParlantMessage", "ParlantMessages", "ParlantRole"]


class ParlantRole(StrEnum):
    """Who said a replayed message: the customer's side or an agent."""

    USER = "user"
    ASSISTANT = "assistant"


class ParlantMessage(TypedDict, total=False):
    """One replayed message: role, content, and who sent it."""

    role: ParlantRole
    content: str
    sender: str
    sender_type: str


ParlantMessages = list[ParlantMessage]


class ParlantHistoryConverter(AgentNamed):
    """Room history -> ``ParlantMessages`` (text messages only, in order)."""

    def convert(self, raw: list[dict[str, Any]]) -> ParlantMessages:
        out: ParlantMessages = []
        for item in raw:
            if (item.get("message_type") or "text") != "text":
                continue
            content = str(item.get("content") or "")
            if not content.strip():
                continue
            sender = str(item.get("sender_name") or item.get("sender_type") or "Unknown")
            sender_type = str(item.get("sender_type") or "")
            if item.get("role") == "assistant":
                role, text = ParlantRole.ASSISTANT, content
            else:
                role, text = ParlantRole.USER, f"[{sender}]: {content}"
            out.append(
                ParlantMessage(role=role, content=text, sender=sender, sender_type=sender_type)
            )
        return out
