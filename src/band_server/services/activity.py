"""``/activity``: the agent's "working…" report in a room, and a sign of life for its live
attempt (the indicator itself: ``services.working``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import leases, unit
from .principals import Principal
from .views import activity_answer
from .working import flipped

if TYPE_CHECKING:
    from ..context import Platform


async def report_activity(
    platform: Platform, agent: Principal, room_id: str, working: bool
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
