"""``AgentRuntime``: rooms and per-room executions for host code without an adapter.

``AgentRuntime(link, agent_id, on_execute)`` joins the agent's rooms (``RoomPresence``),
gives each one an ``ExecutionContext`` (the same serial room loop the ``Agent`` runs:
serial inside a room, concurrent across rooms) and calls ``on_execute(ctx, event)`` for each
event; messages are claimed and acknowledged around the handler. ``on_message_control(ctx,
event) -> bool`` may consume a message while the room's queue is held by one the handler did
not accept (``InputNotAccepted``). Controls (interrupt / stop / play) reach the room's
execution and ``on_control(room_id, mode)``. A reconnect drains ``/next`` in every room;
``stop()`` settles every room (``on_session_cleanup(room_id)``) before the link disconnects.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from band.platform.event import PlatformEvent

from .config import SessionConfig
from .control import ControlCallback, ControlDeduplicator, apply_control, targets
from .presence import RoomPresence
from .room_execution import (
    Execution,
    ExecutionContext,
    ExecutionHandler,
    MessageControl,
    ParticipantHook,
)
from .turn_runner import TurnServices

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = ["AgentRuntime"]

log = logging.getLogger("band.runtime.runtime")


class ExecutionFactory(Protocol):
    """Builds a room's execution: ``factory(room_id, link, hub_room_id=None)``.

    Two-argument factories ``factory(room_id, link)`` work too.
    """

    def __call__(
        self, room_id: str, link: BandLink, hub_room_id: str | None = None
    ) -> Execution: ...


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
        on_control: ControlCallback | None = None,
        on_message_control: MessageControl | None = None,
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
        self.presence.on_reconnected = self._reconnected
        self.presence.on_agent_event = self._agent_event
        self._executions: dict[str, Execution] = {}
        self._unsettled: set[str] = set()
        self._controls = ControlDeduplicator()
        # Shared by the default executions: one agent's retries, acks and /next budget.
        self._services = TurnServices(agent_id, link.api, self.session_config)

    @property
    def executions(self) -> dict[str, Execution]:
        return dict(self._executions)

    @property
    def active_sessions(self) -> dict[str, Execution]:
        """The rooms' executions by room id (a copy)."""
        return dict(self._executions)

    @property
    def unsettled_rooms(self) -> list[str]:
        """Rooms whose cleanup failed (retried at the next stop)."""
        return sorted(self._unsettled)

    async def start(self) -> None:
        """Connect (if needed), join the rooms, start their executions."""
        log.info("Starting AgentRuntime for agent %s", self.agent_id)
        # Controls reach the rooms ahead of the event stream (a turn in flight can be cut).
        self.link.on_control = self.handle_control
        await self.presence.start()

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Settle every room (up to ``timeout`` each, then cut), clean up, leave, disconnect;
        True when no turn had to be cut."""
        log.info("Stopping AgentRuntime for agent %s", self.agent_id)
        executions, self._executions = self._executions, {}
        results = await asyncio.gather(*(e.stop(timeout) for e in executions.values()))
        for room_id in executions:
            await self._cleanup(room_id)
        await self.presence.stop()
        await self.link.disconnect()
        return all(results)

    async def run(self, *, install_signal_handlers: bool = True) -> None:
        """``start()``, serve until a signal or the link ends, then ``stop()``."""
        await self.start()
        try:
            await self.link.run_forever(install_signal_handlers=install_signal_handlers)
        finally:
            await self.stop()

    async def handle_control(self, control: Mapping[str, Any] | BaseModel) -> None:
        """Apply an ``agent.control`` signal (interrupt / stop / play) to its rooms, once per
        ``correlation_id``; interrupt and stop also reach ``on_control(room_id, mode)``."""
        payload = control.model_dump() if isinstance(control, BaseModel) else control
        reached = targets(payload, self._executions)
        if not reached or not self._controls.first_sighting(payload):
            return
        mode = str(payload.get("mode"))
        log.info("Applying control %s to %d room(s)", mode, len(reached))
        for execution in reached:
            await apply_control(execution, mode, self.on_control)

    async def _joined(self, room_id: str, _payload: dict[str, Any]) -> None:
        if self.execution_factory is not None:
            execution = _build(self.execution_factory, room_id, self.link)
        else:
            execution = ExecutionContext(
                room_id,
                self.link,
                self.on_execute,
                self.session_config,
                self.agent_id,
                self.on_participant_added,
                self.on_participant_removed,
                on_message_control=self.on_message_control,
                on_platform_stop=self._platform_stop,
                services=self._services,
            )
        self._executions[room_id] = execution
        await execution.start()

    async def _left(self, room_id: str) -> None:
        execution = self._executions.pop(room_id, None)
        if execution is not None:
            await execution.stop(5.0)
            await self._cleanup(room_id)

    async def _platform_stop(self, ctx: ExecutionContext) -> None:
        if self.on_control is not None:
            await self.on_control(ctx.room_id, "stop")

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

    async def _reconnected(self) -> None:
        for execution in list(self._executions.values()):
            await _resync(execution)

    async def _agent_event(self, event: PlatformEvent) -> None:
        if event.type == "agent.control":  # a link without on_control (set by start())
            await self.handle_control(event.raw or {})


async def _resync(execution: Execution) -> None:
    """``request_resync()``, sync or async (custom executions may have either, or none)."""
    method = getattr(execution, "request_resync", None)
    if method is not None:
        result = method()
        if inspect.isawaitable(result):
            await result


def _build(factory: ExecutionFactory, room_id: str, link: BandLink) -> Execution:
    try:
        takes_hub = "hub_room_id" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        takes_hub = False
    return factory(room_id, link, hub_room_id=None) if takes_hub else factory(room_id, link)
