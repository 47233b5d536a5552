"""An in-process cache of each room and its active roster, for the hot write paths.

How it works: docs/internals/server.md, "The roster cache".

A membership change drops the entry on every node, through the bus.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from band_server.errors import NotFound
from band_server.fanout.bus import (
    EVERY_NODE_EVENTS,
    EVERY_NODE_TOPIC_KINDS,
    GAP_TOPIC,
    Broadcast,
    gap_since,
)
from band_server.services.identity.principals import Principal
from band_server.services.one_read import OneRead
from band_server.services.rooms.membership import Member, get_room, members
from band_server.store.db import Database
from band_server.store.models import Room


@dataclass(frozen=True)
class RoomSnapshot:
    """A room (detached from its session) and its active members when it was read."""

    room: Room
    roster: tuple[Member, ...]
    member_ids: frozenset[str]


class RosterCache:
    def __init__(self, ttl: float = 30.0, max_rooms: int = 10_000) -> None:
        self.ttl = ttl
        self.max_rooms = max_rooms
        self._rooms: dict[str, tuple[RoomSnapshot, float]] = {}
        # Bumped by every invalidation: a read that was in flight across one is not kept (it
        # may predate the change it was told about, and would stay stale for ``ttl``).
        self._changes = 0
        # The read under way for a room: later callers wait for it while no change was
        # announced since it began.
        self._reading: OneRead[str, RoomSnapshot] = OneRead()

    async def snapshot(self, db: Database, room_id: str) -> RoomSnapshot:
        """The room and its roster, from the cache or read once (404 for an unknown room)."""
        entry = self._rooms.get(room_id)
        if entry is not None and entry[1] > time.monotonic():
            return entry[0]
        return await self._reading(room_id, self._changes, lambda: self._read(db, room_id))

    async def _read(self, db: Database, room_id: str) -> RoomSnapshot:
        changes = self._changes
        async with db.read() as session:
            room = await get_room(session, room_id)
            roster = tuple(await members(session, room_id))
        snap = RoomSnapshot(room, roster, frozenset(m.id for m in roster))
        if changes != self._changes:
            return snap  # a change was announced meanwhile: use it once, keep nothing
        if len(self._rooms) >= self.max_rooms:
            self._rooms.clear()
        self._rooms[room_id] = (snap, time.monotonic() + self.ttl)
        return snap

    async def room_for(self, db: Database, principal: Principal, room_id: str) -> RoomSnapshot:
        """The room if the caller is an active participant; otherwise 404, like rooms.room_for."""
        snap = self.cached_for(principal, room_id)
        if snap is None:
            snap = _member(principal, await self.snapshot(db, room_id))
        return snap

    def cached_for(self, principal: Principal, room_id: str) -> RoomSnapshot | None:
        """:meth:`room_for`'s answer while the room is cached (its 404 too), else None: the
        hot paths read ``cached_for(...) or await room_for(...)``, no coroutine a hit."""
        entry = self._rooms.get(room_id)
        if entry is None or entry[1] <= time.monotonic():
            return None
        snap = entry[0]
        if principal.id not in snap.member_ids:  # ``_member``'s check, without its call
            raise NotFound("Chat room not found")
        return snap

    def invalidate(self, room_id: str) -> None:
        self._changes += 1
        self._rooms.pop(room_id, None)

    def observe(self, broadcast: Broadcast) -> None:
        """Drop a room's entry when its membership changes (on every node, via the bus); drop
        every room after a fan-out gap (a change may have been missed)."""
        if broadcast.topic == GAP_TOPIC and gap_since(broadcast) is not None:  # (no call else)
            self._changes += 1
            self._rooms.clear()
            return
        kind, _, ident = broadcast.topic.partition(":")
        if kind in EVERY_NODE_TOPIC_KINDS:  # room_participants: every node hears these
            self.invalidate(ident)
        elif broadcast.event in EVERY_NODE_EVENTS:
            room_id = broadcast.payload.get("id")
            if isinstance(room_id, str):
                self.invalidate(room_id)


def _member(principal: Principal, snap: RoomSnapshot) -> RoomSnapshot:
    """``snap`` if ``principal`` is one of its active participants; otherwise 404."""
    if principal.id not in snap.member_ids:
        raise NotFound("Chat room not found")
    return snap
