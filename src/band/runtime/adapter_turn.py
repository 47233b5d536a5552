"""``AdapterTurn``: the ``Agent``'s ``on_execute`` — a room's message becomes the adapter's turn.

It builds the adapter input from the room's ``ExecutionContext`` (the message with mentions
as handles, fresh tools, history on the session's first turn, the roster text when it
changed, pending system notes as ``contacts_msg``) and calls ``adapter.on_event``. What the
turn used (bootstrap, roster, notes) is committed only when the adapter returned normally,
so a failed turn hands the same context to its retry. Claiming, the working indicator,
acknowledging and failure reporting are the room loop's (``TurnRunner``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from band.core.protocols import AgentToolsProtocol
from band.core.types import AgentInput, HistoryProvider, PlatformMessage
from band.platform.event import MessageEvent, PlatformEvent

from .history import build_platform_message

if TYPE_CHECKING:
    from .room_execution import ExecutionContext

__all__ = ["AdapterTurn", "ToolsFactory"]

ToolsFactory = Callable[["ExecutionContext"], AgentToolsProtocol]


class AdapterTurn:
    """Runs ``adapter`` for each message of a room (see the module docstring)."""

    def __init__(self, adapter: Any, tools_factory: ToolsFactory) -> None:
        self.adapter = adapter
        self.tools_factory = tools_factory

    def _message(self, ctx: ExecutionContext, event: MessageEvent) -> PlatformMessage:
        return build_platform_message(event.raw or {}, ctx.room_id, ctx.room.roster)

    async def __call__(self, ctx: ExecutionContext, event: PlatformEvent) -> None:
        if not isinstance(event, MessageEvent):
            return  # room housekeeping: the roster is already current
        msg = self._message(ctx, event)
        tools = self.tools_factory(ctx)
        bootstrap = not ctx.is_llm_initialized
        roster = ctx.participants
        participants_msg = ctx.build_participants_message() if ctx.participants_changed() else None
        notes = ctx.peek_pending_system_messages()
        inp = AgentInput(
            msg=msg,
            tools=tools,
            history=HistoryProvider(ctx.get_history_for_llm(msg.id) if bootstrap else []),
            participants_msg=participants_msg,
            contacts_msg="\n".join(notes) if notes else None,
            is_session_bootstrap=bootstrap,
            room_id=ctx.room_id,
        )
        try:
            await self.adapter.on_event(inp)
        finally:
            if getattr(getattr(tools, "turn", None), "failure_reported", False):
                ctx.note_turn_failure_reported()
        ctx.mark_llm_initialized()
        if participants_msg is not None:
            ctx.mark_participants_sent(roster)
        ctx.commit_system_messages(notes)

    async def control(self, ctx: ExecutionContext, event: PlatformEvent) -> bool:
        """``on_message_control``: the adapter's ``try_handle_control(msg, tools)``."""
        handler = getattr(self.adapter, "try_handle_control", None)
        if not callable(handler) or not isinstance(event, MessageEvent):
            return False
        return bool(await handler(self._message(ctx, event), self.tools_factory(ctx)))
