"""Ending a LangGraph agent's run once it has declined the turn (``band_no_reply``).

A run should stop when the model's last batch of tool calls all came back, none failed, and
one of them was a successful ``band_no_reply``: the agent chose to stay silent, so asking the
model again would only make it talk. ``terminal_decline`` recognises that state;
``DeclineMiddleware`` applies it to a LangChain ``create_agent`` loop, and our own ReAct
graph (``band.adapters.langgraph.build_react_graph``) ends on it too.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from band._extras import needs_extra
from band.runtime.tools.schema import is_failed_tool_output
from band.runtime.tools.types import BandTool

with needs_extra("band.integrations.langgraph needs LangGraph", "langgraph"):
    from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langgraph.runtime import Runtime

__all__ = ["DeclineMiddleware", "failed_result", "terminal_decline"]


def failed_result(message: ToolMessage) -> bool:
    """Whether a tool's answer is a failure: an error status, or a failed Band tool result."""
    content: Any = message.content
    if isinstance(content, str):
        with contextlib.suppress(ValueError):
            content = json.loads(content)
    return message.status != "success" or is_failed_tool_output(content)


def terminal_decline(messages: Sequence[BaseMessage]) -> bool:
    """Whether ``messages`` end with a complete, successful tool batch that declined."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.append(message)
            continue
        if not isinstance(message, AIMessage) or not results:
            return False
        asked = {call["id"] for call in message.tool_calls}
        if {r.tool_call_id for r in results} != asked:
            return False
        if any(failed_result(r) for r in results):
            return False
        return any(r.name == BandTool.NO_REPLY for r in results)
    return False


class DeclineMiddleware(AgentMiddleware):  # type: ignore[misc]
    """``create_agent(..., middleware=[DeclineMiddleware()])``: end the run after a decline."""

    @hook_config(can_jump_to=["end"])  # type: ignore[untyped-decorator]
    def before_model(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return {"jump_to": "end"} if terminal_decline(state["messages"]) else None
