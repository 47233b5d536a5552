"""``RoomPresence``: which rooms the agent is in, kept current from the link's events.

How it works: docs/internals/sdk.md, "Room presence".

Optional callbacks report rooms joined and left, room, contact and agent-wide events,
reconnects and disconnects; a raising callback is logged and the stream goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from band.platform.event import ContactEvent, PlatformEvent, WebSocketDisconnectedEvent

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = ["RoomPresence"]

log = logging.getLogger("band.runtime.presence")

_LEAVES = ("room_removed", "room_deleted")


class RoomPresence:
    """Follows the agent's rooms over one ``BandLink`` (see the module docstring)."""

    def __init__(
        self,
        link: BandLink,
        room_filter: Callable[[dict[str, Any]], bool] | None = None,
        auto_subscribe_existing: bool = True,
    ) -> None:
        self.link = link
        self.room_filter = room_filter
        self.auto_subscribe_existing = auto_subscribe_existing
        self.rooms: set[str] = set()
        self.on_room_joined: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None
        self.on_room_left: Callable[[str], Awaitable[None]] | None = None
        self.on_room_event: Callable[[str, PlatformEvent], Awaitable[None]] | None = None
        self.on_contact_event: Callable[[PlatformEvent], Awaitable[None]] | None = None
        self.on_reconnected: Callable[[], Awaitable[None]] | None = None
        self.on_disconnected: Callable[[], Awaitable[None]] | None = None
        self.on_agent_event: Callable[[PlatformEvent], Awaitable[None]] | None = None
        self._pump: asyncio.Task[None] | None = None

    @property
    def is_running(self) -> bool:
        return self._pump is not None and not self._pump.done()

    async def start(self) -> None:
        """Connect if needed, join existing rooms, then follow the event stream."""
        if self.is_running:
            raise RuntimeError(
                f"RoomPresence for agent {self.link.agent_id} is already running; "
                "call stop() before starting again"
            )
        if not self.link.is_connected:
            await self.link.connect()
        await self.link.subscribe_agent_rooms(self.link.agent_id)
        if self.auto_subscribe_existing:
            page = 1
            while True:
                rooms, meta = await self.link.api.list_chats(page=page, page_size=100)
                for room in rooms:
                    payload = room.model_dump(mode="json", exclude_none=True)
                    if self.room_filter is None or self.room_filter(payload):
                        await self._join(room.id, payload)
                total = meta.get("total_pages")
                if not isinstance(total, int) or page >= total:
                    break
                page += 1
        self._pump = asyncio.create_task(self._follow(), name="band-presence")
        log.info("RoomPresence started for agent %s", self.link.agent_id)

    async def stop(self) -> None:
        """Stop following events and leave every room (the link stays connected)."""
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
            self._pump = None
        for room_id in sorted(self.rooms):
            await self._leave(room_id, "stop")
        log.info("RoomPresence stopped")

    async def wait(self) -> None:
        """Until the link's event stream ends (disconnect, supersede)."""
        if self._pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._pump)

    async def _notify(self, label: str, callback: Any, *args: Any) -> None:
        if callback is None:
            return
        try:
            await callback(*args)
        except Exception:
            log.exception("%s callback failed", label)

    async def _join(self, room_id: str, payload: dict[str, Any]) -> None:
        if room_id in self.rooms:
            return
        await self.link.subscribe_room(room_id)
        self.rooms.add(room_id)
        log.info("Agent joined room: %s", room_id)
        await self._notify("on_room_joined", self.on_room_joined, room_id, payload)

    async def _leave(self, room_id: str, via: str) -> None:
        if room_id not in self.rooms:
            return
        self.rooms.discard(room_id)
        if self.link.is_room_subscribed(room_id):
            await self.link.unsubscribe_room(room_id)
        log.info("Agent left room via %s: %s", via, room_id)
        await self._notify("on_room_left", self.on_room_left, room_id)

    async def _follow(self) -> None:
        async for event in self.link:
            try:
                await self._route(event)
            except Exception:
                log.exception("Error handling %s", event.type)

    async def _route(self, event: PlatformEvent) -> None:
        room_id = event.room_id
        if event.type == "room_added" and room_id:
            payload = dict(event.raw or {"id": room_id})
            if self.room_filter is None or self.room_filter(payload):
                await self._join(room_id, payload)
        elif event.type in _LEAVES and room_id:
            await self._leave(room_id, event.type)
        elif event.type == "reconnected":
            await self._notify("on_reconnected", self.on_reconnected)
            await self._notify("on_agent_event", self.on_agent_event, event)
        elif isinstance(event, WebSocketDisconnectedEvent):
            if event.payload is not None and not event.payload.retryable:
                await self._notify("on_disconnected", self.on_disconnected)
        elif isinstance(event, ContactEvent):
            await self._notify("on_contact_event", self.on_contact_event, event)
        elif room_id and room_id in self.rooms and event.type != "agent.control":
            await self._notify("on_room_event", self.on_room_event, room_id, event)
        else:
            await self._notify("on_agent_event", self.on_agent_event, event)
