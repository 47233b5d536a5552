"""``AgnoHistoryConverter``: room history as Agno ``Message`` objects."""

from __future__ import annotations

from typing import Any

from band._extras import needs_extra

from ._named import AgentNamed
from .openai_chat import openai_tool_calls
from .tool_history import Said, fold_history

with needs_extra("AgnoHistoryConverter needs Agno", "agno"):
    from agno.models.message import Message

__all__ = ["AgnoHistoryConverter", "AgnoMessages"]

AgnoMessages = list[Message]


class AgnoHistoryConverter(AgentNamed):
    """Own replies become ``assistant``, others ``user`` as ``[name]: text``; a tool exchange
    becomes an assistant message with ``tool_calls`` and one ``tool`` message per call.

    Every message is marked ``from_history``, so Agno does not add its stored session
    history on top of it.
    """

    def convert(self, raw: list[dict[str, Any]]) -> AgnoMessages:
        messages: AgnoMessages = []
        for item in fold_history(raw, self.agent_name):
            if isinstance(item, Said):
                messages.append(Message(role=item.role, content=item.text, from_history=True))
                continue
            calls = openai_tool_calls(item)
            messages.append(
                Message(role="assistant", content=None, tool_calls=calls, from_history=True)
            )
            messages.extend(
                Message(
                    role="tool",
                    tool_call_id=call.tool_call_id,
                    tool_name=call.name,
                    content=result.output,
                    tool_call_error=result.is_error,
                    from_history=True,
                )
                for call, result in item.paired()
            )
        return messages
