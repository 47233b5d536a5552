"""``DefaultPreprocessor``: a room's message event as the adapter's ``AgentInput``.

The input carries the message (mentions shown as handles), fresh room tools, the room's
history on the session's first turn, the roster text when it changed and pending system
notes. ``commit_context`` marks what the turn used (bootstrap, roster, notes) as given to the
model; the host calls it once the adapter took the input, so a turn that never reached the
model hands the same context to its retry. Other events are not the adapter's: None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band.core.protocols import Preprocessor
from band.core.types import AgentInput, HistoryProvider, PlatformMessage
from band.integrations.base import check_and_format_participants
from band.platform.event import MessageEvent, PlatformEvent
from band.runtime.history import build_platform_message
from band.runtime.tools.agent_tools import AgentTools

if TYPE_CHECKING:
    from band.runtime.room_execution import ExecutionContext

__all__ = ["DefaultPreprocessor"]


class DefaultPreprocessor(Preprocessor):
    """Builds each turn's ``AgentInput`` (the ``Preprocessor`` protocol)."""

    async def process(
        self, ctx: ExecutionContext, event: PlatformEvent, agent_id: str
    ) -> AgentInput | None:
        """The adapter input for a message event (None for room housekeeping)."""
        msg = self.message(ctx, event, agent_id)
        if msg is None:
            return None
        bootstrap = not ctx.is_llm_initialized
        roster = ctx.participants
        participants_msg = check_and_format_participants(ctx, mark_sent=False)
        notes = ctx.peek_pending_system_messages()

        def commit_context() -> None:
            ctx.mark_llm_initialized()
            if participants_msg is not None:
                ctx.mark_participants_sent(roster)
            ctx.commit_system_messages(notes)

        return AgentInput(
            msg=msg,
            tools=ctx.tools_factory(ctx) if ctx.tools_factory else AgentTools.from_context(ctx),
            history=HistoryProvider(ctx.get_history_for_llm(msg.id) if bootstrap else []),
            participants_msg=participants_msg,
            contacts_msg="\n".join(notes) if notes else None,
            is_session_bootstrap=bootstrap,
            room_id=ctx.room_id,
            commit_context=commit_context,
        )

    @staticmethod
    def message(
        ctx: ExecutionContext, event: PlatformEvent, agent_id: str
    ) -> PlatformMessage | None:
        """The event's message as adapters see it (no model context consumed)."""
        if not isinstance(event, MessageEvent):
            return None
        return build_platform_message(event.raw or {}, ctx.room_id, ctx.room.roster)
