"""``OpenAIChatHistoryConverter``: room history as OpenAI Chat Completions messages."""

from __future__ import annotations

import json
from typing import Any

from .tool_history import Said, fold_history

__all__ = ["OpenAIChatHistoryConverter"]


class OpenAIChatHistoryConverter:
    """Own replies become ``assistant``, others ``user`` as ``[name]: text``; tool events
    become an assistant message with ``tool_calls`` followed by one ``tool`` message per call.
    """

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        for item in fold_history(raw, self.agent_name):
            if isinstance(item, Said):
                messages.append({"role": item.role, "content": item.text})
                continue
            pairs = item.paired()
            calls = [
                {
                    "id": call.tool_call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.args)},
                }
                for call, _ in pairs
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            messages.extend(
                {"role": "tool", "tool_call_id": call.tool_call_id, "content": result.output}
                for call, result in pairs
            )
        return messages
