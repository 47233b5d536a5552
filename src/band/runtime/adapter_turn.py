"""``AdapterTurn``: the ``Agent``'s ``on_execute`` — a room's message becomes the adapter's turn.

Its preprocessor builds the adapter input from the room's ``ExecutionContext`` (the message
with mentions as handles, fresh tools, history on the session's first turn, the roster text
when it changed, pending system notes as ``contacts_msg``) and it calls ``adapter.on_event``.
What the turn used (bootstrap, roster, notes) is committed only when the adapter returned
normally, so a failed turn hands the same context to its retry. Claiming, the working indicator,
acknowledging and failure reporting are the room loop's (``TurnRunner``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from band.core.handoff import context_delivery
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.event import MessageEvent, PlatformEvent
from band.preprocessing.default import DefaultPreprocessor

from .history import build_platform_message

if TYPE_CHECKING:
    from .room_execution import ExecutionContext

__all__ = ["AdapterTurn", "ToolsFactory"]

ToolsFactory = Callable[["ExecutionContext"], AgentToolsProtocol]


class AdapterTurn:
    """Runs ``adapter`` for each message of a room (see the module docstring).

    ``preprocessor`` builds the adapter's input (``DefaultPreprocessor`` unless the agent was
    given its own); the input's ``commit_context`` runs once the adapter returned normally
    and its setup did not retain the context (``core.handoff``).
    """

    def __init__(self, adapter: Any, tools_factory: ToolsFactory, preprocessor: Any = None) -> None:
        self.adapter = adapter
        self.tools_factory = tools_factory
        self.preprocessor = preprocessor if preprocessor is not None else DefaultPreprocessor()

    def _message(self, ctx: ExecutionContext, event: MessageEvent) -> PlatformMessage:
        return build_platform_message(event.raw or {}, ctx.room_id, ctx.room.roster)

    async def __call__(self, ctx: ExecutionContext, event: PlatformEvent) -> None:
        ctx.tools_factory = self.tools_factory
        inp = await self.preprocessor.process(ctx, event, ctx.agent_id)
        if inp is None:
            return  # room housekeeping: the roster is already current
        with context_delivery() as delivery:
            try:
                await self.adapter.on_event(inp)
            finally:
                if getattr(getattr(inp.tools, "turn", None), "failure_reported", False):
                    ctx.note_turn_failure_reported()
            if delivery.should_commit and inp.commit_context is not None:
                inp.commit_context()

    async def control(self, ctx: ExecutionContext, event: PlatformEvent) -> bool:
        """``on_message_control``: the adapter's ``try_handle_control(msg, tools)``."""
        handler = getattr(self.adapter, "try_handle_control", None)
        if not callable(handler) or not isinstance(event, MessageEvent):
            return False
        return bool(await handler(self._message(ctx, event), self.tools_factory(ctx)))
