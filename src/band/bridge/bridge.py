"""``Bridge``: one ``BandLink`` per agent, every event forwarded through a ``Forwarder``.

At connect and after every reconnect the bridge forwards each room's open messages
(``/messages`` not yet processed, oldest first) before live pushes, so a backlog posted
while it was down reaches the runtime; the runtime's ``/next`` check makes a message that
arrives twice count once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from band.platform.event import MessageEvent, PlatformEvent, event_from_push
from band.platform.link import BandLink

from .envelope import FORWARDED_EVENTS, envelope
from .forwarder import Forwarder

__all__ = ["AgentCredentials", "Bridge"]

log = logging.getLogger("band.bridge")


@dataclass(frozen=True)
class AgentCredentials:
    key: str
    agent_id: str
    api_key: str


class Bridge:
    """Holds the agents' sockets and feeds the forwarder (see the module docstring)."""

    def __init__(
        self, agents: list[AgentCredentials], forwarder: Forwarder, ws_url: str, rest_url: str
    ) -> None:
        self.agents = agents
        self.forwarder = forwarder
        self.ws_url = ws_url
        self.rest_url = rest_url
        self.links: dict[str, BandLink] = {}
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Connect every agent, forward its backlog, then follow its events."""
        for creds in self.agents:
            link = BandLink(creds.agent_id, creds.api_key, self.ws_url, self.rest_url)
            await link.connect()
            self.links[creds.agent_id] = link
            for room_id in await link.list_room_ids():
                await link.subscribe_room(room_id)
            log.info(
                "Agent %s (%s): connected, %d rooms", creds.key, creds.agent_id, len(link.rooms)
            )
            await self._backlog(link)
            self._tasks.append(asyncio.create_task(self._follow(link), name=f"bridge-{creds.key}"))

    async def wait(self) -> None:
        """Until every agent's link has ended."""
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for link in self.links.values():
            await link.disconnect()
        await self.forwarder.aclose()

    async def _follow(self, link: BandLink) -> None:
        async for event in link:
            if event.type == "room_added" and event.room_id:
                await link.subscribe_room(event.room_id)
                await self._room_backlog(link, event.room_id)
            elif event.type in ("room_removed", "room_deleted") and event.room_id:
                await link.unsubscribe_room(event.room_id)
            elif event.type == "reconnected":
                log.info("Agent %s: reconnected; forwarding open messages", link.agent_id)
                await self._backlog(link)
            self._forward(link, event)
        log.info("Agent %s: link ended (%s)", link.agent_id, _why(link))

    def _forward(self, link: BandLink, event: PlatformEvent) -> None:
        if event.type in FORWARDED_EVENTS and event.room_id:
            self.forwarder.submit(link.agent_id, event.room_id, envelope(link.agent_id, event))

    async def _backlog(self, link: BandLink) -> None:
        for room_id in sorted(link.rooms):
            await self._room_backlog(link, room_id)

    async def _room_backlog(self, link: BandLink, room_id: str) -> None:
        try:
            items, _meta = await link.api.list_messages(room_id, sort_order="asc")
        except Exception as exc:
            log.warning("Room %s: could not list open messages: %s", room_id, exc)
            return
        for item in items:
            if item.get("message_type", "text") != "text":
                continue
            event = event_from_push("message_created", room_id, item)
            if isinstance(event, MessageEvent):
                self._forward(link, event)


def _why(link: BandLink) -> str:
    reason = link.last_disconnect_reason
    return reason.reason if reason is not None else "closed"
