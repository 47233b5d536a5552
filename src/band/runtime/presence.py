"""``RoomPresence``: which rooms the agent is in, kept current from the link's events.

``start()`` subscribes every existing room (optionally filtered), then follows
``room_added`` / ``room_removed`` / ``room_deleted``; every other event of a known room goes
to ``on_room_event(room_id, event)``, and agent-wide events (``reconnected``, controls) to
``on_agent_event(event)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from band.platform.event import PlatformEvent

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = ["RoomPresence"]

log = logging.getLogger("band.runtime.presence")

RoomHook = Callable[[str], Awaitable[None]]
RoomEventHook = Callable[[str, PlatformEvent], Awaitable[None]]
AgentEventHook = Callable[[PlatformEvent], Awaitable[None]]
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
        self.on_room_joined: RoomHook | None = None
        self.on_room_left: RoomHook | None = None
        self.on_room_event: RoomEventHook | None = None
        self.on_agent_event: AgentEventHook | None = None
        self._pump: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Join existing rooms, then follow the event stream."""
        log.info("RoomPresence started for agent %s", self.link.agent_id)
        if self.auto_subscribe_existing:
            page = 1
            while True:
                rooms, meta = await self.link.api.list_chats(page=page, page_size=100)
                for room in rooms:
                    if self.room_filter is None or self.room_filter(room.model_dump()):
                        await self._join(room.id)
                total = meta.get("total_pages")
                if not isinstance(total, int) or page >= total:
                    break
                page += 1
        self._pump = asyncio.create_task(self._follow(), name="band-presence")

    async def stop(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
            self._pump = None

    async def wait(self) -> None:
        """Until the link's event stream ends (disconnect, supersede)."""
        if self._pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._pump)

    async def _join(self, room_id: str) -> None:
        if room_id in self.rooms:
            return
        await self.link.subscribe_room(room_id)
        self.rooms.add(room_id)
        log.info("Agent joined room: %s", room_id)
        if self.on_room_joined is not None:
            await self.on_room_joined(room_id)

    async def _leave(self, room_id: str, via: str) -> None:
        if room_id not in self.rooms:
            return
        self.rooms.discard(room_id)
        await self.link.unsubscribe_room(room_id)
        log.info("Agent left room via %s: %s", via, room_id)
        if self.on_room_left is not None:
            await self.on_room_left(room_id)

    async def _follow(self) -> None:
        async for event in self.link:
            try:
                await self._route(event)
            except Exception:
                log.exception("Error handling %s", event.type)

    async def _route(self, event: PlatformEvent) -> None:
        room_id = event.room_id
        if event.type == "room_added" and room_id:
            raw = event.raw or {"id": room_id}
            if self.room_filter is None or self.room_filter(raw):
                await self._join(room_id)
        elif event.type in _LEAVES and room_id:
            await self._leave(room_id, event.type)
        elif room_id and room_id in self.rooms and event.type != "agent.control":
            if self.on_room_event is not None:
                await self.on_room_event(room_id, event)
        elif self.on_agent_event is not None:
            await self.on_agent_event(event)
