"""Which room a CrewAI tool call belongs to, and who narrates it.

A tool wrapper (``band.integrations.crewai.tools``) asks its ``get_context`` for the room
(:class:`CrewAIToolContext`) and tells its reporter (:class:`CrewAIToolReporter`) about the
call and its result. :class:`EmitToolCallsReporter` posts ``tool_call`` / ``tool_result``
events when the adapter's features emit tool calls; :class:`NoopReporter` posts nothing (for
adapters that record their work some other way).
"""

from __future__ import annotations

import uuid
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from band.adapters._tool_events import as_text, report_tool_call, report_tool_result
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures

from .turn import ToolTurn

__all__ = [
    "CrewAIToolContext",
    "CrewAIToolReporter",
    "EmitToolCallsReporter",
    "NoopReporter",
    "ReplyTracker",
]


@dataclass
class ReplyTracker:
    """What one turn's tools did: whether any ran at all, what ``band_send_message`` said.

    CrewAI's final answer does not carry the messages the agent posted through the tool, so
    the adapter remembers them from here for the next turn's conversation.
    """

    posts: list[str] = field(default_factory=list)
    any_tool_ran: bool = False


@dataclass(frozen=True)
class CrewAIToolContext:
    """The room a tool call runs in: its tools, the turn's tracker and tool turn."""

    room_id: str
    tools: AgentToolsProtocol
    reply_tracker: ReplyTracker | None = None
    tool_turn: ToolTurn | None = None


@runtime_checkable
class CrewAIToolReporter(Protocol):
    """Told about each tool call and its result; best effort (it must never raise)."""

    async def report_call(
        self, tools: AgentToolsProtocol, tool_name: str, input_data: dict[str, Any]
    ) -> None: ...

    async def report_result(
        self, tools: AgentToolsProtocol, tool_name: str, result: Any, is_error: bool = False
    ) -> None: ...


class EmitToolCallsReporter:
    """Posts ``tool_call`` and ``tool_result`` events when ``Emit.TOOL_CALLS`` is on.

    CrewAI gives a call no id: each call gets one of ours, and a result is paired with the
    oldest unanswered call of the same tool in the same room, so the history converters
    pair them back.
    """

    def __init__(self, features: AdapterFeatures) -> None:
        self._features = features
        self._open: defaultdict[tuple[int, str], deque[str]] = defaultdict(deque)

    async def report_call(
        self, tools: AgentToolsProtocol, tool_name: str, input_data: dict[str, Any]
    ) -> None:
        call_id = f"crewai_{uuid.uuid4().hex[:16]}"
        self._open[(id(tools), str(tool_name))].append(call_id)
        await report_tool_call(tools, self._features, str(tool_name), input_data, call_id)

    async def report_result(
        self, tools: AgentToolsProtocol, tool_name: str, result: Any, is_error: bool = False
    ) -> None:
        key = (id(tools), str(tool_name))
        waiting = self._open.get(key)
        call_id = waiting.popleft() if waiting else f"crewai_{uuid.uuid4().hex[:16]}"
        if waiting is not None and not waiting:
            del self._open[key]
        await report_tool_result(
            tools, self._features, str(tool_name), as_text(result), call_id, is_error=is_error
        )


class NoopReporter:
    """Reports nothing."""

    async def report_call(
        self, tools: AgentToolsProtocol, tool_name: str, input_data: dict[str, Any]
    ) -> None:
        return None

    async def report_result(
        self, tools: AgentToolsProtocol, tool_name: str, result: Any, is_error: bool = False
    ) -> None:
        return None
