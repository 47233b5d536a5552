"""``/activity``: the agent's "working…" report in a room, and a sign of life for its live
attempt (the indicator itself: ``services.deliveries.working``)."""

from __future__ import annotations

from typing import Any, Protocol

from band_server.services import unit
from band_server.services.deliveries import leases
from band_server.services.deliveries.working import Indicators, flipped
from band_server.services.identity.principals import Principal
from band_server.services.ports import Backbone
from band_server.services.rooms.roster_cache import RosterCache
from band_server.services.views import activity_answer


class Reporting(Backbone, Indicators, Protocol):
    """What ``/activity`` uses of the platform: the backbone, the indicators, the roster
    cache and the lease clock."""

    @property
    def rosters(self) -> RosterCache: ...

    @property
    def lease_clock(self) -> leases.LeaseClock: ...


async def report_activity(
    platform: Reporting, agent: Principal, room_id: str, working: bool
) -> dict[str, Any]:
    """Record the agent's working flag in a room it belongs to; tell people when it flips.

    ``working: true`` is also a sign of life of the room's live attempt (its lease)."""
    # The roster cache answers membership (dropped on every membership change, cluster-wide).
    await platform.rosters.room_for(platform.db, agent, room_id)
    if working and platform.lease_clock.due(agent.id, room_id):
        async with unit.write(platform) as uow:
            await leases.touch(uow.session, agent.id, room_id)
    if platform.activity.report(room_id, agent.id, working):
        await platform.bus.publish(flipped(agent.id, room_id, working))
    return activity_answer(working)
