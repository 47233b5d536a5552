"""``OpenAIChatHistoryConverter``: room history as OpenAI Chat Completions messages."""

from __future__ import annotations

import json
from typing import Any

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

__all__ = ["OpenAIChatHistoryConverter", "openai_tool_calls"]


def openai_tool_calls(tools: ToolExchange) -> list[dict[str, Any]]:
    """An exchange's calls as OpenAI ``tool_calls`` (arguments as JSON text), in call order."""
    return [
        {
            "id": call.tool_call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.args)},
        }
        for call, _ in tools.paired()
    ]


class OpenAIChatHistoryConverter(FoldedHistoryConverter[dict[str, Any]]):
    """Own replies become ``assistant``, others ``user`` as ``[name]: text``; tool events
    become an assistant message with ``tool_calls`` followed by one ``tool`` message per call.
    """

    def said(self, line: Said) -> list[dict[str, Any]]:
        return [{"role": line.role, "content": line.text}]

    def exchange(self, tools: ToolExchange) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": None, "tool_calls": openai_tool_calls(tools)},
            *(
                {"role": "tool", "tool_call_id": call.tool_call_id, "content": result.output}
                for call, result in tools.paired()
            ),
        ]
