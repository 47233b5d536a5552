"""What one OpenCode stream event adds to a turn: assistant messages and their tokens, text
parts (streamed or whole), thoughts, and tool calls with their results, each reported once."""

from __future__ import annotations

from band.adapters._coding.events import Reporter
from band.integrations.opencode import (
    MessagePartDeltaEvent,
    MessagePartUpdatedEvent,
    MessageUpdatedEvent,
    OpencodePart,
)

from .room import TurnState

__all__ = ["record_event"]


async def record_event(event: object, turn: TurnState, reporter: Reporter, prefix: str) -> None:
    """Add ``event`` to ``turn`` (tool names lose ``prefix``, the room's MCP registration,
    and ``_``); any other event is passed over."""
    if isinstance(event, MessageUpdatedEvent):
        info = event.properties.info
        if info is not None and info.role == "assistant" and info.id:
            turn.assistant_message_ids.add(info.id)
            if info.tokens is not None:
                turn.usage_by_message[info.id] = info.tokens.to_turn_usage()
    elif isinstance(event, MessagePartUpdatedEvent):
        if event.properties.part:
            await _on_part(event.properties.part, turn, reporter, prefix)
    elif isinstance(event, MessagePartDeltaEvent):
        delta = event.properties  # streamed text of an assistant text part
        part = delta.part_id or ""
        if delta.field == "text" and turn.assistant_part_types.get(part) == "text":
            turn.text_parts[part] = turn.text_parts.get(part, "") + delta.delta


async def _on_part(part: OpencodePart, turn: TurnState, reporter: Reporter, prefix: str) -> None:
    if part.id and part.message_id in turn.assistant_message_ids:
        turn.assistant_part_types[part.id] = part.type
    if part.type == "text" and part.id and part.message_id in turn.assistant_message_ids:
        turn.text_parts[part.id] = part.text or ""
    elif part.type == "reasoning" and (getattr(part, "time", None) or {}).get("end"):
        await reporter.thought(part.text or "")
    elif part.type == "tool":
        await _on_tool(part, turn, reporter, prefix)


async def _on_tool(part: OpencodePart, turn: TurnState, reporter: Reporter, prefix: str) -> None:
    call, state = str(part.call_id or part.id), part.state
    status = state.status if state is not None else None
    name = (part.tool or "tool").removeprefix(f"{prefix}_")  # Band's name of a Band tool
    if state is None or status not in ("running", "completed", "error"):
        return
    if call not in turn.reported_tool_calls:
        turn.reported_tool_calls.add(call)
        for key in list(turn.text_parts):  # text before a tool call was commentary
            reporter.hold_text(turn.text_parts.pop(key))
        await reporter.tool_call(name, dict(state.input), call)
    if status in ("completed", "error") and call not in turn.reported_tool_results:
        turn.reported_tool_results.add(call)
        output = state.reported_output if status == "completed" else state.error
        await reporter.tool_result(name, output or "", call, is_error=status == "error")
