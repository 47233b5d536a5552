"""``StrandsHistoryConverter``: room history as Strands (Bedrock Converse) messages."""

from __future__ import annotations

from typing import Any

from .tool_history import Said, fold_history

try:
    from strands.types.content import Message
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError(
        "StrandsHistoryConverter needs Strands Agents: pip install 'openband[strands]'"
    ) from None

__all__ = ["StrandsHistoryConverter", "StrandsMessages", "merge_consecutive_roles"]

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


class StrandsHistoryConverter:
    """Own replies become ``assistant`` text, others ``user`` as ``[name]: text``; a tool
    exchange becomes an assistant message of ``toolUse`` blocks followed by a user message
    of ``toolResult`` blocks (an unanswered call gets an error result). Same-role
    neighbours are merged, so the roles alternate as Converse requires.
    """

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> StrandsMessages:
        messages: StrandsMessages = []
        for item in fold_history(raw, self.agent_name):
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
