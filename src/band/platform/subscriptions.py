"""Which topics one ``BandLink`` holds, and joining and leaving them.

A room is two topics (``chat_room:<r>`` and ``room_participants:<r>``): both joined, or the
room is not joined. A refused room join is retried in the background (1, 2, 4, 8, 16 s) while
the room stays wanted. The socket is passed to every call (``ws``) because the link owns it;
``current_ws`` tells which socket is live, so a retry never acts on a socket that has since
been replaced.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from band.core.exceptions import BandConnectionError

from .socket import JoinError

__all__ = ["ROOM_JOIN_RETRY_DELAYS", "SubscriptionManager", "Topics"]

logger = logging.getLogger(__name__)

ROOM_JOIN_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0, 16.0)


class Topics(Protocol):
    """What the manager needs of a socket: join, leave, and whether a topic is joined.

    ``join`` raises (``band.platform.socket.JoinError``) when the platform refuses.
    """

    async def join(self, topic: str) -> object: ...

    async def leave(self, topic: str) -> None: ...

    def is_joined(self, topic: str) -> bool: ...


def _room_topics(room_id: str) -> tuple[str, str]:
    return f"chat_room:{room_id}", f"room_participants:{room_id}"


class SubscriptionManager:
    """The rooms and agent topics a link wants, joined over the link's current socket."""

    def __init__(self, current_ws: Callable[[], Topics | None]) -> None:
        self._current_ws = current_ws
        self._rooms: set[str] = set()
        self._retries: dict[str, asyncio.Task[None]] = {}
        self._contacts_topic: str | None = None

    @property
    def rooms(self) -> frozenset[str]:
        """Rooms wanted (joined, or being retried)."""
        return frozenset(self._rooms)

    def is_room_subscribed(self, room_id: str) -> bool:
        return room_id in self._rooms

    async def subscribe_agent_rooms(self, ws: Topics, agent_id: str) -> None:
        """Join ``agent_rooms:<agent>`` (room added / removed); a refusal is logged, not raised."""
        topic = f"agent_rooms:{agent_id}"
        if ws.is_joined(topic):
            return
        try:
            await ws.join(topic)
        except JoinError as exc:
            logger.error("Running without room_added/room_removed: %s", exc)

    async def subscribe_agent_contacts(self, ws: Topics, agent_id: str) -> None:
        """Join ``agent_contacts:<agent>``; a refusal raises ``BandConnectionError``."""
        topic = f"agent_contacts:{agent_id}"
        try:
            await ws.join(topic)
        except JoinError as exc:
            raise BandConnectionError(str(exc)) from exc
        self._contacts_topic = topic

    async def unsubscribe_agent_contacts(self, ws: Topics, agent_id: str | None = None) -> None:
        """Leave the contacts topic (nothing happens when it was never joined)."""
        if self._contacts_topic is not None:
            await ws.leave(self._contacts_topic)
            self._contacts_topic = None

    async def subscribe_room(self, ws: Topics, room_id: str) -> bool:
        """Join the room's topics; True when joined, else False with a retry running."""
        if room_id in self._rooms and ws.is_joined(_room_topics(room_id)[0]):
            return True
        self._rooms.add(room_id)
        if await self._join_room(ws, room_id):
            return True
        if room_id not in self._retries:
            self._retries[room_id] = asyncio.create_task(self._retry_room(room_id))
        return False

    async def unsubscribe_room(self, ws: Topics, room_id: str) -> None:
        """Leave the room's topics and stop wanting the room."""
        self._rooms.discard(room_id)
        retry = self._retries.pop(room_id, None)
        if retry is not None:
            retry.cancel()
        for topic in _room_topics(room_id):
            await ws.leave(topic)

    async def rejoin_rooms(self, ws: Topics, rooms: set[str]) -> None:
        """After a reconnect: join again each of ``rooms`` still wanted but no longer joined."""
        for room_id in sorted(rooms & self._rooms):
            if not ws.is_joined(_room_topics(room_id)[0]):
                await self.subscribe_room(ws, room_id)

    async def leave_all(self, ws: Topics) -> None:
        """Leave every room's topics (on disconnect) and forget the rooms."""
        self.end_session()
        for room_id in sorted(self._rooms):
            for topic in _room_topics(room_id):
                await ws.leave(topic)
        self._rooms.clear()

    def end_session(self) -> None:
        """Stop every background retry (the socket is going away)."""
        for task in self._retries.values():
            task.cancel()
        self._retries.clear()

    async def _join_room(self, ws: Topics, room_id: str) -> bool:
        chat, participants = _room_topics(room_id)
        try:
            await ws.join(chat)
        except JoinError as exc:
            logger.warning("Room %s: %s", room_id, exc)
            return False
        try:
            await ws.join(participants)
        except JoinError as exc:
            logger.warning("Room %s: %s", room_id, exc)
            await ws.leave(chat)
            return False
        return True

    async def _retry_room(self, room_id: str) -> None:
        try:
            for delay in ROOM_JOIN_RETRY_DELAYS:
                await asyncio.sleep(delay)
                ws = self._current_ws()
                if room_id not in self._rooms or ws is None:
                    return
                if await self._join_room(ws, room_id):
                    return
            logger.error("Room %s: giving up joining until the next reconnect", room_id)
        finally:
            self._retries.pop(room_id, None)
