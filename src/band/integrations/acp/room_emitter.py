"""One ACP turn's output posted to its Band room as it streams, in the stream's order.

``emit`` is the chunk sink of the turn: thoughts, tool calls and results (as the JSON the
history converters read back) and plans (``task`` events) are posted when their emit kind
is on (``emit``: the adapter's emit set; None posts all). The agent's text is held: on a
clean close it becomes one ``thought`` unless a Band tool replied in the turn, then the
resume-state ``task`` event "ACP client session" (with ``acp_client_session_id`` and
``acp_client_room_id``) is posted whatever the emit set. A failed turn posts neither.
With ``records_tool_effects`` (tools run outside this process), each completed call's
effect is recorded on the turn, but only once the turn closes cleanly.
"""

from __future__ import annotations

import logging
from typing import Self

from band.core.content import has_visible_content
from band.core.protocols import AgentToolsProtocol, send_event_safe
from band.core.types import Emit, MessageType
from band.integrations.acp.types import (
    ACPToolCall,
    ACPToolResult,
    ChunkType,
    CollectedChunk,
    ToolStatus,
)
from band.runtime.tools import turn_effect
from band_protocol import TurnEffect

__all__ = ["ACP_SESSION_CLOSED_EVENT", "RoomTurnEmitter"]

logger = logging.getLogger(__name__)
ACP_SESSION_CLOSED_EVENT = "ACP client session"
_EVENT_KIND = {
    ChunkType.THOUGHT: (Emit.THOUGHTS, "thought"),
    ChunkType.TOOL_CALL: (Emit.TOOL_CALLS, "tool_call"),
    ChunkType.TOOL_RESULT: (Emit.TOOL_CALLS, "tool_result"),
    ChunkType.PLAN: (Emit.TASK_EVENTS, "task"),
}


class RoomTurnEmitter:
    """The sink and closing of one ACP turn in one room."""

    def __init__(
        self,
        tools: AgentToolsProtocol,
        *,
        session_id: str,
        room_id: str,
        emit: frozenset[Emit] | None = None,
        records_tool_effects: bool = False,
    ) -> None:
        self._tools = tools
        self._session_id = session_id
        self._room_id = room_id
        self._emit = frozenset(Emit) if emit is None else frozenset(emit)
        self._records_tool_effects = records_tool_effects
        self._held_text: list[str] = []
        self._effects: list[TurnEffect] = []

    @property
    def held_text(self) -> str:
        """The agent's text so far, paragraphs joined."""
        return "\n\n".join(self._held_text)

    async def emit(self, chunk: CollectedChunk) -> None:
        """Post one finished chunk (the chunk sink of the turn)."""
        self._stage_effect(chunk)
        if chunk.chunk_type == ChunkType.TEXT:
            if chunk.content:
                self._held_text.append(chunk.content)
            return
        kind = _EVENT_KIND.get(chunk.chunk_type)  # type: ignore[call-overload]  # a str; StrEnum keys match it
        if kind is None:
            logger.warning("ACP chunk of unknown type %r not posted", chunk.chunk_type)
            return
        wanted, message_type = kind
        if wanted not in self._emit:
            return
        content = chunk.content
        if chunk.chunk_type in (ChunkType.TOOL_CALL, ChunkType.TOOL_RESULT):
            if not isinstance(chunk.tool, (ACPToolCall, ACPToolResult)):
                raise RuntimeError("an ACP tool chunk carries no tool call or result")
            content = chunk.tool.room_event().model_dump_json()
        await self._tools.send_event(
            content=content, message_type=message_type, metadata=chunk.metadata
        )

    async def post_held_text(self) -> None:
        """Post the text held so far as a ``thought`` now (when THOUGHTS is on) and hold
        nothing: for a caller that treats text followed by more work as commentary."""
        text, self._held_text = self.held_text, []
        if Emit.THOUGHTS in self._emit and has_visible_content(text):
            await send_event_safe(self._tools, text, MessageType.THOUGHT, log_label="ACP thought")

    def _stage_effect(self, chunk: CollectedChunk) -> None:
        if not self._records_tool_effects or chunk.metadata.get("status") != ToolStatus.COMPLETED:
            return
        tool = chunk.tool
        call = tool.call if isinstance(tool, ACPToolResult) else tool
        if isinstance(call, ACPToolCall):
            self._effects.append(turn_effect(call.name))

    async def open_permission(self, *, call: ACPToolCall, session_id: str, outcome: str) -> None:
        """Post a refused permission request as a ``tool_call`` / failed ``tool_result``
        pair (the tool never runs, so this is its only trace); a grant posts nothing."""
        if Emit.TOOL_CALLS not in self._emit:
            return
        metadata: dict[str, object] = {
            "permission_request": True,
            "tool_name": call.name,
            "tool_call_id": call.tool_call_id,
            "acp_session_id": session_id,
            "auto_allowed": False,
        }
        await self._tools.send_event(
            content=call.room_event().model_dump_json(),
            message_type="tool_call",
            metadata=metadata,
        )
        result = ACPToolResult(call, f"Permission {outcome}", ToolStatus.FAILED)
        await self._tools.send_event(
            content=result.room_event().model_dump_json(),
            message_type="tool_result",
            metadata={**metadata, "permission_outcome": outcome},
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: object, exc: object, tb: object) -> bool:
        if exc_type is not None:
            return False
        for effect in self._effects:
            self._tools.turn.record(effect)
        text = self.held_text
        wanted = Emit.THOUGHTS in self._emit and has_visible_content(text)
        if wanted and not self._tools.turn.replied:
            await send_event_safe(
                self._tools, text, MessageType.THOUGHT, log_label="ACP closing thought"
            )
        await send_event_safe(
            self._tools,
            ACP_SESSION_CLOSED_EVENT,
            "task",
            {"acp_client_session_id": self._session_id, "acp_client_room_id": self._room_id},
            log_label=ACP_SESSION_CLOSED_EVENT,
        )
        return False
