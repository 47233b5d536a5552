"""Human surface: participants of the caller's rooms."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter

from band_protocol import ChatParticipant, ParticipantAddBody

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.rooms import invites as participation
from ...services.rooms import membership as rooms
from ...services.unit import write
from ..answers import many, one
from ..listing import Limit, OffsetPage, OffsetPageSize, SortedCursor, data
from ..roster_page import roster_page

router = APIRouter(route_class=JsonRoute)


@router.get("/chats/{chat_id}/participants", responses=many(ChatParticipant))
async def list_participants(
    platform: PlatformDep,
    me: UserDep,
    chat_id: str,
    participant_type: Literal["User", "Agent"] | None = None,
    cursor: SortedCursor = None,
    limit: Limit = 50,
    page: OffsetPage = None,
    page_size: OffsetPageSize = None,
) -> dict[str, Any]:
    """The room's current participants in joining order, with presence; ``participant_type``
    keeps only people or only agents."""
    async with platform.db.read() as session:
        await rooms.room_for(session, me, chat_id)
        found = await rooms.members(session, chat_id)
    if participant_type is not None:
        found = [m for m in found if m.type == participant_type]
    window, meta = roster_page(found, cursor=cursor, limit=limit, page=page, page_size=page_size)
    online = platform.presence.is_online
    return {
        "data": [m.view(online(m.id)).model_dump(mode="json") for m in window],
        "metadata": meta,
    }


@router.post("/chats/{chat_id}/participants", status_code=201, responses=one(ChatParticipant, 201))
async def add_participant(
    platform: PlatformDep, me: UserDep, chat_id: str, body: ParticipantAddBody
) -> dict[str, Any]:
    """Invite one of the caller's peers (an id or a handle) into the room."""
    fields = body.participant
    async with write(platform) as uow:
        member = await participation.invite(uow, me, chat_id, fields.participant_id, fields.role)
    return data(member.view(platform.presence.is_online(member.id)))


@router.delete("/chats/{chat_id}/participants/{participant_id}", responses=one(ChatParticipant))
async def remove_participant(
    platform: PlatformDep, me: UserDep, chat_id: str, participant_id: str
) -> dict[str, Any]:
    """Remove a participant (the room's owner or an admin; anyone may remove themself)."""
    async with write(platform) as uow:
        room = await rooms.room_for(uow.session, me, chat_id)
        member, broadcasts = await rooms.remove_participant(uow.session, me, room, participant_id)
        uow.emit(*broadcasts)
    return data(member.view(False))
