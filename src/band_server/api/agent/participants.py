"""Agent surface: a room's participants."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import ChatParticipant, ParticipantAddBody

from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services import unit
from ...services.rooms import membership as rooms
from ...services.rooms import roster as room_roster
from ..answers import many, one
from ..listing import data

router = APIRouter(route_class=JsonRoute)


@router.get("/chats/{chat_id}/participants", responses=many(ChatParticipant))
async def list_participants(platform: PlatformDep, agent: AgentDep, chat_id: str) -> dict[str, Any]:
    """The active roster, with live presence."""
    return {
        "data": await room_roster.roster_views(
            platform.db, agent, chat_id, platform.presence.is_online
        )
    }


@router.post("/chats/{chat_id}/participants", status_code=201, responses=one(ChatParticipant, 201))
async def add_participant(
    platform: PlatformDep, agent: AgentDep, chat_id: str, body: ParticipantAddBody
) -> dict[str, Any]:
    """Add a person or an agent to the room."""
    fields = body.participant
    async with unit.write(platform) as uow:
        room = await rooms.room_for(uow.session, agent, chat_id)
        member, broadcasts = await rooms.add_participant(
            uow.session, agent, room, fields.participant_id.strip(), fields.role
        )
        uow.emit(*broadcasts)
    return data(member.view(online=platform.presence.is_online(member.id)))


@router.delete("/chats/{chat_id}/participants/{participant_id}", responses=one(ChatParticipant))
async def remove_participant(
    platform: PlatformDep, agent: AgentDep, chat_id: str, participant_id: str
) -> dict[str, Any]:
    """Remove a participant (or leave, when it names the agent itself)."""
    async with unit.write(platform) as uow:
        room = await rooms.room_for(uow.session, agent, chat_id)
        member, broadcasts = await rooms.remove_participant(
            uow.session, agent, room, participant_id
        )
        uow.emit(*broadcasts)
    return data(member.view(online=platform.presence.is_online(member.id)))
