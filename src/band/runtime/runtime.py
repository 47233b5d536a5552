"""``AgentRuntime``: rooms and per-room executions for host code without an adapter.

``AgentRuntime(link, agent_id, on_execute)`` joins the agent's rooms (``RoomPresence``),
gives each one an ``ExecutionContext`` (serial inside a room, concurrent across rooms) and
calls ``on_execute(ctx, event)`` for each event; messages are claimed and acknowledged
around the handler. A reconnect drains ``/next`` in every room; ``stop()`` settles every
room (``on_session_cleanup(room_id)``) before the link disconnects.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from band.platform.event import PlatformEvent

from .config import SessionConfig
from .presence import RoomPresence
from .room_execution import Execution, ExecutionContext, ExecutionHandler, ParticipantHook

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = ["AgentRuntime"]

log = logging.getLogger("band.runtime.runtime")

ExecutionFactory = Callable[[str, "BandLink"], Execution]


class AgentRuntime:
    """Presence plus one execution per room, over one ``BandLink``."""

    def __init__(
        self,
        link: BandLink,
        agent_id: str,
        on_execute: ExecutionHandler,
        execution_factory: ExecutionFactory | None = None,
        room_filter: Callable[[dict[str, Any]], bool] | None = None,
        session_config: SessionConfig | None = None,
        on_session_cleanup: Callable[[str], Awaitable[None]] | None = None,
        on_control: Callable[[str, str], Awaitable[None]] | None = None,
        on_message_control: Any = None,
        on_participant_added: ParticipantHook | None = None,
        on_participant_removed: ParticipantHook | None = None,
    ) -> None:
        self.link = link
        self.agent_id = agent_id
        self.on_execute = on_execute
        self.execution_factory = execution_factory
        self.session_config = session_config or SessionConfig()
        self.on_session_cleanup = on_session_cleanup
        self.on_control = on_control
        self.on_message_control = on_message_control
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        self.presence = RoomPresence(link, room_filter)
        self.presence.on_room_joined = self._joined
        self.presence.on_room_left = self._left
        self.presence.on_room_event = self._room_event
        self.presence.on_agent_event = self._agent_event
        self._executions: dict[str, Execution] = {}
        self._unsettled: set[str] = set()

    @property
    def executions(self) -> dict[str, Execution]:
        return dict(self._executions)

    @property
    def active_sessions(self) -> list[str]:
        return list(self._executions)

    @property
    def unsettled_rooms(self) -> frozenset[str]:
        """Rooms whose cleanup failed at the last stop."""
        return frozenset(self._unsettled)

    async def start(self) -> None:
        """Connect (if needed), join the rooms, start their executions."""
        log.info("Starting AgentRuntime for agent %s", self.agent_id)
        if not self.link.is_connected:
            await self.link.connect()
        await self.presence.start()

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Settle every room, then disconnect; True when no event had to be cut."""
        log.info("Stopping AgentRuntime for agent %s", self.agent_id)
        await self.presence.stop()
        executions, self._executions = self._executions, {}
        results = await asyncio.gather(*(e.stop(timeout) for e in executions.values()))
        for room_id in executions:
            await self._cleanup(room_id)
        await self.link.disconnect()
        return all(results)

    async def run(self, *, install_signal_handlers: bool = True) -> None:
        """``start()``, serve until a signal or the link ends, then ``stop()``."""
        await self.start()
        try:
            await self.link.run_forever(install_signal_handlers=install_signal_handlers)
        finally:
            await self.stop()

    async def handle_control(self, payload: dict[str, Any]) -> None:
        """Apply an ``agent.control`` payload: report it, and resync rooms on ``play``."""
        mode, room_id = str(payload.get("mode")), payload.get("room_id")
        targets = [str(room_id)] if room_id else list(self._executions)
        for rid in targets:
            if self.on_control is not None:
                await self.on_control(rid, mode)
            execution = self._executions.get(rid)
            if mode == "play" and execution is not None:
                execution.request_resync()

    async def _joined(self, room_id: str) -> None:
        if self.execution_factory is not None:
            execution = self.execution_factory(room_id, self.link)
        else:
            execution = ExecutionContext(
                room_id,
                self.link,
                self.on_execute,
                self.session_config,
                self.agent_id,
                self.on_participant_added,
                self.on_participant_removed,
            )
        self._executions[room_id] = execution
        await execution.start()

    async def _left(self, room_id: str) -> None:
        execution = self._executions.pop(room_id, None)
        if execution is not None:
            await execution.stop(5.0)
            await self._cleanup(room_id)

    async def _cleanup(self, room_id: str) -> None:
        if self.on_session_cleanup is None:
            return
        try:
            await self.on_session_cleanup(room_id)
            self._unsettled.discard(room_id)
        except Exception:
            self._unsettled.add(room_id)
            log.exception("Room %s: session cleanup failed", room_id)

    async def _room_event(self, room_id: str, event: PlatformEvent) -> None:
        execution = self._executions.get(room_id)
        if execution is not None:
            await execution.on_event(event)

    async def _agent_event(self, event: PlatformEvent) -> None:
        if event.type == "reconnected":
            for execution in self._executions.values():
                execution.request_resync()
        elif event.type == "agent.control":
            await self.handle_control(event.raw or {})
