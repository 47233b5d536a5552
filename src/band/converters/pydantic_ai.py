"""``PydanticAIHistoryConverter``: room history as Pydantic AI ``ModelMessage`` objects."""

from __future__ import annotations

from typing import Any

from .tool_history import Said, fold_history

try:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError(
        "PydanticAIHistoryConverter needs Pydantic AI: pip install 'openband[pydantic-ai]'"
    ) from None

__all__ = ["PydanticAIHistoryConverter"]


class PydanticAIHistoryConverter:
    """Own replies become a ``ModelResponse`` text part, others a ``UserPromptPart``
    ``"[name]: text"``; a tool exchange becomes a ``ModelResponse`` of ``ToolCallPart`` and a
    ``ModelRequest`` of ``ToolReturnPart``, paired by ``tool_call_id``.
    """

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[ModelMessage]:
        messages: list[ModelMessage] = []
        for item in fold_history(raw, self.agent_name):
            if isinstance(item, Said):
                if item.role == "assistant":
                    messages.append(ModelResponse(parts=[TextPart(content=item.text)]))
                else:
                    messages.append(ModelRequest(parts=[UserPromptPart(content=item.text)]))
                continue
            pairs = item.paired()
            messages.append(
                ModelResponse(
                    parts=[
                        ToolCallPart(
                            tool_name=call.name, args=call.args, tool_call_id=call.tool_call_id
                        )
                        for call, _ in pairs
                    ]
                )
            )
            messages.append(
                ModelRequest(
                    parts=[
                        ToolReturnPart(
                            tool_name=call.name,
                            content=result.output,
                            tool_call_id=call.tool_call_id,
                        )
                        for call, result in pairs
                    ]
                )
            )
        return messages
