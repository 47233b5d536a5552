"""``AnthropicHistoryConverter``: room history as Anthropic Messages API messages."""

from __future__ import annotations

from typing import Any

from .tool_history import Said, fold_history

__all__ = ["AnthropicHistoryConverter"]


class AnthropicHistoryConverter:
    """Own replies become ``assistant``, others ``user`` as ``[name]: text``; tool events
    become an assistant message of ``tool_use`` blocks and a user message of ``tool_result``
    blocks (``is_error`` only when true).
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
            uses: list[dict[str, Any]] = []
            results: list[dict[str, Any]] = []
            for call, result in item.paired():
                uses.append(
                    {
                        "type": "tool_use",
                        "id": call.tool_call_id,
                        "name": call.name,
                        "input": call.args,
                    }
                )
                block: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": call.tool_call_id,
                    "content": result.output,
                }
                if result.is_error:
                    block["is_error"] = True
                results.append(block)
            messages.append({"role": "assistant", "content": uses})
            messages.append({"role": "user", "content": results})
        return messages
