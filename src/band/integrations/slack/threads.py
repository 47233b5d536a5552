"""``SlackThreads``: which Band room mirrors which Slack thread.

A thread's room is created on its first event (once, even for events arriving together) and
bound in a ``task`` event ("Slack thread context"); a restarted bridge reads its rooms' events
once to find the bindings again. Slack messages can be mirrored into the room as ``thought``
events (tagged ``slack_mirror``), so its timeline shows the Slack side too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from band.client.rest import AsyncRestClient
from band.converters.slack import SlackHistoryConverter
from band.integrations._rooms import own_room_histories
from band.platform.rest import BandRestClient

from .types import SlackRoomBinding

__all__ = ["SlackThreads", "thread_key"]

logger = logging.getLogger("band.integrations.slack")


def thread_key(binding: SlackRoomBinding) -> str:
    """``<app>:<channel>:<thread ts>``: a thread, told apart across apps."""
    return f"{binding.app_slug}:{binding.channel}:{binding.thread_ts}"


def _thread_metadata(binding: SlackRoomBinding, user: str) -> dict[str, Any]:
    """The metadata naming the thread and its Slack user on the room's events about it."""
    return {
        "slack_app_slug": binding.app_slug,
        "slack_channel_id": binding.channel,
        "slack_thread_ts": binding.thread_ts,
        "slack_user_id": user,
    }


class SlackThreads:
    """The bridge's thread <-> room bindings (see the module docstring)."""

    def __init__(self, rest: Callable[[], BandRestClient], api_key: Callable[[], str]) -> None:
        self._rest = rest
        self._api_key = api_key
        self._rooms: dict[str, str] = {}  # thread key -> room
        self._bindings: dict[str, SlackRoomBinding] = {}  # room -> thread
        self._locks: dict[str, asyncio.Lock] = {}
        self._scanned = False

    def room_of(self, binding: SlackRoomBinding) -> str | None:
        """The room mirroring this thread, if there is one yet."""
        return self._rooms.get(thread_key(binding))

    def binding_of(self, room_id: str) -> SlackRoomBinding | None:
        """The thread a room mirrors, if any."""
        return self._bindings.get(room_id)

    def lock(self, key: str) -> asyncio.Lock:
        """One lock per thread or room: what runs under it runs one at a time."""
        return self._locks.setdefault(key, asyncio.Lock())

    async def room_for(self, binding: SlackRoomBinding, user: str) -> tuple[str, bool]:
        """``(room, created)`` for the thread."""
        key = thread_key(binding)
        async with self.lock(key):
            if key not in self._rooms and not self._scanned:
                await self._read_own_rooms()
            room_id = self._rooms.get(key)
            if room_id is not None:
                return room_id, False
            rest = self._rest()
            room_id = str((await rest.create_chat(title=f"Slack thread {binding.thread_ts}")).id)
            metadata = {**_thread_metadata(binding, user), "slack_room_id": room_id}
            await rest.post_event(room_id, "Slack thread context", "task", metadata)
            self._rooms[key], self._bindings[room_id] = room_id, binding
            logger.info("Slack thread %s is room %s", key, room_id)
            return room_id, True

    def rehydrate(self, room_id: str, raw: list[dict[str, Any]]) -> None:
        """Bind ``room_id`` to the thread its history names (a live binding wins)."""
        binding = SlackHistoryConverter().convert(raw).binding
        if binding is not None and room_id not in self._bindings:
            self._bindings[room_id] = binding
            self._rooms.setdefault(thread_key(binding), room_id)

    def forget(self, room_id: str) -> None:
        binding = self._bindings.pop(room_id, None)
        if binding is not None:
            self._rooms.pop(thread_key(binding), None)

    async def mirror(
        self, room_id: str, binding: SlackRoomBinding, *, user: str, name: str, ts: str, text: str
    ) -> None:
        """A Slack message as a ``thought`` in the room (best effort)."""
        metadata = {"slack_mirror": True, **_thread_metadata(binding, user), "slack_ts": ts}
        try:
            await self._rest().post_event(
                room_id, f"Slack · {name or user}: {text}", "thought", metadata
            )
        except Exception as exc:
            logger.warning("Room %s: mirroring a Slack message failed: %s", room_id, exc)

    async def _read_own_rooms(self) -> None:
        self._scanned = True
        rest = AsyncRestClient(api_key=self._api_key(), http=self._rest().http)
        async for items in own_room_histories(rest):
            if items:
                self.rehydrate(str(items[0]["room_id"]), items)
