"""The "working…" indicator of an agent in a room, and a sign of life for its live attempt."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from band.protocol import ActivityResponse, topic

from ..fanout.bus import Broadcast
from . import leases, unit
from .principals import Principal

if TYPE_CHECKING:
    from ..context import Platform

ACTIVITY_TTL = 10.0
"""Seconds a ``working: true`` report lasts without a refresh (the client refreshes ~3 s)."""


@dataclass
class ActivityBoard:
    """In-memory "is this agent working in this room" flags with a short expiry.

    Node-local on purpose: the indicator is cosmetic and refreshed every few seconds.
    """

    ttl: float = ACTIVITY_TTL
    _until: dict[tuple[str, str], float] = field(default_factory=dict)

    def is_working(self, room_id: str, agent_id: str) -> bool:
        until = self._until.get((room_id, agent_id))
        if until is None:
            return False
        if until < time.monotonic():
            del self._until[(room_id, agent_id)]
            return False
        return True

    def report(self, room_id: str, agent_id: str, working: bool) -> bool:
        """Record a report; True when the visible state changed."""
        before = self.is_working(room_id, agent_id)
        if working:
            self._until[(room_id, agent_id)] = time.monotonic() + self.ttl
        else:
            self._until.pop((room_id, agent_id), None)
        return before != working


async def report_activity(
    platform: Platform, agent: Principal, room_id: str, working: bool
) -> ActivityResponse:
    """Record the agent's working flag in a room it belongs to; tell people when it flips.

    ``working: true`` is also a sign of life of the room's live attempt (its lease)."""
    # The roster cache answers membership (dropped on every membership change, cluster-wide).
    await platform.rosters.room_for(platform.db, agent, room_id)
    if working and platform.lease_clock.due(agent.id, room_id):
        async with unit.write(platform) as uow:
            await leases.touch(uow.session, agent.id, room_id)
    if platform.activity.report(room_id, agent.id, working):
        await platform.bus.publish(
            Broadcast(
                topic=topic("chat_room", room_id),
                event="agent_activity",
                payload={"agent_id": agent.id, "chat_room_id": room_id, "working": working},
                agents=frozenset(),
                users=True,
            )
        )
    return ActivityResponse(working=working)
