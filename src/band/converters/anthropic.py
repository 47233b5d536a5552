"""``AnthropicHistoryConverter``: room history as Anthropic Messages API messages."""

from __future__ import annotations

from typing import Any

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

__all__ = ["AnthropicHistoryConverter"]


class AnthropicHistoryConverter(FoldedHistoryConverter[dict[str, Any]]):
    """Own replies become ``assistant``, others ``user`` as ``[name]: text``; tool events
    become an assistant message of ``tool_use`` blocks and a user message of ``tool_result``
    blocks (``is_error`` only when true).
    """

    def said(self, line: Said) -> list[dict[str, Any]]:
        return [{"role": line.role, "content": line.text}]

    def exchange(self, tools: ToolExchange) -> list[dict[str, Any]]:
        uses, results = tools.blocks(
            lambda call: {
                "type": "tool_use",
                "id": call.tool_call_id,
                "name": call.name,
                "input": call.args,
            },
            lambda call, result: {
                "type": "tool_result",
                "tool_use_id": call.tool_call_id,
                "content": result.output,
            },
        )
        return [{"role": "assistant", "content": uses}, {"role": "user", "content": results}]
