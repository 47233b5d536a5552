"""``LangChainHistoryConverter``: room history as LangChain messages (for LangGraph)."""

from __future__ import annotations

from band._extras import needs_extra

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

with needs_extra("LangChainHistoryConverter needs LangChain", "langgraph"):
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["LangChainHistoryConverter"]


class LangChainHistoryConverter(FoldedHistoryConverter[BaseMessage]):
    """Own replies become ``AIMessage``, others ``HumanMessage("[name]: text")``; a tool
    exchange becomes an ``AIMessage`` with ``tool_calls`` and one ``ToolMessage`` per call.
    """

    def said(self, line: Said) -> list[BaseMessage]:
        cls = AIMessage if line.role == "assistant" else HumanMessage
        return [cls(content=line.text)]

    def exchange(self, tools: ToolExchange) -> list[BaseMessage]:
        pairs = tools.paired()
        calls = [
            {"name": call.name, "args": call.args, "id": call.tool_call_id, "type": "tool_call"}
            for call, _ in pairs
        ]
        return [
            AIMessage(content="", tool_calls=calls),
            *(
                ToolMessage(
                    content=result.output,
                    tool_call_id=call.tool_call_id,
                    name=call.name,
                    status="error" if result.is_error else "success",
                )
                for call, result in pairs
            ),
        ]
