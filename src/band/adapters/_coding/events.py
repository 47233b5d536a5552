"""What a coding agent's turn shows in the room, written once for Codex and ACP.

A :class:`Reporter` is bound to one turn's room tools. It posts ``tool_call`` /
``tool_result`` pairs in the JSON the converters parse back, thoughts, ``task`` events and
usage, each only when its emit kind is on (resume state is posted regardless), and adapter
notices. Agent text is never a reply: text followed by more work is commentary (a thought);
the text a turn ends with becomes a thought only when the turn did not reply.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from band.adapters._tool_events import as_text, report_event, report_tool_call, report_tool_result
from band.core.protocols import AgentToolsProtocol
from band.core.types import Emit, TurnUsage

if TYPE_CHECKING:
    from band.core.simple_adapter import SimpleAdapter

__all__ = ["Reporter"]

logger = logging.getLogger("band.adapters.coding")


class Reporter:
    """Room events of one turn. ``mentions`` is who notices address (the requester)."""

    def __init__(
        self, adapter: SimpleAdapter[Any], tools: AgentToolsProtocol, mentions: list[str]
    ) -> None:
        self.adapter = adapter
        self.tools = tools
        self.mentions = mentions
        self._held: list[str] = []
        self.final_text = ""  # the agent text the turn ended with (kept after finish_text)

    @property
    def emit(self) -> frozenset[Emit]:
        return self.adapter.features.emit

    async def tool_call(self, name: str, args: dict[str, Any], call_id: str) -> None:
        await self.flush_commentary()
        await report_tool_call(self.tools, self.adapter.features, name, args, call_id)

    async def tool_result(
        self, name: str, output: Any, call_id: str, *, is_error: bool = False
    ) -> None:
        features = self.adapter.features
        await report_tool_result(
            self.tools, features, name, as_text(output), call_id, is_error=is_error
        )

    async def thought(self, text: str) -> None:
        if Emit.THOUGHTS in self.emit and text.strip():
            try:
                await self.tools.send_event(text.strip(), "thought")
            except Exception as exc:
                logger.warning("Failed to send thought event: %s", exc)

    async def stream_thought(self, delta: str, metadata: dict[str, Any]) -> bool:
        """One streamed chunk as a ``thought`` with ``streaming: true`` (kept verbatim);
        True when it was posted."""
        if Emit.THOUGHTS not in self.emit or not delta:
            return False
        try:
            await self.tools.send_event(delta, "thought", {"streaming": True, **metadata})
        except Exception as exc:
            logger.warning("Failed to send a streamed thought: %s", exc)
            return False
        return True

    async def task(self, text: str, metadata: dict[str, Any], *, always: bool = False) -> None:
        """A ``task`` event; ``always`` posts it even with TASK_EVENTS off (resume state)."""
        if not always and Emit.TASK_EVENTS not in self.emit:
            return
        try:
            await self.tools.send_event(text, "task", metadata)
        except Exception as exc:
            logger.warning("Failed to send task event: %s", exc)

    async def json_task(self, payload: dict[str, Any]) -> None:
        if Emit.TASK_EVENTS in self.emit:
            await report_event(self.tools, "task", payload)

    async def notice(self, text: str) -> None:
        """An adapter-owned message to the requester; it does not answer the turn."""
        try:
            await self.tools.send_notice(text, mentions=self.mentions)
        except Exception as exc:
            logger.warning("Failed to send notice: %s", exc)

    async def usage(self, usage: TurnUsage) -> None:
        await self.adapter.emit_usage(self.tools, usage)

    # -- agent text -------------------------------------------------------------------------

    def hold_text(self, text: str, *, delta: bool = False) -> None:
        """Agent text, kept until we know whether more work follows it (``delta``: a
        streamed chunk continuing the text held last)."""
        if delta and self._held:
            self._held[-1] += text
        elif text.strip() or delta:
            self._held.append(text)

    async def flush_commentary(self) -> None:
        """More work follows the held text: it was commentary, shown as a thought."""
        if self._held:
            text, self._held = "\n\n".join(t.strip() for t in self._held if t.strip()), []
            await self.thought(text)

    async def finish_text(self) -> None:
        """The turn ended: its last text becomes a thought only if the turn did not reply."""
        self.final_text = "\n\n".join(t.strip() for t in self._held if t.strip())
        if self._held and not self.tools.turn.replied:
            await self.flush_commentary()
        self._held = []
