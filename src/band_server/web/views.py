"""What the room page's script reads: the timeline since a sequence number, the roster, who
may be added or removed, and which agents are working. Built from services only."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from ..context import Platform
from ..services.contacts import peers
from ..services.identity.principals import Principal
from ..services.messages import posts as messages
from ..services.messages.paging import Window, encode_cursor
from ..services.rooms import membership as rooms
from ..store.models import Room

LATEST = 100
"""Messages a first load shows (older ones are one scroll away in a later version)."""
CATCH_UP = 200


def room_title(room: Room) -> str:
    return room.title or room.task_id or f"Room {room.id[:8]}"


async def room_state(
    session: AsyncSession, platform: Platform, me: Principal, room: Room, after: int | None
) -> dict[str, Any]:
    """The room page's data: everything after ``after`` (or the latest messages), oldest first."""
    if after is None:
        page = await messages.list_messages(session, room, Window(sort_order="desc", limit=LATEST))
        items = list(reversed(page.items))
        has_more = False
    else:
        window = Window(limit=CATCH_UP, cursor=encode_cursor(after))
        page = await messages.list_messages(session, room, window)
        items, has_more = page.items, bool(page.metadata.get("has_more"))
    roster = await rooms.members(session, room.id)
    mine = next((m for m in roster if m.id == me.id), None)
    my_role = mine.participant.role if mine else "member"
    online = platform.presence.is_online
    present = {m.id for m in roster}
    addable = [p for p in await peers.all_peers(session, me, online) if p.id not in present]
    return {
        "room": {"id": room.id, "title": room_title(room), "last_seq": room.last_seq},
        "me": me.id,
        "items": [i.model_dump(mode="json") for i in items],
        "has_more": has_more,
        "last_read_seq": mine.participant.last_read_seq if mine else 0,
        "participants": [
            {
                **m.view(online(m.id)).model_dump(mode="json"),
                "removable": rooms.removal_refusal(me, my_role, m.id, m.participant.role) is None,
            }
            for m in roster
        ],
        "addable": [
            {"id": p.id, "name": p.name, "handle": p.handle, "type": p.type} for p in addable
        ],
        "working": [
            m.id
            for m in roster
            if m.type == "Agent" and platform.activity.is_working(room.id, m.id)
        ],
    }
