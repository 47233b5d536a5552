"""``CrewAIHistoryConverter``: room history as the plain role/content lines CrewAI is given."""

from __future__ import annotations

from typing import Any

from ._named import AgentNamed
from .tool_history import is_own_message

__all__ = ["CrewAIHistoryConverter", "CrewAIMessages"]

CrewAIMessages = list[dict[str, Any]]


class CrewAIHistoryConverter(AgentNamed):
    """Text messages only, as ``{"role", "content", "sender", "sender_type"}``.

    Others' messages are ``user`` lines ``[name]: text``; this agent's own replies are
    ``assistant`` lines, so a restarted agent still knows what it already said (band-sdk
    6.0.1 drops them). Tool events are left out: CrewAI starts each turn afresh.
    """

    def convert(self, raw: list[dict[str, Any]]) -> CrewAIMessages:
        messages: CrewAIMessages = []
        for item in raw:
            content = str(item.get("content") or "")
            if (item.get("message_type") or "text") != "text" or not content.strip():
                continue
            sender = str(item.get("sender_name") or "")
            own = is_own_message(item, self.agent_name)
            messages.append(
                {
                    "role": "assistant" if own else "user",
                    "content": content if own or not sender else f"[{sender}]: {content}",
                    "sender": sender,
                    "sender_type": str(item.get("sender_type") or "User"),
                }
            )
        return messages
