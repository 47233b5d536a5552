"""``StrandsHistoryConverter``: room history as Strands (Bedrock Converse) messages."""

from __future__ import annotations

import logging
from typing import Any, Literal

from band._extras import needs_extra

from ._named import AgentNamed
from .parsing import ParsedToolCall, ParsedToolResult
from .tool_history import HistoryFolder, HistoryItem, Said, fold_history

with needs_extra("StrandsHistoryConverter needs Strands Agents", "strands"):
    from strands.types.content import Message

__all__ = [
    "ConverseTranscript",
    "StrandsHistoryConverter",
    "StrandsMessages",
    "merge_consecutive_roles",
]

logger = logging.getLogger(__name__)
StrandsMessages = list[Message]


def merge_consecutive_roles(messages: StrandsMessages) -> StrandsMessages:
    """Neighbours of one role joined into one message (Converse wants roles to alternate).

    The input messages are left unchanged.
    """
    merged: StrandsMessages = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {
                "role": message["role"],
                "content": [*merged[-1]["content"], *message["content"]],
            }
        else:
            merged.append({"role": message["role"], "content": list(message["content"])})
    return merged


def _render(items: list[HistoryItem]) -> StrandsMessages:
    """Folded history as Converse messages: a tool exchange is an assistant message of
    ``toolUse`` blocks, then a user message of their ``toolResult`` blocks."""
    messages: StrandsMessages = []
    for item in items:
        if isinstance(item, Said):
            messages.append({"role": item.role, "content": [{"text": item.text}]})
            continue
        pairs = item.paired()
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "toolUse": {
                            "toolUseId": call.tool_call_id,
                            "name": call.name,
                            "input": call.args,
                        }
                    }
                    for call, _ in pairs
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": call.tool_call_id,
                            "status": "error" if result.is_error else "success",
                            "content": [{"text": result.output}],
                        }
                    }
                    for call, result in pairs
                ],
            }
        )
    return merge_consecutive_roles(messages)


class ConverseTranscript:
    """Converse messages built one event at a time, each ``toolUse`` next to its ``toolResult``.

    An exchange stays open until every call in it has its result; text turns that arrive
    meanwhile are held and follow the exchange. A result whose call was never recorded gets
    a call of its own (Converse rejects a result without one); ``build`` answers calls left
    open with an error result and merges same-role neighbours.
    """

    def __init__(self) -> None:
        self._folder = HistoryFolder()

    @property
    def in_tool_exchange(self) -> bool:
        """Whether a ``toolUse`` is still waiting for its ``toolResult``."""
        return self._folder.in_exchange

    def add_tool_use(self, tool_use_id: str, name: str, args: dict[str, Any]) -> None:
        self._folder.call(ParsedToolCall(name, args, tool_use_id))

    def add_tool_result(self, tool_use_id: str, name: str, output: str, *, is_error: bool) -> None:
        if not self._folder.awaits(tool_use_id):
            logger.warning("toolResult %s (%s) has no toolUse: adding one", tool_use_id, name)
            self.add_tool_use(tool_use_id, name, {})
        self._folder.result(ParsedToolResult(name, output, tool_use_id, is_error))

    def add_turn(self, role: Literal["user", "assistant"], text: str) -> None:
        self._folder.say(Said(role, text))

    def build(self) -> StrandsMessages:
        return _render(self._folder.finish())


class StrandsHistoryConverter(AgentNamed):
    """Own replies become ``assistant`` text, others ``user`` as ``[name]: text``; a tool
    exchange becomes an assistant message of ``toolUse`` blocks followed by a user message
    of ``toolResult`` blocks (an unanswered call gets an error result). Same-role
    neighbours are merged, so the roles alternate as Converse requires.
    """

    def convert(self, raw: list[dict[str, Any]]) -> StrandsMessages:
        return _render(fold_history(raw, self.agent_name))
