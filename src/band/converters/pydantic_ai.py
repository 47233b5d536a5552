"""``PydanticAIHistoryConverter``: room history as Pydantic AI ``ModelMessage`` objects."""

from __future__ import annotations

from band._extras import needs_extra

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

with needs_extra("PydanticAIHistoryConverter needs Pydantic AI", "pydantic-ai"):
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

__all__ = ["PydanticAIHistoryConverter"]


class PydanticAIHistoryConverter(FoldedHistoryConverter[ModelMessage]):
    """Own replies become a ``ModelResponse`` text part, others a ``UserPromptPart``
    ``"[name]: text"``; a tool exchange becomes a ``ModelResponse`` of ``ToolCallPart`` and a
    ``ModelRequest`` of ``ToolReturnPart``, paired by ``tool_call_id``.
    """

    def said(self, line: Said) -> list[ModelMessage]:
        if line.role == "assistant":
            return [ModelResponse(parts=[TextPart(content=line.text)])]
        return [ModelRequest(parts=[UserPromptPart(content=line.text)])]

    def exchange(self, tools: ToolExchange) -> list[ModelMessage]:
        pairs = tools.paired()
        calls = [
            ToolCallPart(tool_name=call.name, args=call.args, tool_call_id=call.tool_call_id)
            for call, _ in pairs
        ]
        returns = [
            ToolReturnPart(
                tool_name=call.name, content=result.output, tool_call_id=call.tool_call_id
            )
            for call, result in pairs
        ]
        return [ModelResponse(parts=calls), ModelRequest(parts=returns)]
