"""``LangChainHistoryConverter``: room history as LangChain messages (for LangGraph)."""

from __future__ import annotations

from typing import Any

from .tool_history import Said, fold_history

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError(
        "LangChainHistoryConverter needs LangChain: pip install 'openband[langgraph]'"
    ) from None

__all__ = ["LangChainHistoryConverter"]


class LangChainHistoryConverter:
    """Own replies become ``AIMessage``, others ``HumanMessage("[name]: text")``; a tool
    exchange becomes an ``AIMessage`` with ``tool_calls`` and one ``ToolMessage`` per call.
    """

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[BaseMessage]:
        messages: list[BaseMessage] = []
        for item in fold_history(raw, self.agent_name):
            if isinstance(item, Said):
                cls = AIMessage if item.role == "assistant" else HumanMessage
                messages.append(cls(content=item.text))
                continue
            pairs = item.paired()
            calls = [
                {"name": call.name, "args": call.args, "id": call.tool_call_id, "type": "tool_call"}
                for call, _ in pairs
            ]
            messages.append(AIMessage(content="", tool_calls=calls))
            messages.extend(
                ToolMessage(
                    content=result.output,
                    tool_call_id=call.tool_call_id,
                    name=call.name,
                    status="error" if result.is_error else "success",
                )
                for call, result in pairs
            )
        return messages
