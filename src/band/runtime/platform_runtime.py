"""``PlatformRuntime``: the link plus one ``ExecutionContext`` per room, driven by its events.

It fetches the agent's identity, admits rooms (join topics, then drain ``/next``), routes
pushes to room workers, applies controls, reconciles after reconnects, and on stop settles
every room (``on_cleanup`` per room) before the link disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import httpx

from band.core.exceptions import BandConnectionError
from band.platform.errors import BandRestError
from band.platform.event import MessageEvent, PlatformEvent
from band.platform.link import BandLink
from band.platform.socket import SocketTimings

from .adapter_turn import AdapterTurn, ToolsFactory
from .config import DEFAULT_REST_URL, DEFAULT_WS_URL, AgentConfig, SessionConfig
from .contact_handler import ContactEventHandler
from .contacts import ContactEventConfig, ContactEventStrategy
from .control import ControlDeduplicator, apply_control, targets
from .room import RoomState
from .room_execution import ExecutionContext
from .turn_runner import TurnServices

__all__ = ["ParticipantCallback", "PlatformRuntime"]

log = logging.getLogger("band.runtime.platform_runtime")
presence_log = logging.getLogger("band.runtime.presence")

ParticipantCallback = Callable[[str, dict[str, Any]], Any]
ME_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0, 16.0)
REMOVE_TIMEOUT = 5.0


class PlatformRuntime:
    """Connects one agent to the platform and runs its rooms."""

    def __init__(
        self,
        agent_id: str,
        api_key: str,
        ws_url: str = DEFAULT_WS_URL,
        rest_url: str = DEFAULT_REST_URL,
        config: AgentConfig | None = None,
        session_config: SessionConfig | None = None,
        contact_config: ContactEventConfig | None = None,
        on_participant_added: ParticipantCallback | None = None,
        on_participant_removed: ParticipantCallback | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        socket_timings: SocketTimings | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.api_key = api_key
        self.ws_url = ws_url
        self.rest_url = rest_url
        self.config = config or AgentConfig()
        self.session_config = session_config or SessionConfig()
        self.contact_config = contact_config or ContactEventConfig()
        self.contacts: ContactEventHandler | None = None
        self._transport = transport
        self._timings = socket_timings
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        self.link: BandLink | None = None
        self.agent_name = ""
        self.agent_description = ""
        self.feature_flags: dict[str, Any] = {}
        self.workers: dict[str, ExecutionContext] = {}
        self._services: TurnServices | None = None
        self._turn: AdapterTurn | None = None
        self._pump: asyncio.Task[None] | None = None
        self._removals: dict[str, asyncio.Task[None]] = {}
        self._controls = ControlDeduplicator()

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        """Create the link and fetch the agent's identity; no socket yet."""
        self.link = BandLink(
            self.agent_id,
            self.api_key,
            self.ws_url,
            self.rest_url,
            self.config.conflict_policy,
            transport=self._transport,
            timings=self._timings,
            # The turn's claim comes with the push (TurnRunner skips its /processing).
            claim_on_push="working" if self.session_config.enable_working_state else "claim",
        )
        for delay in (*ME_RETRY_DELAYS, None):
            try:
                me = await self.link.api.get_me()
                break
            except BandRestError as exc:
                if exc.status != 429 or delay is None:
                    raise
                await asyncio.sleep(delay)
        self.agent_name = me.name
        self.agent_description = me.description or ""
        self.feature_flags = dict(getattr(me, "feature_flags", None) or {})
        if not self.agent_description.strip():
            raise ValueError(f"Agent {self.agent_id} has no description")

    async def start(
        self, adapter: Any, tools_factory: ToolsFactory, preprocessor: Any = None
    ) -> None:
        """Connect, admit the agent's rooms and start routing events."""
        link = self._require_link()
        self._services = TurnServices(self.agent_id, link.api, self.session_config)
        self._turn = AdapterTurn(adapter, tools_factory, preprocessor)
        await link.connect()
        await self._start_contacts(link)
        room_ids = await link.list_room_ids() if self.config.auto_subscribe_existing_rooms else []
        for room_id in room_ids:
            await link.subscribe_room(room_id)
        for room_id in room_ids:
            await self._add_worker(room_id)
        self._pump = asyncio.create_task(self._pump_events(), name="band-events")
        log.info("Platform runtime started for agent: %s", self.agent_name)

    async def _start_contacts(self, link: BandLink) -> None:
        """Contact events per ``contact_config``; HUB_ROOM creates its room now."""
        if not self.contact_config.active:
            return
        self.contacts = ContactEventHandler(
            self.contact_config,
            link,
            on_broadcast=self._broadcast,
            on_hub_event=self._to_hub,
            on_hub_init=self._brief_hub,
        )
        await link.subscribe_agent_contacts(self.agent_id)
        if self.contact_config.strategy == ContactEventStrategy.HUB_ROOM:
            await self.contacts.initialize_hub_room()

    @property
    def hub_room_id(self) -> str | None:
        """The contacts hub room, when the HUB_ROOM strategy runs."""
        return self.contacts.hub_room_id if self.contacts is not None else None

    def _broadcast(self, note: str) -> None:
        for worker in self.workers.values():
            worker.inject_system_message(note)

    async def _to_hub(self, hub_room_id: str, event: MessageEvent) -> None:
        if hub_room_id not in self.workers:
            await self._admit(hub_room_id)
        self.workers[hub_room_id].push(event)

    async def _brief_hub(self, hub_room_id: str, prompt: str) -> None:
        if hub_room_id not in self.workers:
            await self._admit(hub_room_id)
        self.workers[hub_room_id].inject_system_message(prompt)

    async def run_forever(self) -> None:
        """Until the socket ends (stop, supersede) or fails for good."""
        await self._require_link().run_forever()

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Settle every room (``on_cleanup`` each), then disconnect; True if nothing was cut."""
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
            self._pump = None
        for task in list(self._removals.values()):
            with contextlib.suppress(Exception):
                await task
        workers, self.workers = self.workers, {}
        results = await asyncio.gather(*(w.stop(timeout) for w in workers.values()))
        errors: list[Exception] = []
        for room_id in workers:
            try:
                await self._cleanup_room(room_id)
            except Exception as exc:
                errors.append(exc)
        if self.link is not None:
            await self.link.disconnect()
        log.info("Platform runtime stopped")
        if errors:
            raise ExceptionGroup("Room cleanup failed", errors)
        return all(results)

    # -- rooms -------------------------------------------------------------------------------

    def room(self, room_id: str) -> RoomState | None:
        worker = self.workers.get(room_id)
        return worker.room if worker is not None else None

    async def _add_worker(self, room_id: str) -> ExecutionContext:
        turn = self._require_turn()
        worker = ExecutionContext(
            room_id,
            self._require_link(),
            turn,
            self.session_config,
            self.agent_id,
            self.on_participant_added,
            self.on_participant_removed,
            hub_room_id=self.hub_room_id,
            on_message_control=turn.control,
            on_platform_stop=self._platform_stop,
            services=self._require_services(),
        )
        self.workers[room_id] = worker
        if self.contacts is not None and room_id == self.hub_room_id:
            self.contacts.mark_hub_room_ready()
        presence_log.info("Agent joined room: %s", room_id)
        await worker.start()
        return worker

    async def _platform_stop(self, ctx: ExecutionContext) -> None:
        await self._on_interrupt(ctx.room_id, "stop")

    async def _on_interrupt(self, room_id: str, mode: str) -> None:
        hook = getattr(self._require_turn().adapter, "on_interrupt", None)
        if callable(hook):
            await hook(room_id, mode)

    async def _admit(self, room_id: str) -> None:
        pending = self._removals.get(room_id)
        if pending is not None:
            await pending
        if room_id in self.workers:
            return
        link = self._require_link()
        if not link.is_room_subscribed(room_id):
            await link.subscribe_room(room_id)
        await self._add_worker(room_id)

    async def _remove(self, room_id: str, via: str) -> None:
        worker = self.workers.pop(room_id, None)
        link = self._require_link()
        if link.is_room_subscribed(room_id):
            await link.unsubscribe_room(room_id)
        if worker is None:
            return
        presence_log.info("Agent left room via %s: %s", via, room_id)
        await worker.stop(REMOVE_TIMEOUT)
        try:
            await self._cleanup_room(room_id)
        except Exception:
            log.exception("Room %s: on_cleanup failed", room_id)

    async def _cleanup_room(self, room_id: str) -> None:
        hook = getattr(self._require_turn().adapter, "on_cleanup", None)
        if callable(hook):
            await hook(room_id)

    # -- events ------------------------------------------------------------------------------

    async def _pump_events(self) -> None:
        link = self._require_link()
        while True:
            event = await link.next_event()
            if event is None:
                return  # the link ended for good (stop, supersede)
            try:
                await self._dispatch(event)
            except Exception:
                log.exception("Error handling %s", event.type)

    async def _dispatch(self, event: PlatformEvent) -> None:
        kind, room_id, payload = event.type, event.room_id, event.raw or {}
        worker = self.workers.get(room_id) if room_id else None
        if kind == "message_created":
            if worker is not None and isinstance(event, MessageEvent):
                worker.push(event)
        elif kind == "room_added" and room_id:
            await self._admit(room_id)
        elif kind in ("room_removed", "room_deleted") and room_id:
            task = asyncio.create_task(self._remove(room_id, kind))
            self._removals[room_id] = task
            task.add_done_callback(self._removal_done)
        elif kind in ("participant_added", "participant_removed") and worker is not None:
            await worker.on_event(event)
        elif kind.startswith("contact_") and self.contacts is not None:
            await self.contacts.handle(event)
        elif kind == "agent.control":
            await self._control(payload)
        elif kind == "reconnected":
            for w in self.workers.values():
                await w.request_resync()
        elif kind == "supersede":
            log.warning("This connection was superseded: %s", payload.get("message"))

    def _removal_done(self, task: asyncio.Task[None]) -> None:
        for room_id, pending in list(self._removals.items()):
            if pending is task:
                del self._removals[room_id]

    async def _control(self, payload: dict[str, Any]) -> None:
        if not self._controls.first_sighting(payload):
            return  # the platform may repeat a control; apply it once
        mode, room_id = str(payload.get("mode")), payload.get("room_id")
        log.info("Control %s (scope=%s, room=%s)", mode, payload.get("scope"), room_id)
        for worker in targets(payload, self.workers):
            await apply_control(worker, mode, self._on_interrupt)

    # -- helpers -----------------------------------------------------------------------------

    def _require_link(self) -> BandLink:
        if self.link is None:
            raise BandConnectionError("runtime not initialized")
        return self.link

    def _require_services(self) -> TurnServices:
        if self._services is None:
            raise BandConnectionError("runtime not started")
        return self._services

    def _require_turn(self) -> AdapterTurn:
        if self._turn is None:
            raise BandConnectionError("runtime not started")
        return self._turn
